"""The report's view names, as `tlsbench report --view` takes them (and the
run page's anchors): the cases table, the per-side handshake table (named
tls for the user) and the interop grid. Which cases a view shows is asked of
the families (families.registry.kinds_with), never read from these names."""

from __future__ import annotations

CASES = "cases"
TLS = "tls"
INTEROP = "interop"
VIEWS = (CASES, TLS, INTEROP)
