#!/usr/bin/env bash
# Installs the build into a temporary prefix (as `make install` does), then
# builds a tiny program against the installed copy twice: with pkg-config
# (static and shared) and with CMake's find_package(basalt).
set -euo pipefail
build=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix

cmake --install "$build" --prefix "$prefix" >/dev/null
test -f "$prefix/include/basalt/basalt.h"
test -f "$prefix/lib/libbasalt.a"
test -f "$prefix/lib/pkgconfig/basalt.pc"
test -f "$prefix/lib/cmake/basalt/basaltConfig.cmake"
test -x "$prefix/bin/basalt"
test -x "$prefix/libexec/basalt/basalt-cli"
# The launcher finds the installed CLI, and says so when it is missing.
"$prefix/bin/basalt" --version | grep -q '^basalt '
mv "$prefix/libexec/basalt/basalt-cli" "$tmp/cli-aside"
if "$prefix/bin/basalt" --version 2>"$tmp/launch.err"; then
  echo "the launcher ran with no CLI installed" >&2; exit 1
fi
grep -q "basalt: the CLI program is not installed beside" "$tmp/launch.err"
mv "$tmp/cli-aside" "$prefix/libexec/basalt/basalt-cli"

export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
cc -std=c11 -Wall -Werror $(pkg-config --cflags basalt) "$src/consumer.c" \
   $(pkg-config --libs basalt) -o "$tmp/shared_consumer"
LD_LIBRARY_PATH=$prefix/lib "$tmp/shared_consumer"
# ldd's output is taken whole first: `ldd | grep -q` fails now and then under
# pipefail, when grep exits at its match and ldd gets SIGPIPE.
linked=$(LD_LIBRARY_PATH=$prefix/lib ldd "$tmp/shared_consumer")
grep -q "$prefix/lib/libbasalt.so" <<<"$linked"

cc -std=c11 -Wall -Werror $(pkg-config --cflags basalt) "$src/consumer.c" \
   "$prefix/lib/libbasalt.a" $(pkg-config --static --libs-only-l basalt | sed 's/-lbasalt//') \
   -o "$tmp/static_consumer"
"$tmp/static_consumer"

mkdir "$tmp/cm"
cat > "$tmp/cm/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.20)
project(consumer C)
find_package(basalt REQUIRED)
add_executable(consumer $src/consumer.c)
target_link_libraries(consumer PRIVATE basalt::basalt)
CMAKE
cmake -S "$tmp/cm" -B "$tmp/cm/build" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$tmp/cm/build" >/dev/null
LD_LIBRARY_PATH=$prefix/lib "$tmp/cm/build/consumer"
echo "ok: installed headers, libraries, pkg-config and CMake config all usable"
