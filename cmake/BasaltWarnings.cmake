# Warning flags of DESIGN.md section 3, and the sanitizer build.
set(BASALT_WARNING_FLAGS
    -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes
    -Wpointer-arith -Wcast-qual -Wvla -Wformat=2 -Wundef)
if(BASALT_WERROR)
  list(APPEND BASALT_WARNING_FLAGS -Werror)
endif()

if(BASALT_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=undefined
                      -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()

# Fuzzing instruments the whole library for coverage, not just the targets,
# so libFuzzer can steer into the parsers.
if(BASALT_FUZZ)
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()

# Applies the project's warnings to a target of ours (not to third-party code).
function(basalt_warnings target)
  target_compile_options(${target} PRIVATE ${BASALT_WARNING_FLAGS})
endfunction()
