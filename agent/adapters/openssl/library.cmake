# OpenSSL 3 from the system's development package (libssl-dev).
find_package(OpenSSL 3.0 REQUIRED)
tb_add_agent(openssl
  SOURCES adapters/openssl/adapter.c adapters/openssl/sym.c adapters/openssl/kex.c adapters/openssl/pk.c adapters/openssl/tls.c
  LIBS OpenSSL::SSL OpenSSL::Crypto
  CONFIG "system libcrypto/libssl ${OPENSSL_VERSION} (${OPENSSL_CRYPTO_LIBRARY})")
