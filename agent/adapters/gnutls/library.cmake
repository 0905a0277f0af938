# GnuTLS 3 from the system's development package (libgnutls28-dev). Key
# agreement uses GnuTLS's own backend (nettle/hogweed + GMP) directly, since
# GnuTLS 3.7 has no public key-agreement API: see adapters/gnutls/kex.c.
find_package(PkgConfig REQUIRED)
pkg_check_modules(TB_GNUTLS REQUIRED IMPORTED_TARGET gnutls>=3.6)
pkg_check_modules(TB_NETTLE REQUIRED IMPORTED_TARGET nettle hogweed gmp)
tb_add_agent(gnutls
  SOURCES adapters/gnutls/adapter.c adapters/gnutls/sym.c adapters/gnutls/kex.c adapters/gnutls/pk.c adapters/gnutls/tls.c
  LIBS PkgConfig::TB_GNUTLS PkgConfig::TB_NETTLE
  CONFIG "system GnuTLS ${TB_GNUTLS_VERSION} via pkg-config (${TB_GNUTLS_LINK_LIBRARIES}), TLS: server tickets only when resumption by ticket is asked (else GNUTLS_NO_TICKETS), a 4-session TLS 1.2 session-ID cache in the adapter, GNUTLS_KEY_SHARE_TOP for HelloRetryRequest, 0-RTT with GnuTLS anti-replay (default window)")
