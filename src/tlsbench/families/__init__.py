"""Case families: primitives, TLS handshakes and code-size probes."""
