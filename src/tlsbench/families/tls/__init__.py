"""The TLS family: handshakes and transfers between two agents."""
