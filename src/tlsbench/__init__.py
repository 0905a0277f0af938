"""tlsbench: reproducible benchmarks of TLS libraries and their cryptography."""

__version__ = "0.1.0"
