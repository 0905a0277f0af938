"""The primitive family: hashes, MACs, AEADs, key exchange, signatures, PKE."""
