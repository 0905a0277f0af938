"""The engine: runs cases through agents, summarises samples, stores runs."""
