# BearSSL 0.6 built from an unpacked source tree (TB_BEARSSL_SOURCE_DIR) as
# one static library: every file of its src/ (what its own Makefile's
# conf/Unix.mk builds into libbearssl.a), with BearSSL's own configuration
# (src/config.h auto-detection: 64-bit, AES-NI, Cortex-M assembly), no
# settings of ours. Compiled with this build's flags (CMAKE_BUILD_TYPE) so
# host and firmware agents use one optimisation level for every library.
set(_tb_bearssl_src "${TB_BEARSSL_SOURCE_DIR}")
if(_tb_bearssl_src STREQUAL "")
  message(FATAL_ERROR
    "bearssl: TB_BEARSSL_SOURCE_DIR is empty; pass "
    "-DTB_BEARSSL_SOURCE_DIR=<unpacked BearSSL 0.6 source tree>")
endif()
if(NOT EXISTS "${_tb_bearssl_src}/inc/bearssl.h" OR NOT EXISTS "${_tb_bearssl_src}/src/inner.h")
  message(FATAL_ERROR
    "bearssl: TB_BEARSSL_SOURCE_DIR='${_tb_bearssl_src}' is not a BearSSL source tree "
    "(no inc/bearssl.h, src/inner.h)")
endif()

file(GLOB_RECURSE _tb_bearssl_sources "${_tb_bearssl_src}/src/*.c")
add_library(tb_bearssl STATIC ${_tb_bearssl_sources})
target_include_directories(tb_bearssl PUBLIC "${_tb_bearssl_src}/inc" PRIVATE "${_tb_bearssl_src}/src")
# BearSSL's own warning flags (conf/Unix.mk: -W -Wall), never fatal to our build.
target_compile_options(tb_bearssl PRIVATE -W -Wall ${TB_THIRD_PARTY_SANITIZE_OFF})  # ASan only (CMakeLists.txt)
if(TB_BARE_METAL)
  # no OS: no /dev/urandom, getentropy or time(); the adapter injects the
  # seed and gives the X.509 engine its time
  target_compile_definitions(tb_bearssl PRIVATE BR_USE_URANDOM=0 BR_USE_GETENTROPY=0 BR_USE_UNIX_TIME=0
                                                BR_USE_WIN32_RAND=0 BR_USE_WIN32_TIME=0 BR_RDRAND=0)
endif()

get_filename_component(_tb_bearssl_name "${_tb_bearssl_src}" NAME) # never a path: images stay path-free
string(TOUPPER "${CMAKE_BUILD_TYPE}" _tb_bearssl_bt)
tb_add_agent(bearssl
  SOURCES adapters/bearssl/adapter.c adapters/bearssl/sym.c adapters/bearssl/kex.c adapters/bearssl/pk.c
          adapters/bearssl/tls.c
  LIBS tb_bearssl
  CONFIG "BearSSL 0.6 built from source (${_tb_bearssl_name}), every file of src/ as one static library with ${CMAKE_BUILD_TYPE} flags (${CMAKE_C_FLAGS_${_tb_bearssl_bt}}), BearSSL's own src/config.h auto-detection; TLS 1.0-1.2 only (no TLS 1.3), full handshakes and session-ID resumption (no tickets), X.509 minimal engine with trust anchors")
