"""The same Mbed TLS overlay on the host: its own agent in a folder keyed by
the file's bytes (built on demand by the run), every agent of the run from
that folder, TLS 1.2 unsupported with the define named, and the record
buffers' 2 x 14 KiB gone from the handshake's heap."""

from __future__ import annotations

import dataclasses

import pytest
from conftest import needs_tools
from test_firmware_userconfig import OVERLAY, PLAN, TLS12, TLS13

from tlsbench.engine import runner
from tlsbench.engine.store import Store
from tlsbench.plans.plan import parse_plan
from tlsbench.report import tables as report
from tlsbench.targets import build, userconfig
from tlsbench.targets import target as targets

pytestmark = needs_tools("cc", "cmake")


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, object]:
    folder = tmp_path_factory.mktemp("host-userconfig")
    overlay = folder / "my_mbedtls_config.h"
    overlay.write_text(OVERLAY)
    theirs = dataclasses.replace(targets.HOST, user=userconfig.parse([f"mbedtls={overlay}"], None))
    plan = parse_plan(PLAN, "test plan")
    build.ensure_host_agents(theirs, plan.libraries, log=lambda m: None)
    store = Store(folder / "r.sqlite")
    ids = {name: runner.run(parse_plan(PLAN, "test plan"), PLAN, store, show_progress=False, target=t)
           for name, t in (("ours", targets.HOST), ("theirs", theirs))}
    data = {name: report.load(store, run_id) for name, run_id in ids.items()}
    store.close()
    return {"target": theirs, **data}


def _case(data, name: str) -> dict:
    return next(c for c in data.cases if c["name"] == name)


def test_the_overlay_agent_lives_in_its_own_folder(runs) -> None:
    theirs = runs["target"]
    assert theirs.build_name == "host" + userconfig.suffix(theirs.user)
    assert theirs.agent_path("mbedtls") == theirs.build_dir() / "tlsbench-agent-mbedtls"
    assert targets.HOST.agent_path("mbedtls").parent.name == "host"
    assert theirs.user.configs[0].sha256 in runs["theirs"].libraries[0]["config"]
    assert "user's configuration" not in runs["ours"].libraries[0]["config"]


def test_tls12_turned_off_on_the_host_names_the_define(runs) -> None:
    assert _case(runs["ours"], TLS12)["status"] == "ok"
    case = _case(runs["theirs"], TLS12)
    assert (case["status"], case["reason"]) == ("unsupported", "MBEDTLS_SSL_PROTO_TLS1_2 is off in your config"
                                                " (Mbed TLS (as configured) has no suite"
                                                " TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256)")


def test_the_smaller_records_leave_the_handshakes_heap(runs) -> None:
    ours, theirs = _case(runs["ours"], TLS13)["results"], _case(runs["theirs"], TLS13)["results"]
    for side in ("client", "server"):
        saved = ours[f"{side}_heap_peak_bytes"]["median"] - theirs[f"{side}_heap_peak_bytes"]["median"]
        assert saved >= 2 * (16384 - 2048), side
