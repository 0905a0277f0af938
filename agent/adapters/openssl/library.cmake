set(_ossl_sources adapters/openssl/adapter.c adapters/openssl/sym.c adapters/openssl/kex.c adapters/openssl/pk.c
                  adapters/openssl/pq.c adapters/openssl/tls.c)
if(TB_AGENT_LABEL)
  # A pinned OpenSSL built by tlsbench (targets/prefixbuild.py) in its own
  # build tree under build/libs: its headers (generated ones in the build
  # tree, the rest in the source tree) and shared libraries, found at run
  # time through the agent's RPATH, never the system's libcrypto.
  set(_ossl_build ${TB_AGENT_DIR})
  if(NOT EXISTS ${_ossl_build}/libcrypto.so OR NOT EXISTS ${_ossl_build}/libssl.so)
    message(FATAL_ERROR "openssl ${TB_AGENT_LABEL}: no libcrypto.so/libssl.so in ${_ossl_build}")
  endif()
  tb_add_agent(openssl-${TB_AGENT_LABEL}
    SOURCES ${_ossl_sources}
    LIBS ${_ossl_build}/libssl.so ${_ossl_build}/libcrypto.so
    INCLUDES ${_ossl_build}/include ${TB_AGENT_DIR2}/include
    CONFIG "libcrypto/libssl built from the pinned source (${TB_AGENT_DIR2}) in ${_ossl_build}")
  set_target_properties(tlsbench-agent-openssl-${TB_AGENT_LABEL} PROPERTIES BUILD_RPATH ${_ossl_build})
else()
  # OpenSSL 3 from the system's development package (libssl-dev).
  find_package(OpenSSL 3.0 REQUIRED)
  tb_add_agent(openssl
    SOURCES ${_ossl_sources}
    LIBS OpenSSL::SSL OpenSSL::Crypto
    CONFIG "system libcrypto/libssl ${OPENSSL_VERSION} (${OPENSSL_CRYPTO_LIBRARY})")
endif()
