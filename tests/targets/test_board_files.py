"""The user's own board profile (`--board ./my-board.toml`, `tlsbench board new`):
checked like a shipped one, sanity bounds on its figures, stored with the run
and shown in its report. No emulator here (tests/targets/test_cyclemodel.py runs one)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tlsbench.cli import main
from tlsbench.engine.store import Store
from tlsbench.errors import PlanError
from tlsbench.families.minram import fits as fits_view
from tlsbench.links import view as link_view
from tlsbench.report import html as html_report
from tlsbench.report import tables as report
from tlsbench.targets import boardprofiles, boardtemplate, cyclemodel

F446 = (boardprofiles.BOARDS_DIR / "nucleo-f446re.toml").read_text()


def refusal(tmp_path: Path, old: str, new: str) -> str:
    path = tmp_path / "my-board.toml"
    path.write_text(F446.replace(old, new))
    with pytest.raises(PlanError) as e:
        boardprofiles.resolve(str(path))
    return str(e.value).replace(str(tmp_path), "DIR")


def line(text: str, start: str) -> int:
    return next(i for i, raw in enumerate(text.splitlines(), 1) if raw.startswith(start))


@pytest.mark.parametrize(("old", "new", "message"), [
    ("clock_hz = 180_000_000", "clock_hz = 9223372036854775807",
     "clock_hz: must be 32,768..1,000,000,000 (32.768 kHz to 1 GHz), got 9223372036854775807"),
    ("clock_hz = 180_000_000", "clock_hz = 1_000", "clock_hz: must be 32,768..1,000,000,000 (32.768 kHz to 1 GHz),"
     " got 1000"),
    ("ram_bytes = 131_072", "ram_bytes = 100", "ram_bytes: must be 1,024..268,435,456 (1 KiB to 256 MiB), got 100"),
    ("flash_bytes = 524_288", "flash_bytes = 1_099_511_627_776",
     "flash_bytes: must be 1,024..268,435,456 (1 KiB to 256 MiB), got 1099511627776"),
    ("flash_wait_states = 5", "flash_wait_states = 16", "flash_wait_states: must be 0..15, got 16"),
    ("art_icache_lines = 64", "art_icache_lines = 1024", "art_icache_lines: must be 1..256, got 1024"),
])
def test_a_figure_out_of_its_range_names_the_file_line_and_range(tmp_path: Path, old: str, new: str,
                                                                 message: str) -> None:
    key = new.split(" =")[0]
    assert refusal(tmp_path, old, new) == f"DIR/my-board.toml:{line(F446, key)}: {message}"


def test_currents_out_of_range_are_refused(tmp_path: Path) -> None:
    extra = "ram_bytes = 131_072\nrun_current_ma = 5000.0\nsupply_v = 3.3\n"
    text = F446.replace("ram_bytes = 131_072\n", extra) + 'run_current_ma = "user"\nsupply_v = "user"\n'
    path = tmp_path / "my-board.toml"
    path.write_text(text)
    with pytest.raises(PlanError) as e:
        boardprofiles.resolve(str(path))
    assert str(e.value) == (f"{path}:{line(text, 'run_current_ma')}: run_current_ma: must be 0.001..1,000"
                            " (1 uA to 1 A), got 5000.0")
    path.write_text(text.replace("run_current_ma = 5000.0", "run_current_ma = 20.0").replace("supply_v = 3.3",
                                                                                            "supply_v = 12.0"))
    with pytest.raises(PlanError, match=r"my-board.toml:\d+: supply_v: must be 0.5..5.5 \(0.5 V to 5.5 V\), got 12.0$"):
        boardprofiles.resolve(str(path))


def test_a_figure_needs_a_document_or_the_user_as_its_source(tmp_path: Path) -> None:
    assert refusal(tmp_path, 'clock_hz = "DS10693: 180 MHz maximum CPU frequency"\n', "") == (
        f"DIR/my-board.toml:{line(F446, 'clock_hz')}: clock_hz: has no source: add it to [sources]")
    source_line = line(F446, 'clock_hz = "DS')
    assert refusal(tmp_path, 'clock_hz = "DS10693: 180 MHz maximum CPU frequency"', 'clock_hz = ""') == (
        f"DIR/my-board.toml:{source_line}: clock_hz: must be a non-empty string naming the document"
        ' (and table) the figure comes from, or "user" for a figure you give yourself')
    path = tmp_path / "mine.toml"
    path.write_text(F446.replace('clock_hz = "DS10693: 180 MHz maximum CPU frequency"', 'clock_hz = "user"')
                    .replace("clock_hz = 180_000_000", "clock_hz = 100_000_000"))
    mine = boardprofiles.resolve(str(path))
    assert (mine.name, mine.clock_hz, mine.user_figures, mine.shipped) == ("mine", 100_000_000, ["clock_hz"], False)
    assert (mine.ref, mine.origin) == (str(path), str(path.resolve()))


def test_shipped_profiles_cite_documents_never_the_user() -> None:
    for name in boardprofiles.names():
        profile = boardprofiles.resolve(name)
        assert profile.shipped and profile.ref == name and profile.user_figures == [], name


def test_a_missing_file_and_an_unknown_name_are_one_line(tmp_path: Path) -> None:
    with pytest.raises(PlanError) as e:
        boardprofiles.resolve(str(tmp_path / "nope.toml"))
    assert str(e.value) == f"{tmp_path}/nope.toml: cannot read: No such file or directory"
    with pytest.raises(PlanError, match=r"; known: esp32-c3-class, .*, or the path of your own .toml file$"):
        boardprofiles.resolve("my-board")


def filled(text: str) -> str:
    """What a user does with the starting point: their clock, its wait states, their own description."""
    return (text.replace("clock_hz = 180_000_000", "clock_hz = 100_000_000")
            .replace("flash_wait_states = 5", "flash_wait_states = 3")
            .replace('description = "your board, started from', 'description = "my product board, from'))


def test_board_new_writes_a_commented_valid_start_and_never_overwrites(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "my-board.toml"
    assert main(["board", "new", "--from", "nucleo-f446re", "-o", str(out)]) == 0
    text = out.read_text()
    # every field is introduced by a comment saying what it is and where to find it
    lines = text.splitlines()
    for i, raw in enumerate(lines):
        if "=" in raw and not raw.startswith("#"):
            assert lines[i - 1].startswith("# "), raw
    start = boardprofiles.parse(out)
    assert start.user_figures == ["clock_hz", "flash_wait_states", "prefetch", "art", "icache", "dcache"]
    assert start.sources["ram_bytes"] == boardprofiles.load("nucleo-f446re").sources["ram_bytes"]
    out.write_text(filled(text))
    mine = boardprofiles.parse(out)
    assert (mine.clock_hz, mine.flash_wait_states, mine.core) == (100_000_000, 3, "cortex-m4")
    assert mine.description.startswith("my product board")
    capsys.readouterr()
    assert main(["board", "new", "--from", "nucleo-f446re", "-o", str(out)]) == 2
    assert capsys.readouterr().err == (f"tlsbench: error: {out}: exists; give another -o path (board new never"
                                       " overwrites a file)\n")
    assert mine.text == out.read_text()  # untouched


def test_board_new_from_every_shipped_profile_loads() -> None:
    for name in boardprofiles.names():
        base = boardprofiles.load(name)
        start = boardprofiles.parse(Path("x.toml"), boardtemplate.starting_point(base, "x.toml"))
        assert (start.core, start.clock_hz, start.ram_bytes) == (base.core, base.clock_hz, base.ram_bytes), name


def test_board_show_checks_and_lists_every_figure_with_its_source(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture) -> None:
    assert main(["board", "show", "nucleo-f103rb"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "nucleo-f103rb: cortex-m3 at 72 MHz, 2 flash wait states, prefetch"
    assert out[-1] == "  model energy per cycle: 1.2375 nJ"
    bad = tmp_path / "b.toml"
    bad.write_text(F446.replace("clock_hz = 180_000_000", "clock_hz = 9223372036854775807"))
    assert main(["board", "show", str(bad)]) == 2
    assert capsys.readouterr().err == (f"tlsbench: error: {bad}:{line(F446, 'clock_hz')}: clock_hz: must be"
                                       " 32,768..1,000,000,000 (32.768 kHz to 1 GHz), got 9223372036854775807\n")


def test_a_run_refuses_an_edited_profile_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(F446)
    profile = boardprofiles.resolve(str(path))
    env = cyclemodel.run_env(profile)
    assert env == {cyclemodel.MODEL_ENV: str(path.resolve()), cyclemodel.MODEL_SHA_ENV: profile.sha256}
    assert cyclemodel.run_env(boardprofiles.load("nucleo-f446re")) == {cyclemodel.MODEL_ENV: "nucleo-f446re"}
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    assert cyclemodel.active_profile() == profile
    path.write_text(F446.replace("flash_wait_states = 5", "flash_wait_states = 4"))
    with pytest.raises(PlanError) as e:
        cyclemodel.active_profile()
    now = boardprofiles.resolve(str(path)).sha256
    assert str(e.value) == (f"{path.resolve()}: the board profile changed since this run started (sha256"
                            f" {profile.sha256[:12]}... then, {now[:12]}... now); restore it, or start a new run")


def stored_run(tmp_path: Path, profile: boardprofiles.Profile) -> report.RunData:
    store = Store(tmp_path / "r.sqlite")
    plan = {"method": {"env": cyclemodel.run_env(profile), "repeats": 1, "warmup": 0, "outliers": "none"}}
    run_id = store.create_run(target="qemu:mps2-an386", plan_name="p", plan_source="", plan=plan,
                              machine={"board": "mps2-an386"}, version="t", keys={})
    store.put_board_profile(run_id, profile.name, profile.origin, profile.text, profile.sha256)
    data = report.load(store, run_id)
    store.close()
    return data


def test_the_stored_profile_is_the_reports_board_after_the_file_changed(tmp_path: Path) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(F446.replace('clock_hz = "DS10693: 180 MHz maximum CPU frequency"', 'clock_hz = "user"'))
    profile = boardprofiles.resolve(str(path))
    data = stored_run(tmp_path, profile)
    path.write_text(F446.replace("clock_hz = 180_000_000", "clock_hz = 48_000_000"))  # edited after the run
    assert data.board_profile == {"name": "mine", "origin": str(path.resolve()), "text": profile.text,
                                  "sha256": profile.sha256}
    assert report.board_profile_line(data) == (
        f"mine: cortex-m4 at 180 MHz, 5 flash wait states, prefetch, ART (file {path.resolve()}, sha256"
        f' {profile.sha256[:16]}; source "user": clock_hz)')
    context = report.context_lines(data, md=False)
    assert f"  board profile of the cycle model: {report.board_profile_line(data)}" in context
    assert "<dt>board profile</dt><dd>mine: cortex-m4 at 180 MHz, 5 flash wait states" in html_report.context(data)
    # link and energy use the run's own board as stored; another file is refused
    assert link_view.board_for(data, None).clock_hz == 180_000_000
    with pytest.raises(PlanError, match=r"^run 1 was modelled on board mine; --board .*mine.toml would pair"):
        link_view.board_for(data, str(path))


def test_fits_takes_the_users_board(tmp_path: Path) -> None:
    path = tmp_path / "tiny.toml"
    path.write_text(F446.replace("ram_bytes = 131_072", "ram_bytes = 40_960"))
    view = fits_view.fits([], [], [boardprofiles.resolve(str(path)), boardprofiles.load("nucleo-f446re")])
    assert view.boards == [("tiny", 40_960), ("nucleo-f446re", 131_072)]


def test_a_run_stored_before_profiles_were_names_its_board_as_read_now(tmp_path: Path) -> None:
    store = Store(tmp_path / "r.sqlite")
    plan = {"method": {"env": {cyclemodel.MODEL_ENV: "nucleo-f103rb"}, "repeats": 1, "warmup": 0, "outliers": "none"}}
    run_id = store.create_run(target="qemu:mps2-an385", plan_name="p", plan_source="", plan=plan,
                              machine={"board": "mps2-an385"}, version="t", keys={})
    data = report.load(store, run_id)
    store.close()
    f103 = boardprofiles.load("nucleo-f103rb")
    assert data.board_profile is None
    assert report.board_profile_line(data) == (f"nucleo-f103rb: cortex-m3 at 72 MHz, 2 flash wait states, prefetch"
                                               f" (shipped, sha256 {f103.sha256[:16]}); read now, not stored with"
                                               " this run")


def test_a_resume_refuses_a_profile_file_edited_since_the_start(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(F446)
    profile = boardprofiles.resolve(str(path))
    db = tmp_path / "r.sqlite"
    store = Store(db)
    plan = {"method": {"env": cyclemodel.run_env(profile)}}
    run_id = store.create_run(target="qemu:mps2-an386", plan_name="p", plan_source="", plan=plan,
                              machine={"board": "mps2-an386"}, version="t", keys={})
    store.close()
    path.write_text(F446.replace("clock_hz = 180_000_000", "clock_hz = 168_000_000"))
    capsys.readouterr()
    assert main(["--db", str(db), "run", "--resume", str(run_id)]) != 0
    now = boardprofiles.resolve(str(path)).sha256
    assert capsys.readouterr().err == (f"tlsbench: error: {path.resolve()}: the board profile changed since this run"
                                       f" started (sha256 {profile.sha256[:12]}... then, {now[:12]}... now); restore"
                                       " it, or start a new run\n")
