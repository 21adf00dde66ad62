# basalt front door. On a fresh Debian 12 machine:
#   make demo   installs what is missing, builds optimised, runs taxibench on two months
#   make test   installs what is missing, builds, runs the whole suite
BUILD ?= build
ASAN_BUILD ?= build-asan
JOBS ?= $(shell nproc)
PREFIX ?= /usr/local
CMAKE_FLAGS ?=

.PHONY: all setup build test demo tour bench bench-taxi fuzz install asan clang-check clean

all: build

setup:
	@bash scripts/setup

build:
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

# The peers (DuckDB, Polars, python3-avro...) are installed by setup, so tests
# that compare against them must not skip here.
test: setup build
	cd $(BUILD) && BASALT_REQUIRE_PEERS=1 ctest --output-on-failure -j $(JOBS) --output-junit ctest-junit.xml
	@bash scripts/test-count $(BUILD)/ctest-junit.xml

# taxibench on two months of generated trips in ./warehouse (SQLite catalog),
# answers and timings next to DuckDB's.
demo: setup build
	@bash scripts/demo $(BUILD)

# The formats and the Iceberg read path on small sample files.
tour: setup build
	@bash scripts/tour $(BUILD)/tools/basalt/basalt

# taxibench at SCALE rows (default 10M; 79478796 is the reference table):
# generated once into $(TAXI_DATA), loaded, and run against DuckDB and Polars.
SCALE ?= 10M
TAXI_DATA ?= $(HOME)/.cache/basalt/taxi
bench-taxi: setup build
	@bash bench/taxi/bench.sh $(BUILD) $(SCALE) $(TAXI_DATA) $(ARGS)

bench: setup build
	$(BUILD)/bench/basalt-bench $(ARGS)

# libFuzzer binaries (clang): build-fuzz/fuzz/fuzz_<target>
fuzz: setup
	@cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang \
	    -DBASALT_FUZZ=ON -DBASALT_BUILD_BENCH=OFF >/dev/null
	@cmake --build build-fuzz -j $(JOBS)
	@ls build-fuzz/fuzz/fuzz_*

install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

# The suite under AddressSanitizer + UndefinedBehaviorSanitizer, warnings as errors.
# The randomised differential tests run fewer tables and queries here, from
# another seed than `make test`, so the two runs together cover more; the
# spill tests run their two-worker legs only; the CLI comparisons with the
# peers (label `peers`: DuckDB, Polars, the JavaScript readers), whose time
# is mostly the peers', are left to `make test`, except the Flight server's.
# Built at -O1: at -O0 the sanitized suite took most of CI's time.
asan: setup
	@cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG="-g -O1" -DBASALT_SANITIZE=ON -DBASALT_WERROR=ON \
	    -DBASALT_BUILD_BENCH=OFF >/dev/null
	@cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && BASALT_REQUIRE_PEERS=1 BASALT_RANDOM_SEED=2 BASALT_RANDOM_TABLES=60 \
	    BASALT_RANDOM_DUCKDB_TABLES=15 BASALT_RANDOM_QUERIES=40 BASALT_H2O_ROWS=5e4 BASALT_TAXI_ROWS=200000 BASALT_FLIGHT_ROWS=50000 BASALT_FAULT_SWEEP=quick \
	    BASALT_QUERY_JOINS=20 BASALT_AGG_SPECS=30 BASALT_SPILL_MIN_WORKERS=2 ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --output-on-failure -j $(JOBS) -LE '^peers$$'

# clang must build clean with warnings as errors too.
clang-check: setup
	@cmake -S . -B build-clang -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=clang \
	    -DBASALT_WERROR=ON >/dev/null
	@cmake --build build-clang -j $(JOBS)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) build-clang build-fuzz
