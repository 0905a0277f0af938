"""scripts/regenerate-docs: every generated page of docs/data/pages.toml, rendered from the runs stored
for it. The stored run is the old-database fixture (a tiny real run made with Mbed TLS 3.6.6): no
measurement here."""

from __future__ import annotations

import json
import logging
import os
import re
import shlex
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tlsbench import paths, versions
from tlsbench.cli.main import main as cli_main
from tlsbench.errors import TlsbenchError
from tlsbench.plans.plan import presets
from tlsbench.studies import docpages
from tlsbench.targets import sources

GOLDEN = Path(__file__).parents[1] / "fixtures" / "old-db" / "docs-1.md"
COMMAND = ("run", "PLAN", "--target", "host")


def _manifest(tmp_path: Path, page: Path, extra: str = "") -> Path:
    path = tmp_path / "pages.toml"
    path.write_text(f'[[page]]\nfile = "{page}"\nkind = "docs"\nruns = [{json.dumps(list(COMMAND))}]\n{extra}')
    return path


def _remember(db: Path) -> None:
    """The state the driver keeps beside its database: the fixture's run 1 is the page's command."""
    uuid = sqlite3.connect(db).execute("SELECT uuid FROM runs WHERE id = 1").fetchone()[0]
    db.with_suffix(".runs.json").write_text(json.dumps({shlex.join(COMMAND): [{"uuid": uuid}]}))


def test_a_page_is_rendered_from_its_stored_run_with_that_runs_versions(old_db: Path, tmp_path: Path) -> None:
    page = tmp_path / "results-x.md"
    # the fixture's database gets its run identities (uuid) on first opening for writing, as any old database
    from tlsbench.engine.store import Store
    Store(old_db).close()
    _remember(old_db)
    assert cli_main(["study", "regenerate-docs", "--db", str(old_db), "--manifest", str(_manifest(tmp_path, page)),
                     "--render"]) == 0
    text = page.read_text()
    assert text == GOLDEN.read_text()  # the same page as `tlsbench docs 1`, byte for byte
    assert "- mbedtls: Mbed TLS 3.6.6 [Debian source package mbedtls 3.6.6-0.1~deb13u1 (trixie)" in text
    assert "Rendered by `tlsbench docs 1` from stored run 1" in text
    assert "- made by commit cd4b0dd044ae (tlsbench 0.1.0)" in text
    # host times: the machine and how steady it was (this old run stored no reference workload)
    assert ("- machine: Intel(R) Xeon(R) Processor, 2 cores, 24,105 MiB, Debian GNU/Linux 12 (bookworm), kernel"
            " 6.18.44-fc-v669\n- CPU features the libraries dispatch on: adx, aes, avx, avx2, avx512f, bmi2, pclmulqdq,"
            " sha_ni, vaes, vpclmulqdq\n- machine steadiness: not measured (no reference workload stored with this"
            " run's rounds)\n") in text


def test_rendering_only_refuses_a_page_whose_run_is_not_stored(old_db: Path, tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    page = tmp_path / "results-x.md"
    assert cli_main(["study", "regenerate-docs", "--db", str(old_db), "--manifest", str(_manifest(tmp_path, page)),
                     "--render"]) == 1
    assert capsys.readouterr().err == (f"regenerate-docs: error: {page}: no stored run of `tlsbench run PLAN --target"
                                       f" host` in {old_db} (scripts/regenerate-docs without --render makes it)\n"
                                       f"regenerate-docs: 1 page(s) not made: {page}\n")
    assert not page.exists()


def test_a_bad_manifest_entry_is_one_line_naming_it(tmp_path: Path) -> None:
    bad = _manifest(tmp_path, tmp_path / "p.md", 'colour = "red"\n')
    with pytest.raises(TlsbenchError) as e:
        docpages.load_manifest(bad)
    assert str(e.value) == (f"{bad}: page 1 ({tmp_path / 'p.md'}): unknown key 'colour'"
                            " (allowed: blocked, fidelity, file, fresh, kind, make, readme, render, runs, script)")


def test_the_shipped_manifest_names_existing_pages_presets_and_scripts() -> None:
    root = paths.root()
    pages = docpages.load_manifest(root / docpages.MANIFEST)
    assert {p.file for p in pages} >= {str(p.relative_to(root)) for p in (root / "docs").glob("results-*.md")}
    for page in pages:
        assert (root / page.file).exists(), page.file
        for argv in page.runs:
            if "--preset" in argv:
                assert argv[argv.index("--preset") + 1] in presets(), argv
        for argv in (page.script, page.make):
            if argv:
                assert os.access(root / argv[0], os.X_OK), argv


def test_the_script_runs_the_driver(tmp_path: Path) -> None:
    proc = subprocess.run([str(paths.root() / "scripts" / "regenerate-docs"), "--render", "--fresh"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.endswith("regenerate-docs: error: --render and --fresh exclude each other\n")


LIBS = ("mbedtls", "wolfssl")


def _default_versions() -> dict[str, str]:
    """The release each bare name builds today: its default version's pinned source (its record's pin)."""
    pins = sources.load_lock()
    return {lib: pins[versions.version_of(lib).lock].upstream for lib in LIBS}


def _older_pinned_versions() -> set[tuple[str, str]]:
    """The other pinned releases (the defaults before the switch, now by name: mbedtls@3.6, wolfssl@5.7)."""
    pins = sources.load_lock()
    pinned = {(v.library, pins[v.lock].upstream) for v in versions.all_versions()
              if v.library in LIBS and v.lock in pins}
    return pinned - set(_default_versions().items())


# a library named by its bare name (the default version) with the version a run recorded for it: a page's
# "- mbedtls: Mbed TLS 3.6.7 [...]", a size run's "- wolfssl: 5.9.2-1.2 [...]", a list's "mbedtls Mbed TLS 3.6.7"
BARE_NAME_VERSION = re.compile(r"(?<![@\w.-])(mbedtls|wolfssl)(?![@\w-])[:\s]+(?:Mbed TLS |wolfSSL )?(\d+\.\d+\.\d+)")


def _generated_files() -> list[Path]:
    root = paths.root()
    out = []
    for page in docpages.load_manifest(root / docpages.MANIFEST):
        path = root / page.file
        out += sorted(path.glob("*.md")) if path.is_dir() else [path]
    return out


def test_the_version_pattern_reads_each_kind_of_library_line() -> None:
    assert BARE_NAME_VERSION.findall("- mbedtls: Mbed TLS 3.6.7 [Debian source package mbedtls 3.6.7-3]") == [
        ("mbedtls", "3.6.7"), ("mbedtls", "3.6.7")]
    assert BARE_NAME_VERSION.findall("- libraries: mbedtls Mbed TLS 3.6.6, wolfssl 5.7.2, wolfssl@5.9 5.9.2") == [
        ("mbedtls", "3.6.6"), ("wolfssl", "5.7.2")]
    assert BARE_NAME_VERSION.findall("- wolfssl: 5.9.2-1.2 [...]; `mbedtls@3.6` 3.6.6, mbedtls-3.6.6") == [
        ("wolfssl", "5.9.2")]


def test_no_generated_page_names_an_older_default_version() -> None:
    """No page scripts/regenerate-docs makes names an older pinned release under a bare library name (as
    the default): a run made before the switch (a published source's version, as "wolfssl 5.6.4", is no pin)."""
    root = paths.root()
    older = _older_pinned_versions()
    assert older == {("mbedtls", "3.6.6"), ("wolfssl", "5.7.2")}
    blocked = {root / p.file for p in docpages.load_manifest(root / docpages.MANIFEST) if p.blocked}
    stale = sorted({f"{f.relative_to(root)}: {lib} {version}" for f in _generated_files() if f not in blocked
                    for lib, version in BARE_NAME_VERSION.findall(f.read_text()) if (lib, version) in older})
    pages = sorted({line.split(":")[0] for line in stale})
    assert stale == [], f"make them again: scripts/regenerate-docs {' '.join(pages)}"


def test_a_page_that_cannot_be_made_again_says_why_under_its_title() -> None:
    root = paths.root()
    for page in docpages.load_manifest(root / docpages.MANIFEST):
        if page.blocked:
            lines = (root / page.file).read_text().split("\n")
            assert lines[2] == (f"{docpages.BLOCKED}{page.blocked}. Every figure below is the stored run's, with"
                                " the versions it names."), page.file


def test_the_blocked_note_replaces_itself() -> None:
    once = docpages.mark_blocked("# Title\n\nbody\n", "no build")
    assert once == ("# Title\n\n**Not made again with today's defaults**: no build. Every figure below is the"
                    " stored run's, with the versions it names.\n\nbody\n")
    assert docpages.mark_blocked(once, "no build") == once
    assert docpages.mark_blocked(once, "other").count("**Not made again") == 1


def test_the_readme_names_the_default_versions() -> None:
    defaults = _default_versions()
    intro = (paths.root() / "README.md").read_text().split("\n## ", 1)[0]
    assert f"**Mbed TLS {defaults['mbedtls']}**" in intro
    assert f"**wolfSSL {defaults['wolfssl'].rsplit('.', 1)[0]}**" in intro


def test_the_readme_figure_line_is_the_stored_runs_own(old_db: Path) -> None:
    from tlsbench.report import tables

    line = docpages.wall_time_line(tables.load_stored(str(old_db), 1), "docs/results-host.md")
    assert line == "1 s on Intel(R) Xeon(R) Processor with 2 cores, 2026-11-24: run 1 of docs/results-host.md"
    assert docpages.wall_time_line(tables.load_stored(str(old_db), 1), "docs/results-host.md", (0.26, 3.5)) == (
        "1 s on Intel(R) Xeon(R) Processor with 2 cores, 1-minute load average 0.3 before and 3.5 after, 2026-11-24:"
        " run 1 of docs/results-host.md")
    text = "runs it (it took <!-- default-run -->an old figure<!-- /default-run -->, on ...)"
    assert docpages.fill_readme(text, "default-run", line) == (
        f"runs it (it took <!-- default-run -->{line}<!-- /default-run -->, on ...)")
    with pytest.raises(TlsbenchError) as e:
        docpages.fill_readme("no marks", "default-run", line)
    assert str(e.value) == ("README.md: needs one <!-- default-run --> ... <!-- /default-run --> around the figure"
                            " line (pages.toml: readme = 'default-run')")


def test_the_readme_has_the_marks_of_every_figure_line_the_manifest_fills() -> None:
    readme = (paths.root() / "README.md").read_text()
    names = [p.readme for p in docpages.load_manifest(paths.root() / docpages.MANIFEST) if p.readme]
    assert names == ["default-run"]
    for name in names:
        assert readme.count(f"<!-- {name} -->") == 1 and readme.count(f"<!-- /{name} -->") == 1


def test_results_boards_missing_runs_only_the_profiles_with_no_stored_run(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from tlsbench.studies import boardresults
    from tlsbench.targets import boardprofiles

    names = boardprofiles.names()
    stored = [boardresults.BoardRun(boardprofiles.load(n), "qemu:mps2-an386", None if n == names[0] else 7)
              for n in names]
    asked: list[frozenset[str]] = []
    monkeypatch.setattr(boardresults, "stored_runs", lambda db: stored)
    monkeypatch.setattr(boardresults, "run_all", lambda db, tlsbench, only: asked.append(only) or stored)
    monkeypatch.setattr(boardresults, "render", lambda runs, db: f"{len(runs)} rows\n")
    out = tmp_path / "boards.md"
    args = ["study", "results-boards", "--db", str(tmp_path / "b.sqlite"), "--out", str(out), "--missing"]
    assert cli_main(args) == 0
    assert asked == [frozenset({names[0]})] and out.read_text() == f"{len(names)} rows\n"
    stored[0] = boardresults.BoardRun(boardprofiles.load(names[0]), "qemu:mps2-an386", 8)
    assert cli_main(args) == 0
    assert asked == [frozenset({names[0]})]  # every profile stored: nothing run again


def test_the_pq_page_states_the_steadiness_of_a_host_run(old_db: Path) -> None:
    from tlsbench.report import tables
    from tlsbench.studies import resultspq

    doc = resultspq.render([tables.load_stored(str(old_db), 1)], "0.5 0.6 2")
    assert ("- tlsbench 0.1.0+cd4b0dd044ae; machine: Intel(R) Xeon(R) Processor, 2 cores\n- machine steadiness: not"
            " measured (no reference workload stored with this run's rounds)\n") in doc


FAKE_TLSBENCH = '''
import sys
from tlsbench.engine.store import Store
# "tlsbench --db DB run ...": stores a copy of the fixture's run 1 as the run it made (no measurement)
db = sys.argv[sys.argv.index("--db") + 1]
source, target = Store(sys.argv[1], read_only=True), Store(db)
if target.put_run_rows(source.run_rows(1)) is None:
    sys.exit("that run is stored already")
'''


@pytest.mark.timeout(120)
def test_a_missing_run_is_made_once_then_found_by_its_command(old_db: Path, tmp_path: Path,
                                                              caplog: pytest.LogCaptureFixture) -> None:
    """The driver makes a page's missing run with the page's command (a stand-in for tlsbench copies the
    fixture's run), records it, renders the page from it, and a second call renders without running."""
    from tlsbench.engine.store import Store
    Store(old_db).close()  # the fixture's run gets its identity (uuid), as any old database on first writing
    fake = tmp_path / "fake_tlsbench.py"
    fake.write_text(FAKE_TLSBENCH)
    db, page = tmp_path / "pages.sqlite", tmp_path / "results-x.md"
    manifest = tmp_path / "pages.toml"
    manifest.write_text(f'[[page]]\nfile = "{page}"\nkind = "docs"\n'
                        'runs = [["run", "--preset", "fixture", "--target", "host"]]\n')
    caplog.set_level(logging.INFO, logger="tlsbench")
    for _ in range(2):  # the second call finds the stored run (the stand-in refuses to store it twice)
        driver = docpages.Driver(db, make_runs=True, fresh=False,
                                 tlsbench=[sys.executable, str(fake), str(old_db)])
        entry = docpages.load_manifest(manifest)[0]
        driver.make_runs_of(entry)
        driver.page(entry)
        assert page.read_text() == GOLDEN.read_text()  # the copy is run 1 of the new database too
    logs = caplog.messages
    assert logs == [f"regenerate-docs: tlsbench --db {db} run --preset fixture --target host",
                    f"regenerate-docs: wrote {page} (run 1)", f"regenerate-docs: wrote {page} (run 1)"]
    made = json.loads(db.with_suffix(".runs.json").read_text())["run --preset fixture --target host"]
    assert len(made) == 1 and set(made[0]) == {"uuid", "load1_before", "load1_after"}
