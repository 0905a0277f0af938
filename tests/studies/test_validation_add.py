"""tlsbench validate add (src/tlsbench/studies/validation_add.py): a board owner's figure as a
validation row, checked by scripts/validate-model's own loader, with the model's figure beside it.

Every board figure here is a TEST FIXTURE, made up for these tests: no board measured it.
The model's figure comes from a stored run made here (as test_validation.py's table test does), so
the arithmetic and the printed line are exact; scripts/validate-model runs the real model."""

from __future__ import annotations

from pathlib import Path

import pytest

from tlsbench.cli import main
from tlsbench.engine.case import Result
from tlsbench.engine.store import Store
from tlsbench.studies import validation, validation_add

# TEST FIXTURE: a made-up wolfCrypt benchmark line (no board printed it)
QUOTE = "CURVE  25519    agree        32 ops took 1.000 sec, avg 30.000 ms, 33.333 ops/sec"
FLAGS = ["--board-profile", "stm32l4a6zg", "--board", "TEST FIXTURE (made up): NUCLEO-L4A6ZG",
         "--library", "wolfssl@5.7", "--published-version", "5.7.2", "--profile", "small-stack",
         "--case", "x25519/derive", "--quote", QUOTE, "--build", "TEST FIXTURE: GCC -Os, small-stack",
         "--source", "TEST FIXTURE: made up for tests/studies/test_validation_add.py", "--match", "same"]
ENTRY = f'''[[figure]]
id = "stm32l4a6zg-x25519-derive"
source = "TEST FIXTURE: made up for tests/studies/test_validation_add.py"
url = "not published: the board owner's own measurement"
library = "wolfssl"
published_version = "5.7.2"
board = "TEST FIXTURE (made up): NUCLEO-L4A6ZG"
clock_hz = 80000000
build = "TEST FIXTURE: GCC -Os, small-stack"
quote = "{QUOTE}"
unit = "ms"
value = 30.0
algorithm = "x25519"
op = "derive"
profile = "small-stack"
library_run = "wolfssl@5.7"
board_profile = "stm32l4a6zg"
target = "qemu:mps2-an386"
match = "same"
note = "added with tlsbench validate add"
'''


def add(tmp_path: Path, *extra: str, flags: list[str] = FLAGS) -> int:
    return main(["--db", str(tmp_path / "v.sqlite"), "validate", "add", "--figures", str(tmp_path / "mine.toml"),
                 *flags, *extra])


def test_the_entry_is_written_checked_and_loads_as_a_row(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert add(tmp_path, "--no-model") == 0
    out = capsys.readouterr().out
    assert out.startswith(ENTRY)
    path = tmp_path / "mine.toml"
    assert out.endswith(f"appended stm32l4a6zg-x25519-derive to {path}; judge the file: scripts/validate-model"
                        f" --figures {path}\n")
    assert path.read_text() == validation_add.HEADER + "\n" + ENTRY
    (row,) = validation.load(path)
    # 30.000 ms at the profile's 80 MHz; the same run group as the shipped X25519 row
    assert row.published_cycles() == pytest.approx(2_400_000)
    shipped = next(f for f in validation.load(validation.DATA) if f.id == "l4a6z-asm-x25519")
    assert row.group() == shipped.group()
    # a second row goes after the first; the same id again is refused, the file untouched
    assert add(tmp_path, "--no-model", "--id", "second") == 0
    assert [f.id for f in validation.load(path)] == ["stm32l4a6zg-x25519-derive", "second"]
    before = path.read_text()
    assert add(tmp_path, "--no-model") == 2
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        f"tlsbench: error: {path}: a row 'stm32l4a6zg-x25519-derive' is there already: give this one another --id")
    assert path.read_text() == before


def test_a_throughput_is_read_from_the_quote_and_needs_the_models_size(tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture) -> None:
    # TEST FIXTURE: a made-up wolfCrypt SHA-256 line
    quote = "SHA-256            1 MiB took 1.000 seconds,  800.000 KiB/s"
    flags = [*FLAGS[:FLAGS.index("--case")], "--case", "sha256/hash", "--quote", quote, *FLAGS[FLAGS.index("--build"):]]
    assert add(tmp_path, "--no-model", flags=flags) == 2
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        "tlsbench: error: a throughput (KiB/s) needs the model's message size: --size BYTES, or --model-sizes A,B"
        " (per byte from the difference: a streamed benchmark's), not both")
    assert add(tmp_path, "--no-model", "--model-sizes", "1024,2048", flags=flags) == 0
    (row,) = validation.load(tmp_path / "mine.toml")
    assert (row.row["value"], row.row["unit"], row.sizes) == (800.0, "KiB/s", (1024, 2048))
    assert row.published_cycles() == pytest.approx(80e6 / (800 * 1024))


@pytest.mark.parametrize(("extra", "message"), [
    (["--case", "x25519/sign"], "--case x25519/sign: x25519 has no operation 'sign'; allowed: public, keygen,"
                                " derive, exchange"),
    (["--case", "x25518/derive"], "--case x25518/derive: unknown algorithm 'x25518'; allowed: md5, sha1,"),
    (["--value", "31.5", "--unit", "ms"], "--value 31.5 is not in --quote: copy the figure as the line prints it"),
    (["--value", "30"], "--value and --unit go together (or neither: both are read from --quote)"),
    (["--quote", "X25519 done"], "--quote: no figure read from the line (wolfCrypt's 'avg N ms', 'N KiB/s' or"
                                 " 'N ops/sec'): give --value and --unit"),
    (["--library", "wolfssl@9"], "--library: unknown version 'wolfssl@9'; wolfssl versions: wolfssl@5.7,"
                                 " wolfssl@5.9 (default)"),
    (["--board-profile", "stm32l4a6"], "unknown board profile 'stm32l4a6' (did you mean stm32l4a6zg"),
])
def test_a_wrong_flag_is_one_line_naming_what_is_allowed(tmp_path: Path, capsys: pytest.CaptureFixture,
                                                         extra: list[str], message: str) -> None:
    assert add(tmp_path, "--no-model", *extra) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"tlsbench: error: {message}")
    assert not (tmp_path / "mine.toml").exists()


def test_a_missing_flag_and_a_bad_existing_file_are_named(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit):
        add(tmp_path, "--no-model", flags=[f for f in FLAGS if f not in ("--match", "same")])
    assert capsys.readouterr().err.strip().splitlines()[-1].endswith(
        "error: the following arguments are required: --match")
    path = tmp_path / "mine.toml"
    path.write_text(validation_add.HEADER + "\n" + ENTRY.replace('unit = "ms"', 'unit = "sec"').replace(
        '"stm32l4a6zg-x25519-derive"', '"old"'))
    assert add(tmp_path, "--no-model") == 2
    line = 3 + ENTRY.splitlines().index('id = "stm32l4a6zg-x25519-derive"') + 1
    assert capsys.readouterr().err.strip() == (f"tlsbench: error: {path}:{line}: unit 'sec'; allowed: B/s, KiB/s,"
                                               " MiB/s, kB/s, MB/s, ms, us, cycles, ops/s")


def test_the_models_figure_and_its_error_are_printed_from_the_stored_run(
        tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "v.sqlite"
    store = Store(db)
    run = store.create_run(target="qemu:mps2-an386", plan_name="p", plan_source="", plan={"method": {}},
                           machine={}, version="t", keys={})
    cycles = 3_000_000.0  # TEST FIXTURE: a stored model figure, so the error is exact: +25.0% of 2,400,000
    store.put_case(run, name="c", library="wolfssl@5.7", kind="kex", alg="x25519", op="derive", size=None,
                   params={}, status="ok", reason="", iters=1, started=0, transcript="",
                   results=[Result.of("model_cycles", "model cycles", 1, 0, cycles, cycles, None, cycles, cycles,
                                      None, None)])
    store.close()
    groups: list[tuple] = []

    def stored(figures, db_arg):  # the run validate-model would make, made above
        groups.extend(f.group() for f in figures)
        return {figures[0].group(): run}
    monkeypatch.setattr(validation, "run_groups", stored)
    assert add(tmp_path) == 0
    out = capsys.readouterr().out.splitlines()
    assert groups == [("qemu:mps2-an386", "wolfssl=small-stack", "stm32l4a6zg", "wolfssl@5.7", "Os")]
    assert out[-2] == f"board: 2,400,000 cycles; model: 3,000,000 cycles (run {run} of {db}); error: +25.0% (same code)"
    # no model figure (the case did not run): nothing is appended
    assert add(tmp_path, "--id", "other", "--case", "x25519/keygen") == 2
    assert capsys.readouterr().err.strip() == ("tlsbench: error: the model gave no figure for x25519 keygen with"
                                               " wolfssl@5.7 small-stack: nothing appended")
    assert [f.id for f in validation.load(tmp_path / "mine.toml")] == ["stm32l4a6zg-x25519-derive"]


def test_the_default_targets_are_the_shipped_rows(tmp_path: Path) -> None:
    from tlsbench.targets import boardprofiles
    used = {boardprofiles.load(str(f.row["board_profile"])).core: f.row["target"]
            for f in validation.load(validation.DATA)}
    assert used == validation_add.TARGETS


def serial_run(db: Path, cycles: float) -> int:
    """TEST FIXTURE: a stored run as a serial: target stores a board's cycle counter (made up, no board ran it)."""
    store = Store(db)
    run = store.create_run(target="serial:/dev/ttyACM0", plan_name="p", plan_source="", plan={"method": {}},
                           machine={}, version="t", keys={})
    store.put_case(run, name="wolfssl@5.7/kex/x25519/derive", library="wolfssl@5.7", kind="kex", alg="x25519",
                   op="derive", size=None, params={}, status="ok", reason="", iters=5, started=0, transcript="",
                   results=[Result.of("cycles", "cycles/op", 5, 0, cycles, cycles, None, cycles, cycles, None, None)])
    store.close()
    return run


def test_a_stored_board_run_gives_the_figure_in_cycles(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    run = serial_run(tmp_path / "v.sqlite", 2_450_000.0)
    flags = [f for i, f in enumerate(FLAGS) if f != "--quote" and (i == 0 or FLAGS[i - 1] != "--quote")]
    assert add(tmp_path, "--no-model", "--from-run", str(run), flags=flags) == 0
    (row,) = validation.load(tmp_path / "mine.toml")
    assert (row.row["value"], row.row["unit"]) == (2_450_000.0, "cycles")
    assert row.row["quote"] == (f"tlsbench run {run} on serial:/dev/ttyACM0: wolfssl@5.7/kex/x25519/derive,"
                                " cycles median 2450000.0 (n=5)")
    assert row.published_cycles() == 2_450_000.0
    # a case the run did not measure, a quote beside the run, neither: one line each, nothing appended
    assert add(tmp_path, "--no-model", "--from-run", str(run), "--id", "k", "--case", "x25519/keygen",
               flags=flags) == 2
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        f"tlsbench: error: --from-run {run}: no measured cycles of wolfssl@5.7 x25519 keygen in it (a serial: or"
        f" labgrid: run of that case stores them; run {run} ran on serial:/dev/ttyACM0)")
    assert add(tmp_path, "--no-model", "--from-run", str(run), "--id", "q", "--quote", QUOTE, flags=flags) == 2
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        "tlsbench: error: --from-run reads the figure from the stored run: no --quote, --value or --unit with it")
    assert add(tmp_path, "--no-model", "--id", "n", flags=flags) == 2
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        "tlsbench: error: --quote LINE (the benchmark's own output line) or --from-run RUN (a stored board run)")
    assert [f.id for f in validation.load(tmp_path / "mine.toml")] == ["stm32l4a6zg-x25519-derive"]


def test_sizes_only_where_the_case_has_a_message(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert add(tmp_path, "--no-model", "--size", "1024") == 2
    assert capsys.readouterr().err.strip() == ("tlsbench: error: --size/--model-sizes: x25519 derive has no message"
                                               " size (one figure per operation)")
    # TEST FIXTURE: a made-up time of one 1024-byte AES-GCM encryption
    flags = [*FLAGS[:FLAGS.index("--case")], "--case", "aes-128-gcm/encrypt", "--quote", "avg 3.000 ms",
             *FLAGS[FLAGS.index("--build"):]]
    assert add(tmp_path, "--no-model", flags=flags) == 2
    assert capsys.readouterr().err.strip() == (
        "tlsbench: error: aes-128-gcm encrypt is measured per message size: give the throughput the benchmark"
        " prints (e.g. KiB/s) with --size or --model-sizes, or its cycles with --from-run and --size")


def test_validate_model_judges_a_figures_file_without_writing_the_doc_or_the_bands(
        tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    assert add(tmp_path, "--no-model") == 0
    capsys.readouterr()
    db = tmp_path / "v.sqlite"
    store = Store(db)
    run = store.create_run(target="qemu:mps2-an386", plan_name="p", plan_source="", plan={"method": {}},
                           machine={}, version="t", keys={})
    cycles = 3_000_000.0  # TEST FIXTURE: a stored model figure
    store.put_case(run, name="c", library="wolfssl@5.7", kind="kex", alg="x25519", op="derive", size=None,
                   params={}, status="ok", reason="", iters=1, started=0, transcript="",
                   results=[Result.of("model_cycles", "model cycles", 1, 0, cycles, cycles, None, cycles, cycles,
                                      None, None)])
    store.close()
    monkeypatch.setattr(validation, "run_groups", lambda figures, db_arg: {figures[0].group(): run})
    monkeypatch.setattr(validation, "write_doc", lambda *a: pytest.fail("the document was written"))
    monkeypatch.setattr(validation.modelerror, "write", lambda *a: pytest.fail("the error bands were written"))
    assert main(["study", "validate-model", "--db", str(db), "--figures", str(tmp_path / "mine.toml")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert ("| stm32l4a6zg-x25519-derive | cortex-m4, stm32l4a6zg at 80 MHz (qemu:mps2-an386) | wolfssl@5.7"
            " small-stack (source: wolfssl 5.7.2) | x25519 derive | 30.0 ms | 2,400,000 | 3,000,000 | +25% | same"
            f" | {run} |") in lines
    assert "| same code, cortex-m4 | 1 | 25% | 25% (stm32l4a6zg-x25519-derive) |" in lines


def test_operations_per_second_as_mbed_tls_prints_them(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    # TEST FIXTURE: a made-up line in the form of Mbed TLS's benchmark program
    flags = [*FLAGS[:FLAGS.index("--library")], "--library", "mbedtls", "--published-version", "3.6.7",
             "--case", "ecdsa-p256-sha256/sign", "--quote", "  ECDSA-secp256r1          :      25 sign/s",
             *FLAGS[FLAGS.index("--build"):]]
    assert add(tmp_path, "--no-model", flags=flags) == 2
    assert capsys.readouterr().err.strip().endswith("give --value and --unit")
    assert add(tmp_path, "--no-model", "--value", "25", "--unit", "ops/s", flags=flags) == 0
    (row,) = validation.load(tmp_path / "mine.toml")
    assert (row.row["unit"], row.row["profile"], "library_run" in row.row) == ("ops/s", "default", False)
    assert row.published_cycles() == 80e6 / 25
    # wolfCrypt's own "ops/sec" is read when no average is printed
    assert validation_add.figure_in("ECDSA   256 sign   20 ops took 1.000 sec, 20.000 ops/sec") == (20.0, "ops/s")
    assert validation_add.figure_in(QUOTE) == (30.0, "ms")


def test_a_board_owners_own_profile_is_named_by_its_absolute_path(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    mine = tmp_path / "my-l4.toml"
    assert main(["board", "new", "--from", "stm32l4a6zg", "-o", str(mine)]) == 0
    flags = [*FLAGS[:1], "my-l4.toml", *FLAGS[2:]]
    monkeypatch.chdir(tmp_path)  # the profile named relative to where the owner runs the command
    assert add(tmp_path, "--no-model", flags=flags) == 0
    (row,) = validation.load(tmp_path / "mine.toml")
    assert row.row["board_profile"] == str(mine.resolve())
    assert row.id == "my-l4-x25519-derive"
