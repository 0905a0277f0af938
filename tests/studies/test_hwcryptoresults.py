"""docs/results-hwcrypto.md's generator (tlsbench study results-hwcrypto): its runs come in pairs, software
then hw, per kind of run; the page itself is checked against stored runs in tests/report/test_modelerror.py."""

from __future__ import annotations

import pytest

from tlsbench.errors import PlanError
from tlsbench.studies import hwcryptoresults


def _doc(kinds: list[str]) -> dict:
    return {"plan": {"kinds": kinds, "method": {"env": {"TLSBENCH_MODEL_BOARD": "stm32f439zi"}}}}


def test_an_unpaired_run_is_one_line_naming_the_runs() -> None:
    docs = {"4": _doc(["hash"]), "5": _doc(["hash"]), "6": _doc(["tls"]), "7": _doc(["aead"])}
    with pytest.raises(PlanError) as e:
        hwcryptoresults.render(docs)
    assert str(e.value) == "results-hwcrypto: the runs of primitives come in pairs (software, hw): 4 5 7"
    with pytest.raises(PlanError) as e:
        hwcryptoresults.render({"4": _doc(["hash"]), "5": _doc(["hash"]), "6": _doc(["tls"])})
    assert str(e.value) == "results-hwcrypto: the handshake runs come in pairs (software, hw): 6"
