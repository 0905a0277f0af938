"""The study pages (docs/studies): the published figures are read from the
studies' own texts, ours from a stored run, side by side with their ratio;
the board profile the run stored is named; a case that did not run says why;
a run the page needs and does not find is named with its command."""

from __future__ import annotations

from pathlib import Path

import pytest

from tlsbench import cli
from tlsbench.engine.case import Result
from tlsbench.engine.store import Store
from tlsbench.libraries.registry import lacking
from tlsbench.studies import studypages, studyruns
from tlsbench.studies import studysources as src
from tlsbench.targets import boardprofiles, cyclemodel, modelerror

SHARED = src.studies_dir()


@pytest.mark.outside_checkout
@pytest.mark.skipif(not SHARED.exists(), reason="no shared/studies beside the checkout")
def test_the_published_tables_are_read_from_the_studies_texts() -> None:
    def read(number: str, reader) -> list[src.Figure]:
        return reader(src.study_text(number)[1])

    first = read("000", src.handshake_by_suite)
    assert len(first) == 12 and first[0] == src.Figure(("TLS_RSA_WITH_AES_128_CBC_SHA",), 1251.0, "ms",
                                                        "`MBEDTLS_TLS_RSA_WITH_AES_128_CBC_SHA` | 1251ms")
    assert len(read("001", src.connection_types)) == 4 * 4 * 3
    throughput = {f.key: f.value for f in read("003", src.aead_throughput)}
    assert throughput == {("AES128-CBC+HMAC", "SW"): 578_726, ("AES128-CBC+HMAC", "HW"): 6_142_506,
                          ("AES128-GCM", "SW"): 304_216, ("AES128-GCM", "HW"): 8_757_487,
                          ("Chacha20-Poly1305", "SW"): 771_962}
    ram = {f.key: f.value for f in read("003", src.handshake_ram)}
    assert len(ram) == 16 * 4 and ram[("ECDHE RSA", "Mutual", "server", "heap")] == 19.1
    hashes = read("004", src.hash_times)
    assert len(hashes) == 4 * 7 * 7 and hashes[0].key == ("nucleo-f446re", "sha224", "16") and hashes[0].value == 42.5


STUDY_000 = """Cipher | Execution Time
-------|--------------------
`MBEDTLS_TLS_RSA_WITH_AES_128_CBC_SHA` | 1251ms
`MBEDTLS_TLS_RSA_WITH_AES_128_GCM_SHA256` | 1249ms
`MBEDTLS_TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA` | 4921ms
`MBEDTLS_TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256` | 5006ms
"""
SUITES = {"TLS_RSA_WITH_AES_128_CBC_SHA": 250_000_000, "TLS_RSA_WITH_AES_128_GCM_SHA256": 260_000_000,
          "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA": 1_000_000_000}  # the last suite failed


def _result(metric: str, unit: str, value: float) -> Result:
    return Result.of(metric, unit, 3, 0, value, value, None, value, value, None, None)


def _wire() -> list[Result]:
    # over ethernet-100m: 3 x 0.05 ms latency + 157.6 us serialisation + 114.4 us TCP handshake = 0.422 ms
    return [_result("c2s_bytes", "bytes", 500), _result("s2c_bytes", "bytes", 1200), _result("flights", "flights", 3)]


WIRE = _wire()


def _store_000(db: Path) -> int:
    store = Store(db)
    profile = boardprofiles.load("nucleo-f746zg")
    run = store.create_run(target="qemu:mps2-an500", plan_name="handshake-by-suite-device", plan_source="",
                           plan={"method": {"repeats": 3, "warmup": 1, "outliers": "none", "min_sample_ms": 0,
                                            "timeout_s": 9, "rounds": 1, "env": cyclemodel.run_env(profile)}},
                           machine={"board": "mps2-an500", "board_cpu": "cortex-m7"}, version="v1", keys={})
    store.put_board_profile(run, profile.name, profile.origin, profile.text, profile.sha256)
    store.put_library(run, "mbedtls", "3.6.7", "config", "test", "0" * 64, "instructions", {})
    for suite, ns in SUITES.items():
        op = "p256/rsa2048-full/device=client" if "ECDHE" in suite else "rsa-kx/rsa2048-full/device=client"
        store.put_case(run, name=f"mbedtls/tls/{suite}/{op}", library="mbedtls", kind="tls", alg=suite, op=op,
                       size=None, params={}, status="ok", reason="", iters=1, started=0, transcript="",
                       results=[_result("client_instructions", "instructions", ns / 4),
                                _result("client_model_time_ns", "model-ns", ns), *WIRE])
    suite = "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"
    store.put_case(run, name=f"mbedtls/tls/{suite}/p256/rsa2048-full/device=client", library="mbedtls", kind="tls",
                   alg=suite, op="p256/rsa2048-full/device=client", size=None, params={}, status="failed",
                   reason="handshake failed: a test's reason", iters=None, started=0, transcript="", results=[])
    store.finish_run(run)
    store.close()
    return run


def _study_000(tmp_path: Path) -> tuple[Path, int]:
    """A studies folder holding study 000's text, and a database with one stored run of its preset."""
    (tmp_path / "studies").mkdir()
    (tmp_path / "studies" / "000_test.txt").write_text(STUDY_000)
    db = tmp_path / "r.sqlite"
    return db, _store_000(db)


def test_a_page_puts_our_model_figures_beside_the_published_ones(tmp_path: Path) -> None:
    db, run = _study_000(tmp_path)
    assert cli.main(["study", "pages", "--db", str(db), "--studies", str(tmp_path / "studies"),
                     "--out", str(tmp_path / "out"), "--only", "000"]) == 0
    page = (tmp_path / "out" / "000-handshake-by-suite.md").read_text()
    lines = page.splitlines()
    profile = boardprofiles.load("nucleo-f746zg")
    assert (f"- **qemu:mps2-an500** under board profile {profile.described()}") in lines
    assert (f"  - run {run} of `{db}` (not committed; tlsbench v1); cases: 1 failed, 3 ok") in lines
    assert "  - command: `tlsbench run --preset handshake-by-suite-device --target qemu:mps2-an500 --board" \
           " nucleo-f746zg`" in lines
    rows = {line.split("|")[1].strip(): [c.strip() for c in line.split("|")[2:-1]] for line in lines
            if line.startswith("| `TLS_")}
    # published ms, our model ms, instructions, published / ours, over ethernet-100m (the link model)
    assert rows["`TLS_RSA_WITH_AES_128_CBC_SHA`"] == ["1,251", "250.00", "62,500,000", "5.00", "250.42"]
    assert rows["`TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA`"] == ["4,921", "1,000.00", "250,000,000", "4.92", "1,000.42"]
    assert rows["`TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256`"] == ["5,006", "failed: handshake failed: a test's reason",
                                                               "n/m", "-", "-"]
    checks = {line.split("|")[1].strip(): [c.strip() for c in line.split("|")[2:-1]] for line in lines
              if line.startswith("| every ECDHE_RSA")}
    # the study's own figures hold it; ours cannot say, one suite failed
    assert checks == {"every ECDHE_RSA suite takes longer than every RSA suite": ["holds", "not measured"]}


def test_a_page_gives_the_measured_error_of_its_model_core(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(modelerror, "DATA", tmp_path / "model-error.toml")
    modelerror.write({"cortex-m7": [(0.08, "h7-sha256"), (-0.24, "h7-ed25519")]}, "figures.toml", "v.sqlite")
    db, _run = _study_000(tmp_path)
    assert cli.main(["study", "pages", "--db", str(db), "--studies", str(tmp_path / "studies"),
                     "--out", str(tmp_path / "out"), "--only", "000"]) == 0
    lines = (tmp_path / "out" / "000-handshake-by-suite.md").read_text().splitlines()
    assert ("  - model error: the model's error on 2 same-code cortex-m7 rows (published board figures of the same"
            " code): median 16%, largest 24% (h7-ed25519); docs/cycle-model.md, Validation") in lines


def test_a_page_names_the_run_it_lacks(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    db = tmp_path / "r.sqlite"
    Store(db).close()
    assert cli.main(["study", "pages", "--db", str(db), "--out", str(tmp_path / "out"), "--only", "003"]) == 0
    assert capsys.readouterr().err == ("study 003: no stored run (run: tlsbench run --preset tls12-suites-cost"
                                       " --target qemu:mps2-an385 --board stm32f217 --profile wolfssl=small-stack)\n")
    assert not (tmp_path / "out" / "003-tls12-suites-cost.md").exists()


def test_a_narrowed_rerun_fills_in_what_did_not_run_ok(tmp_path: Path) -> None:
    db, first = _study_000(tmp_path)
    store = Store(db)
    profile = boardprofiles.load("nucleo-f746zg")
    suite, op = "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "p256/rsa2048-full/device=client"
    flags = f"--libraries mbedtls --suites {suite} --timeout-s 900"
    again = store.create_run(target="qemu:mps2-an500", plan_name="handshake-by-suite-device",
                             plan_source=f"name = 'x'\n{studyruns.OVERRIDDEN}{flags}\n",
                             plan={"method": {"env": cyclemodel.run_env(profile)}},
                             machine={"board": "mps2-an500"}, version="v1", keys={})
    store.put_board_profile(again, profile.name, profile.origin, profile.text, profile.sha256)
    store.put_case(again, name=f"mbedtls/tls/{suite}/{op}", library="mbedtls", kind="tls", alg=suite, op=op,
                   size=None, params={}, status="ok", reason="", iters=1, started=0, transcript="",
                   results=[_result("client_instructions", "instructions", 250_000_000),
                            _result("client_model_time_ns", "model-ns", 1_001_000_000), *WIRE])
    store.finish_run(again)
    store.close()
    assert cli.main(["study", "pages", "--db", str(db), "--studies", str(tmp_path / "studies"),
                     "--out", str(tmp_path / "out"), "--only", "000"]) == 0
    lines = (tmp_path / "out" / "000-handshake-by-suite.md").read_text().splitlines()
    assert f"  - run {first} of `{db}` (not committed; tlsbench v1); cases: 1 failed, 3 ok" in lines
    assert (f"  - then run {again}, the same with `{flags}` (1 ok): 1 case(s) that did not run ok in the first taken"
            " from it") in lines
    assert "  - cases on this page: 4 ok" in lines
    row = next(line for line in lines if line.startswith(f"| `{suite}`"))
    assert [c.strip() for c in row.split("|")[2:-1]] == ["5,006", "1,001.00", "250,000,000", "5.00", "1,001.42"]


def test_a_host_runs_page_says_how_steady_the_machine_was(tmp_path: Path) -> None:
    """Study 002 is timed on the host: its page carries the run's steadiness line (the reference workload
    around each round), which a firmware run's page has no use for."""
    db = tmp_path / "r.sqlite"
    store = Store(db)
    run = store.create_run(target="host", plan_name="kex-transactions", plan_source="",
                           plan={"method": {"repeats": 3, "warmup": 1, "outliers": "none", "rounds": 1}},
                           machine={"cpu_model": "test"}, version="v1", keys={})
    suite, op = "TLS_RSA_WITH_AES_128_CBC_SHA", "rsa-kx/rsa2048-full/tcp"
    # references 100 and 125 us: speed moved to 0.80x, p5-p95 101.25-123.75 us around the median 112.5 us: +-11%
    store.put_case(run, name=f"openssl/tls/{suite}/{op}", library="openssl", kind="tls", alg=suite, op=op,
                   size=None, params={}, status="ok", reason="", iters=1, started=0, transcript="",
                   results=[_result("transactions_per_s", "1/s", 500)],
                   round_info={"reference_ns": 100_000, "reference_after_ns": 125_000})
    store.finish_run(run)
    store.close()
    (tmp_path / "studies").mkdir()
    (tmp_path / "studies" / "002_test.txt").write_text("no figures\n")
    assert cli.main(["study", "pages", "--db", str(db), "--studies", str(tmp_path / "studies"),
                     "--out", str(tmp_path / "out"), "--only", "002"]) == 0
    lines = (tmp_path / "out" / "002-kex-transactions.md").read_text().splitlines()
    assert "  - machine unsteady: speed moved 0.80-1.00x, p5-p95 ±11%, 50% of references below 0.9 over 2" \
           " samples" in lines
    (tmp_path / "out" / "000").mkdir()
    (tmp_path / "studies" / "000_test.txt").write_text(STUDY_000)
    _store_000(db)
    assert cli.main(["study", "pages", "--db", str(db), "--studies", str(tmp_path / "studies"),
                     "--out", str(tmp_path / "out" / "000"), "--only", "000"]) == 0
    assert "machine" not in (tmp_path / "out" / "000" / "000-handshake-by-suite.md").read_text()


def test_the_readme_names_each_studys_command_its_page_is_made_from() -> None:
    """README's line per study is the command whose run the study's page shows (scripts/study-pages runs
    exactly these): a preset or target changed on one side only is caught here."""
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text().splitlines()
    for study in studypages.STUDIES:
        command = study.runs[0].command()
        named = [i for i, line in enumerate(readme) if (line == command or line.startswith(command + " "))
                 and f"# {study.number}:" in " ".join(readme[i:i + 2])]
        assert len(named) == 1, f"README: no single line '{command}  # {study.number}: ...'"
        assert readme[named[0]].split("#")[0].strip() == command


def test_an_algorithm_no_build_of_a_library_has_is_unsupported_with_the_librarys_reason() -> None:
    """Study 003's Ed25519 rows on Mbed TLS: unsupported because Mbed TLS 3.6 has no EdDSA at all (every
    version, every alias), not for a build's configuration; another library's gap keeps the generic reason."""
    no_eddsa = ("Mbed TLS 3.6 has no EdDSA: psa/crypto_values.h declares PSA_ALG_PURE_EDDSA, no driver"
                " implements it")
    assert [lacking(lib, "ed25519") for lib in ("mbedtls", "mbedtls@3.6", "mbedtls@a2")] == [no_eddsa] * 3
    assert lacking("mbedtls", "x25519") == "not supported by this library build"
    assert lacking("wolfssl", "ed25519") == "not supported by this library build"


def test_a_page_says_which_cases_the_result_cache_copied_and_from_which_run(tmp_path: Path) -> None:
    db, first = _study_000(tmp_path)
    again = _store_000(db)
    store = Store(db)
    suite, op = "TLS_RSA_WITH_AES_128_CBC_SHA", "rsa-kx/rsa2048-full/device=client"
    measured = store.case_id_of(first, f"mbedtls/tls/{suite}/{op}")
    store.db.execute("UPDATE cases SET reused_from=? WHERE run_id=? AND name=?",
                     (measured, again, f"mbedtls/tls/{suite}/{op}"))
    store.db.commit()
    store.close()
    assert cli.main(["study", "pages", "--db", str(db), "--studies", str(tmp_path / "studies"),
                     "--out", str(tmp_path / "out"), "--only", "000"]) == 0
    lines = (tmp_path / "out" / "000-handshake-by-suite.md").read_text().splitlines()
    assert f"  - run {again} of `{db}` (not committed; tlsbench v1); cases: 1 failed, 3 ok" in lines
    assert (f"  - reused: 1 of 4 cases' exact counts copied by the result cache from run {first} of the same database"
            " (the same image, emulator, cycle-model plugin, board profile, requests and protocol; `tlsbench run"
            " --no-cache` measures them again)") in lines
