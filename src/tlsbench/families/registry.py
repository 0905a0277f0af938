"""Every case family, in the order their cases run. The one place a family is named."""

from __future__ import annotations

from tlsbench.engine import metrics
from tlsbench.errors import TlsbenchError
from tlsbench.families.base import Family
from tlsbench.families.minram.family import MinRamFamily
from tlsbench.families.primitive.family import PrimitiveFamily
from tlsbench.families.size.family import SizeFamily
from tlsbench.families.tls.family import TlsFamily

FAMILIES: tuple[Family, ...] = (
    PrimitiveFamily(),
    TlsFamily(),
    SizeFamily(),
    MinRamFamily(),
)

_BY_KIND = {kind: f for f in FAMILIES for kind in f.kinds}
assert len(_BY_KIND) == sum(len(f.kinds) for f in FAMILIES), "a case kind belongs to one family"
for _family in FAMILIES:
    for _metric in _family.metrics():
        assert metrics.REGISTRY.get(_metric.name) is _metric, f"{_family.name}: {_metric.name} is not registered"


def family_of(kind: str) -> Family:
    try:
        return _BY_KIND[kind]
    except KeyError:
        raise TlsbenchError(f"no case family measures kind {kind!r}; kinds: {', '.join(_BY_KIND)}") from None
