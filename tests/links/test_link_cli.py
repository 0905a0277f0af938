"""`tlsbench link` and `tlsbench list links` on a constructed run: the
model's figures (hand-computed), labelled a model with the link's sources; a
firmware case with instructions only is refused, not converted."""

from __future__ import annotations

from pathlib import Path

import pytest

from tlsbench import cli
from tlsbench.engine.case import Result
from tlsbench.engine.store import Store
from tlsbench.targets import modelerror

SUITE = "TLS_AES_128_GCM_SHA256"


def _r(metric: str, unit: str, value: float) -> Result:
    return Result.of(metric, unit, 5, 0, value, value, None, value, value, None, None)


def _run(db: Path, plan: dict | None = None) -> int:
    store = Store(db)
    run = store.create_run(target="host", plan_name="constructed", plan_source="# test", plan=plan or {},
                           machine={}, version="test", keys={})
    common = (_r("c2s_bytes", "bytes", 500), _r("s2c_bytes", "bytes", 1200), _r("flights", "flights", 3))
    for name, results in ((f"openssl/tls/{SUITE}/x25519/ecdsa-p256-full", (
            _r("client_cpu_ns", "ns", 1_500_000), _r("server_cpu_ns", "ns", 2_500_000), *common)),
            (f"mbedtls/tls/{SUITE}/x25519/ecdsa-p256-full", (
                _r("client_instructions", "instructions", 9e6), _r("server_instructions", "instructions", 9e6),
                *common)),
            (f"wolfssl/tls/{SUITE}/x25519/ecdsa-p256-full", (  # what a cycle-model firmware run stores
                _r("client_model_time_ns", "model-ns", 40_000_000), _r("server_model_time_ns", "model-ns", 60_000_000),
                _r("client_model_energy_nj", "model-nJ", 2_000_000), _r("server_model_energy_nj", "model-nJ", 3e6),
                _r("client_instructions", "instructions", 9e6), _r("server_instructions", "instructions", 9e6),
                *common))):
        store.put_case(run, name=name, library=name.split("/")[0], kind="tls", alg=SUITE,
                       op="x25519/ecdsa-p256-full", size=None, params={}, status="ok", reason="", iters=1,
                       started=0, transcript="", results=list(results))
    store.finish_run(run)
    store.close()
    return run


def test_link_prints_the_model_per_case_and_refuses_instructions(tmp_path: Path, capsys) -> None:
    db = tmp_path / "r.sqlite"
    run = _run(db)
    assert cli.main(["link", str(run), "--db", str(db), "--link", "ethernet-100m"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("MODEL, not a measurement")
    # 4 ms compute + 3 x 0.05 ms + 157.6 us serialisation + 114.4 us TCP handshake (hand-computed)
    row = next(line for line in out.splitlines() if line.startswith("openssl/"))
    assert "4.42 ms" in row and "150 µs (3%)" in row
    assert "mbedtls/tls/" in out.split("not modelled:")[1]
    assert "instruction counts, not time" in out
    assert "IEEE 802.3" in out  # the sources travel with the figures
    # firmware with the cycle model: its model time per side, its model energy per side
    row = next(line for line in out.splitlines() if line.startswith("wolfssl/"))
    assert "40 ms (40%)" in row and "60 ms (60%)" in row and "100 ms" in row and "2,000.0 µJ" in row
    assert "firmware time per side (cycle model)" in out
    assert cli.main(["link", str(run), "--db", str(db), "--link", "ble-5"]) == 0
    assert "radio energy: Nordic nRF52832" in capsys.readouterr().out


def test_board_profiles_need_the_cycle_model(tmp_path: Path, capsys) -> None:
    db = tmp_path / "r.sqlite"
    run = _run(db)
    rc = cli.main(["link", str(run), "--db", str(db), "--link", "ble-5", "--board", "nucleo-f446re"])
    err = capsys.readouterr().err
    try:
        import tlsbench.targets.boardprofiles  # noqa: F401
    except ModuleNotFoundError:
        assert rc == 2 and "board profiles come with the cycle model" in err
    else:  # the cycle model is merged: the board is known
        assert rc == 0, err


def test_unknown_link_is_one_line(tmp_path: Path, capsys) -> None:
    db = tmp_path / "r.sqlite"
    run = _run(db)
    assert cli.main(["link", str(run), "--db", str(db), "--link", "ble5"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown link 'ble5'; did you mean ble-5" in err


def test_list_links(capsys) -> None:
    assert cli.main(["list", "links"]) == 0
    out = capsys.readouterr().out
    assert "lora-class" in out and "no TCP" in out and "802.15.4-6lowpan" in out


def test_another_board_than_the_runs_cycle_model_is_refused(tmp_path: Path, capsys) -> None:
    db = tmp_path / "r.sqlite"
    run = _run(db, {"method": {"env": {"TLSBENCH_MODEL_BOARD": "nucleo-f446re"}}})
    rc = cli.main(["link", str(run), "--db", str(db), "--link", "ble-5", "--board", "nrf5340-app"])
    assert rc == 2
    assert "modelled on board nucleo-f446re; --board nrf5340-app would pair" in capsys.readouterr().err


def test_a_server_on_a_host_charges_only_the_clients_compute(tmp_path: Path, capsys) -> None:
    """--server host (a device client against a cloud server): the client's compute plus the link; the
    server's compute is named not charged, never a zero; a device-client run (its client only) is modelled."""
    db = tmp_path / "r.sqlite"
    run = _run(db)
    store = Store(db)
    device = Store(db).create_run(target="qemu:mps2-an500", plan_name="device", plan_source="", plan={},
                                  machine={}, version="test", keys={})
    store.put_case(device, name=f"mbedtls/tls/{SUITE}/x25519/ecdsa-p256-full/device=client", library="mbedtls",
                   kind="tls", alg=SUITE, op="x25519/ecdsa-p256-full/device=client", size=None, params={},
                   status="ok", reason="", iters=1, started=0, transcript="", results=[
                       _r("client_model_time_ns", "model-ns", 40_000_000), _r("client_instructions", "instructions",
                                                                              9e6),
                       _r("c2s_bytes", "bytes", 500), _r("s2c_bytes", "bytes", 1200), _r("flights", "flights", 3)])
    store.finish_run(device)
    store.close()
    assert cli.main(["link", str(run), "--db", str(db), "--link", "ethernet-100m", "--server", "host"]) == 0
    out = capsys.readouterr().out
    # 40 ms of the client + 3 x 0.05 ms + 157.6 us serialisation + 114.4 us TCP handshake (hand-computed)
    row = next(line for line in out.splitlines() if line.startswith("wolfssl/"))
    assert "40 ms (99%)" in row and "host: not charged" in row and "  40.4 ms  " in row and "60 ms" not in row
    row = next(line for line in out.splitlines() if line.startswith("openssl/"))
    assert "1.5 ms (78%)" in row and "1.92 ms" in row
    assert ("  the server on a host elsewhere: only the client's compute is charged; the client's own TCP stack cost"
            " is not modelled (its TCP handshake is the link's round trip alone)") in out.splitlines()
    assert cli.main(["link", str(device), "--db", str(db), "--link", "ethernet-100m", "--server", "host"]) == 0
    row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("mbedtls/"))
    assert "  40.4 ms  " in row and "host: not charged" in row
    assert cli.main(["link", str(device), "--db", str(db), "--link", "ethernet-100m"]) == 0
    assert "mbedtls/tls/" in capsys.readouterr().out.split("not modelled:")[1]  # both sides asked, one stored


def test_a_cycle_model_runs_link_view_gives_the_models_measured_error(tmp_path: Path, capsys,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(modelerror, "DATA", tmp_path / "model-error.toml")
    modelerror.write({"cortex-m4": [(0.04, "l4-sha256"), (-0.25, "l4-x25519")]}, "figures.toml", "v.sqlite")
    db = tmp_path / "r.sqlite"
    run = _run(db, {"method": {"env": {"TLSBENCH_MODEL_BOARD": "nucleo-f446re"}}})
    assert cli.main(["link", str(run), "--db", str(db), "--link", "ethernet-100m"]) == 0
    assert ("  cycle model error: the model's error on 2 same-code cortex-m4 rows (published board figures of the"
            " same code): median 14%, largest 25% (l4-x25519); docs/cycle-model.md, Validation"
            ) in capsys.readouterr().out.splitlines()
    assert cli.main(["link", str(_run(db)), "--db", str(db), "--link", "ethernet-100m"]) == 0
    assert "cycle model error" not in capsys.readouterr().out  # a run without the cycle model
