set(_gnutls_sources adapters/gnutls/adapter.c adapters/gnutls/sym.c adapters/gnutls/kex.c adapters/gnutls/pk.c
                    adapters/gnutls/tls.c)
if(NOT TB_AGENT_LABEL)
  # GnuTLS 3 from the system's development package (libgnutls28-dev). Key
  # agreement uses GnuTLS's own backend (nettle/hogweed + GMP) directly, since
  # GnuTLS 3.7 has no public key-agreement API: see adapters/gnutls/kex.c.
  find_package(PkgConfig REQUIRED)
  pkg_check_modules(TB_GNUTLS REQUIRED IMPORTED_TARGET gnutls>=3.6)
  pkg_check_modules(TB_NETTLE REQUIRED IMPORTED_TARGET nettle hogweed gmp)
  tb_add_agent(gnutls
    SOURCES ${_gnutls_sources}
    LIBS PkgConfig::TB_GNUTLS PkgConfig::TB_NETTLE
    CONFIG "system GnuTLS ${TB_GNUTLS_VERSION} via pkg-config (${TB_GNUTLS_LINK_LIBRARIES}), TLS: server tickets only when resumption by ticket is asked (else GNUTLS_NO_TICKETS), a 4-session TLS 1.2 session-ID cache in the adapter, GNUTLS_KEY_SHARE_TOP for HelloRetryRequest, 0-RTT with GnuTLS anti-replay (default window)")
else()
  # A further GnuTLS version (TB_VERSION_AGENTS): TB_AGENT_DIR is the prefix
  # targets/gnutlsbuild.py built it and its own nettle into. The agent links
  # both from there and finds them at run time through its RPATH, never the
  # system's libgnutls or libnettle (the adapter's kex.c calls nettle too).
  set(_gt_lib ${TB_AGENT_DIR}/lib)
  foreach(_so libgnutls.so libnettle.so libhogweed.so)
    if(NOT EXISTS ${_gt_lib}/${_so})
      message(FATAL_ERROR "gnutls-${TB_AGENT_LABEL}: no ${_so} in ${_gt_lib}")
    endif()
  endforeach()
  find_library(TB_GMP_LIBRARY gmp REQUIRED)
  tb_add_agent(gnutls-${TB_AGENT_LABEL}
    SOURCES ${_gnutls_sources}
    LIBS ${_gt_lib}/libgnutls.so ${_gt_lib}/libhogweed.so ${_gt_lib}/libnettle.so ${TB_GMP_LIBRARY}
    INCLUDES ${TB_AGENT_DIR}/include
    DEFINES TB_GNUTLS_OWN_PREFIX=1
    CONFIG "GnuTLS and nettle built from their pinned sources into ${TB_AGENT_DIR} (targets/gnutlsbuild.py), TLS: server tickets only when resumption by ticket is asked (else GNUTLS_NO_TICKETS), a 4-session TLS 1.2 session-ID cache in the adapter, GNUTLS_KEY_SHARE_TOP for HelloRetryRequest, 0-RTT with GnuTLS anti-replay (default window)")
  set_target_properties(tlsbench-agent-gnutls-${TB_AGENT_LABEL} PROPERTIES BUILD_RPATH ${_gt_lib})
endif()
