# libFuzzer targets for the agent core (-DTB_FUZZ=ON, Clang only; see
# agent/fuzz/README.md). The core is compiled a second time, instrumented,
# with the selftest double (no real crypto: fast) and the fuzzing platform
# layer. The measuring agents are not part of such a build.
if(NOT CMAKE_C_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "TB_FUZZ needs Clang (-fsanitize=fuzzer), e.g. -DCMAKE_C_COMPILER=clang-14; "
                      "this build uses ${CMAKE_C_COMPILER_ID}")
endif()
if(TB_LIBRARIES OR TB_SELFTEST OR NOT TB_PLATFORM STREQUAL "host")
  message(FATAL_ERROR "TB_FUZZ builds only the fuzzers: configure it in a folder of its own with "
                      "-DTB_LIBRARIES= -DTB_SELFTEST=OFF (TB_PLATFORM host)")
endif()

set(TB_FUZZ_FLAGS -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all)
get_target_property(_tb_core_sources tb_core SOURCES)
add_library(tb_core_fuzz STATIC ${_tb_core_sources})
target_include_directories(tb_core_fuzz PUBLIC include)
target_compile_options(tb_core_fuzz PRIVATE ${TB_WARNINGS} ${TB_FUZZ_FLAGS} -fsanitize=fuzzer-no-link)

set(_gen ${CMAKE_CURRENT_BINARY_DIR}/generated/fuzz)
file(WRITE ${_gen}/tb_build_config.h "#define TB_LIBRARY_CONFIG \"selftest double, fuzzing build\"\n")
# tlsbench-fuzz-request: request lines; tlsbench-fuzz-tls-request: TLS
# request fields straight into tb_tls_request_parse.
foreach(_t request tls-request)
  string(REPLACE "-" "_" _src ${_t})
  add_executable(tlsbench-fuzz-${_t} fuzz/fuzz_${_src}.c fuzz/platform_fuzz.c
                 adapters/selftest/adapter.c adapters/selftest/tls.c)
  target_include_directories(tlsbench-fuzz-${_t} PRIVATE ${_gen})
  target_compile_options(tlsbench-fuzz-${_t} PRIVATE -include tb_build_config.h ${TB_WARNINGS} ${TB_FUZZ_FLAGS}
                         -fsanitize=fuzzer)
  target_link_options(tlsbench-fuzz-${_t} PRIVATE -fsanitize=fuzzer,address,undefined)
  target_link_libraries(tlsbench-fuzz-${_t} PRIVATE tb_core_fuzz)
endforeach()
