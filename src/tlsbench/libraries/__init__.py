"""The library registry: one record per library (record.py), one module per
library, registered in registry.py; versions.py answers by identifier
("openssl", "openssl@3.5")."""
