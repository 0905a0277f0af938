"""The report's views, as `tlsbench report --view` takes them (and the run page's anchors): the cases
table, its own, then the views the families render themselves (families.registry.report_views).
Which cases a view takes is asked of the families too (families.registry.kinds_with), never read from
a kind's name."""

from __future__ import annotations

from tlsbench.families import registry
from tlsbench.families.base import FITS, HANDSHAKES

CASES = "cases"


def names() -> tuple[str, ...]:
    return (CASES, *(v.name for v in registry.report_views()))


def is_handshake(case: dict) -> bool:
    """A case its family shows in the handshake views (the TLS tables and charts)."""
    return case["kind"] in registry.kinds_with(HANDSHAKES)


def has_fits(data) -> bool:
    """The run has cases its family shows in the fits view (registry.fits_view)."""
    return any(c["kind"] in registry.kinds_with(FITS) for c in data.cases)
