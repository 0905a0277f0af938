set(_ossl_sources adapters/openssl/adapter.c adapters/openssl/sym.c adapters/openssl/kex.c adapters/openssl/pk.c
                  adapters/openssl/pq.c adapters/openssl/tls.c)
# Which OpenSSL: the default version's (TB_OPENSSL_BUILD_DIR, TB_OPENSSL_SOURCE_DIR) or a further
# version's (TB_VERSION_AGENTS: TB_AGENT_DIR, TB_AGENT_DIR2), each either "system" (or empty: the
# system's development package) or a pinned OpenSSL's build tree and source tree.
set(TB_OPENSSL_BUILD_DIR "" CACHE STRING "The default OpenSSL's build tree (targets/prefixbuild.py); empty: the system's")
set(TB_OPENSSL_SOURCE_DIR "" CACHE PATH "The source tree of TB_OPENSSL_BUILD_DIR")
set(_ossl_name openssl)
set(_ossl_build "${TB_OPENSSL_BUILD_DIR}")
set(_ossl_src "${TB_OPENSSL_SOURCE_DIR}")
if(TB_AGENT_LABEL)
  set(_ossl_name openssl-${TB_AGENT_LABEL})
  set(_ossl_build "${TB_AGENT_DIR}")
  set(_ossl_src "${TB_AGENT_DIR2}")
endif()
if(_ossl_build STREQUAL "" OR _ossl_build STREQUAL "system")
  # OpenSSL 3 from the system's development package (libssl-dev).
  find_package(OpenSSL 3.0 REQUIRED)
  tb_add_agent(${_ossl_name}
    SOURCES ${_ossl_sources}
    LIBS OpenSSL::SSL OpenSSL::Crypto
    CONFIG "system libcrypto/libssl ${OPENSSL_VERSION} (${OPENSSL_CRYPTO_LIBRARY})")
else()
  # A pinned OpenSSL built by tlsbench (targets/prefixbuild.py) in its own
  # build tree under build/libs: its headers (generated ones in the build
  # tree, the rest in the source tree) and shared libraries, found at run
  # time through the agent's RPATH, never the system's libcrypto.
  if(NOT EXISTS ${_ossl_build}/libcrypto.so OR NOT EXISTS ${_ossl_build}/libssl.so)
    message(FATAL_ERROR "${_ossl_name}: no libcrypto.so/libssl.so in ${_ossl_build}")
  endif()
  tb_add_agent(${_ossl_name}
    SOURCES ${_ossl_sources}
    LIBS ${_ossl_build}/libssl.so ${_ossl_build}/libcrypto.so
    INCLUDES ${_ossl_build}/include ${_ossl_src}/include
    CONFIG "libcrypto/libssl built from the pinned source (${_ossl_src}) in ${_ossl_build}")
  set_target_properties(tlsbench-agent-${_ossl_name} PROPERTIES BUILD_RPATH ${_ossl_build})
endif()
