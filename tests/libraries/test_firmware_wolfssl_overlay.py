"""A user's wolfSSL user_settings.h overlay on the emulated Cortex-M4: its own
image, an exact figure that moves the way the overlay says (wolfSSL's rolled
SHA-256, USE_SLOW_SHA256: more instructions per block, less code), the same
counts on every repeat."""

from __future__ import annotations

import dataclasses

import pytest
from conftest import needs_tools
from plan_text import one_size_plan

from tlsbench.engine import runner
from tlsbench.engine.store import Store
from tlsbench.plans.plan import parse_plan
from tlsbench.report import tables as report
from tlsbench.targets import target as targets
from tlsbench.targets import userconfig

pytestmark = needs_tools("qemu-system-arm", "arm-none-eabi-gcc")

SETTINGS = """/* a user's wolfSSL settings over ours: the rolled SHA-256 (less code) */
#define USE_SLOW_SHA256
"""
PLAN = one_size_plan("wolfssl-overlay", ["wolfssl"], "hash", ["sha256"], warmup=0, repeats=3, rounds=1,
                     outliers="none", timeout_s=300)
CASE = "wolfssl/hash/sha256/hash/64"


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, report.RunData]:
    folder = tmp_path_factory.mktemp("wolfssl-overlay")
    settings = folder / "my_settings.h"
    settings.write_text(SETTINGS)
    ours = targets.parse("qemu:mps2-an386")
    theirs = dataclasses.replace(ours, user=userconfig.parse([f"wolfssl={settings}"], None))
    store = Store(folder / "r.sqlite")
    ids = {name: runner.run(parse_plan(PLAN, "test plan"), PLAN, store, show_progress=False, target=t)
           for name, t in (("ours", ours), ("theirs", theirs))}
    data = {name: report.load(store, run_id) for name, run_id in ids.items()}
    store.close()
    return data


def _result(data: report.RunData, metric: str) -> dict:
    case = next(c for c in data.cases if c["name"] == CASE)
    return case["results"][metric]


def _flash(data: report.RunData) -> int:
    return sum(r["flash_bytes"] for r in data.code_sizes if r["library"] == "wolfssl")


def test_the_rolled_sha256_costs_instructions_exactly(runs) -> None:
    ours, theirs = _result(runs["ours"], "instructions"), _result(runs["theirs"], "instructions")
    for r in (ours, theirs):  # every repeat the same count
        assert (r["n"], r["min"], r["max"]) == (3, r["median"], r["median"])
    assert theirs["median"] > ours["median"]


def test_the_rolled_sha256_is_less_code(runs) -> None:
    assert 0 < _flash(runs["theirs"]) < _flash(runs["ours"])


def test_the_image_says_it_has_the_users_settings(runs) -> None:
    theirs = userconfig.parse([f"wolfssl={runs['theirs'].run.machine['user_build']['configs']['wolfssl']['path']}"],
                              None)
    assert f"with the user's settings after ours (sha256 {theirs.configs[0].sha256})" \
        in runs["theirs"].libraries[0]["config"]
    assert "user's settings" not in runs["ours"].libraries[0]["config"]
