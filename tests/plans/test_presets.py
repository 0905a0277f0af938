"""Every shipped preset parses and expands to uniquely named cases; the
study presets re-run what their study measured."""

from __future__ import annotations

from pathlib import Path

import pytest

from tlsbench.engine import runner
from tlsbench.errors import PlanError
from tlsbench.families.tls import catalog as tls_catalog
from tlsbench.plans import where
from tlsbench.plans.plan import load_plan, load_preset, presets

STUDY_PRESETS = ("handshake-by-suite", "tls13-vs-tls12", "kex-transactions", "tls12-suites-cost", "hash-by-size")


def test_the_study_presets_are_shipped() -> None:
    assert set(STUDY_PRESETS) <= set(presets())


@pytest.mark.parametrize("name", sorted(presets()))
def test_every_preset_parses_and_expands_without_duplicates(name: str) -> None:
    plan, text = load_preset(name)
    assert plan.name == name, "a preset's name is its file's name"
    assert plan.description.strip() and text.strip()
    cases = runner.expand(plan)
    assert cases, f"preset {name} expands to no case"
    names = [c.name for c in cases]
    assert len(names) == len(set(names))
    assert {c.library for c in cases} <= set(plan.libraries)


def _tls(name: str) -> list:
    return [c for c in runner.expand(load_preset(name)[0]) if c.kind == "tls"]


def test_handshake_by_suite_is_tls12_rsa_and_ecdhe_rsa_against_s_server() -> None:
    cases = _tls("handshake-by-suite")
    suites = {c.alg for c in cases}
    assert {s.split("_WITH_")[0] for s in suites} == {"TLS_RSA", "TLS_ECDHE_RSA"}
    assert all(tls_catalog.version_of(s) == 12 for s in suites)
    assert any("CBC" in s for s in suites) and any("GCM" in s for s in suites)
    assert all(c.op.endswith("/tcp+server=openssl-s_server") for c in cases)


def test_tls13_vs_tls12_has_the_studys_four_connection_types() -> None:
    cases = _tls("tls13-vs-tls12")
    kinds = {(tls_catalog.version_of(c.alg), c.op.split("/")[1]) for c in cases if c.alg != "TCP"}
    assert {(12, "rsa2048-full"), (13, "rsa2048-full"), (13, "ecdsa-p256-full")} <= kinds
    assert any(c.alg == "TCP" for c in cases), "the plain TCP baseline"
    plan = load_preset("tls13-vs-tls12")[0]
    assert plan.method.repeats == 10 and plan.method.outliers == "trim:2"


def test_kex_transactions_measures_transactions_per_key_exchange() -> None:
    plan = load_preset("kex-transactions")[0]
    assert set(plan.libraries) == {"gnutls", "openssl"}
    capacity = [c for c in runner.expand(plan) if "clients=" in c.op]
    assert {c.alg.split("_WITH_")[0] for c in capacity} == {"TLS_RSA", "TLS_DHE_RSA", "TLS_ECDHE_RSA"}
    assert {c.op.rsplit("clients=", 1)[1] for c in capacity} == {"1", "4"}
    assert any(c.kind == "aead" and "cbc" in c.alg for c in runner.expand(plan))


def test_tls12_suites_cost_has_both_authentications_and_the_primitives() -> None:
    cases = runner.expand(load_preset("tls12-suites-cost")[0])
    tls = [c for c in cases if c.kind == "tls"]
    assert any("mutual" in c.op for c in tls) and any("mutual" not in c.op for c in tls)
    assert {c.alg for c in cases if c.kind == "kex"} == {"p256", "x25519"}
    assert {c.alg for c in cases if c.kind == "sig"} == {"ecdsa-p256-sha256", "ed25519"}


def test_hash_by_size_is_the_riot_table() -> None:
    cases = runner.expand(load_preset("hash-by-size")[0])
    assert {c.alg for c in cases} == {"md5", "sha1", "sha224", "sha256", "sha3-256", "sha3-384", "sha3-512"}
    assert {c.size for c in cases} == {16, 32, 64, 128, 256, 512, 1024}


@pytest.mark.parametrize("name", sorted(presets()))
def test_every_preset_says_where_it_runs_and_what_runs_elsewhere(name: str) -> None:
    plan, text = load_preset(name)
    assert "\ntargets = " in text, f"preset {name} declares where it runs"
    for kind, target, firmware in (("host", "host", False), ("firmware", "qemu:mps2-an386", True)):
        if kind in plan.targets:  # what it declares passes every check of the target kind
            where.check(plan, target, firmware)
    if set(plan.targets) == set(where.TARGET_KINDS):
        assert not plan.target_note and not plan.target_instead
        return
    other = next(k for k in where.TARGET_KINDS if k not in plan.targets)
    assert plan.target_note, f"preset {name} says why it does not run on {other}"
    assert other in load_preset(plan.target_instead)[0].targets, f"{plan.target_instead} runs on {other}"


def _refused(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture, tmp_path: Path, *args: str) -> list[str]:
    """A run refused before anything is built or stored: its stderr lines."""
    from tlsbench import cli
    from tlsbench.targets import cyclemodel

    def never(*_a: object, **_k: object) -> None:
        raise AssertionError("built or ran before the refusal")

    monkeypatch.setattr(cyclemodel, "build_plugin", never)
    monkeypatch.setattr(runner, "run", never)
    assert cli.main(["--db", str(tmp_path / "r.sqlite"), "run", *args]) == 2
    return capsys.readouterr().err.splitlines()


TCP_NOTE = ("its handshakes run over loopback TCP between separate client and server processes, which a bare-metal"
            " target does not have")


def test_a_host_preset_on_a_device_is_refused_before_any_build(monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture, tmp_path: Path) -> None:
    err = _refused(monkeypatch, capsys, tmp_path, "--preset", "handshake-by-suite", "--target", "qemu:mps2-an500",
                   "--board", "nucleo-f746zg")
    assert err == [f"tlsbench: error: preset handshake-by-suite runs on the host only, not on qemu:mps2-an500:"
                   f" {TCP_NOTE}; on a firmware target: tlsbench run --preset handshake-by-suite-device"
                   " --target qemu:mps2-an500"]
    err = _refused(monkeypatch, capsys, tmp_path, "--preset", "kex-transactions", "--target", "qemu:mps2-an386")
    assert err == [f"tlsbench: error: preset kex-transactions runs on the host only, not on qemu:mps2-an386:"
                   f" {TCP_NOTE}; on a firmware target: tlsbench run --preset device-client --target qemu:mps2-an386"]


def test_a_device_preset_on_the_host_is_refused(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture,
                                                tmp_path: Path) -> None:
    err = _refused(monkeypatch, capsys, tmp_path, "--preset", "min-ram-device")
    assert err == ["tlsbench: error: preset min-ram-device runs on a firmware target only, not on host: one side of"
                   " each handshake runs on the device, its peer the host agent over the UART: it needs a device;"
                   " on the host: tlsbench run --preset min-ram"]


def test_a_plan_file_names_where_it_runs(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture,
                                         tmp_path: Path) -> None:
    plan = tmp_path / "p.toml"
    plan.write_text('name = "mine"\ntargets = ["firmware"]\n\n[select]\nkinds = ["hash"]\n')
    assert _refused(monkeypatch, capsys, tmp_path, "--plan", str(plan)) == [
        "tlsbench: error: plan mine runs on a firmware target only, not on host"]
    plan.write_text('targets = ["host", "board"]\n')
    with pytest.raises(PlanError) as e:
        load_plan(plan)
    assert str(e.value) == f"{plan}:1: targets: unknown value 'board'; allowed: host, firmware"
    plan.write_text('targets = []\n')
    with pytest.raises(PlanError) as e:
        load_plan(plan)
    assert str(e.value) == f"{plan}:1: targets: must name at least one of: host, firmware"


@pytest.mark.parametrize(("host", "device"), [("handshake-by-suite", "handshake-by-suite-device"),
                                               ("tls13-vs-tls12", "tls13-vs-tls12-device")])
def test_a_device_study_runs_its_host_presets_suites_with_the_client_on_the_device(host: str, device: str) -> None:
    """The study measured a device client: its device preset has the host preset's suites and
    certificates, the client on the device, and each names the other where it cannot run."""
    h, d = load_preset(host)[0], load_preset(device)[0]
    assert (d.tls.suites, d.tls.certs, d.tls.device_side) == (h.tls.suites, h.tls.certs, "client")
    assert (h.targets, d.targets) == (["host"], ["firmware"])
    assert (h.target_instead, d.target_instead) == (device, host)


def test_a_preset_for_both_kinds_is_not_refused() -> None:
    plan = load_preset("hash-by-size")[0]
    where.check(plan, "host", False)
    where.check(plan, "qemu:mps2-an386", True)


def test_list_presets_says_where_each_runs(capsys: pytest.CaptureFixture) -> None:
    from tlsbench import cli

    assert cli.main(["list", "presets"]) == 0
    lines = capsys.readouterr().out.splitlines()
    said = {name: next(line for line in lines[lines.index(name):] if line.startswith("    runs on: "))
            for name in ("handshake-by-suite", "hash-by-size", "device-client")}
    assert said == {"handshake-by-suite": "    runs on: the host only; on a firmware target: preset"
                                          " handshake-by-suite-device",
                    "hash-by-size": "    runs on: the host and firmware targets",
                    "device-client": "    runs on: a firmware target only; on the host: preset tls"}


def test_a_plan_with_tcp_handshakes_is_refused_on_a_device(monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture, tmp_path: Path) -> None:
    """A plan that does not say where it runs is still refused where its handshakes cannot run."""
    plan = tmp_path / "p.toml"
    plan.write_text('name = "mine"\n\n[select]\nlibraries = ["mbedtls"]\nkinds = ["tls"]\n\n[tls]\n'
                    'transports = ["memory", "tcp"]\n')
    assert _refused(monkeypatch, capsys, tmp_path, "--plan", str(plan), "--target", "qemu:mps2-an386") == [
        'tlsbench: error: plan mine: [tls] transports names tcp, not on qemu:mps2-an386: a firmware target runs'
        ' handshakes in memory (transports = ["memory"]), or one side against the host (--device-side client or'
        ' server)']


def test_handshake_encryption_is_the_papers_table_2() -> None:
    cases = runner.expand(load_preset("handshake-encryption")[0])
    assert {(c.alg, c.op) for c in cases if c.kind == "tls"} == {
        ("TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "p256/ecdsa-p256-full"),
        ("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "p256/rsa2048-full")}
    # AES-128-GCM every 128 bytes around the handshakes' 1.8 to 2.9 KB
    assert {c.size for c in cases if c.alg == "aes-128-gcm"} == set(range(1024, 4097, 128))


def test_aead_15k_is_the_papers_table_3_on_its_packet_size() -> None:
    cases = runner.expand(load_preset("aead-15k")[0])
    assert sorted(c.name for c in cases) == sorted(
        f"{lib}/aead/{alg}/encrypt/15360" for lib in ("mbedtls", "wolfssl")
        for alg in ("aes-128-cbc-hmac-sha1", "aes-128-gcm", "chacha20-poly1305"))


@pytest.mark.parametrize(("name", "per_round", "resumed_batch"), [("tls", [2, 2, 2], 3), ("tls-tcp", [2] * 6, 10)])
def test_the_tls_presets_spend_their_samples_on_processes(name: str, per_round: list[int], resumed_batch: int) -> None:
    """Samples of 3 handshakes over agent processes (scripts/resample-minima: the process is what a
    handshake's fastest sample repeats by): tls 6 in 3, where 2 processes of 3 samples called false changes
    between runs of unchanged code (docs/method.md, "Three processes for the tls preset"); tls-tcp 12 in 6, its resumed
    handshakes 10 per sample (docs/method.md, "Resumed handshakes in larger batches")."""
    from tlsbench.engine.case import split_repeats

    plan, _text = load_preset(name)
    assert (plan.method.repeats, plan.method.rounds, plan.tls.batch) == (sum(per_round), len(per_round), 3)
    assert (plan.tls.batch_for(False), plan.tls.batch_for(True)) == (3, resumed_batch)
    assert split_repeats(plan.method.repeats, plan.method.rounds) == per_round
