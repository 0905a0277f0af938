"""Every generated page under docs/ made again by one command (tlsbench study regenerate-docs, which
scripts/regenerate-docs runs): docs/data/pages.toml names each page, the runs it is rendered from (each a
tlsbench command line) and its generator. A run is made once into the pages' database and found again by its
command, so a second call only renders; --render makes no run at all, --fresh makes every run again (after a
default library version changed)."""

from __future__ import annotations

import argparse
import datetime
import json
import logging
import os
import shlex
import subprocess
import sys
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tlsbench import paths
from tlsbench.engine.store import Store
from tlsbench.errors import TlsbenchError
from tlsbench.outfile import write_whole
from tlsbench.report import resultsdoc, tables
from tlsbench.targets import target as targets

logger = logging.getLogger(__name__)

MANIFEST = Path("docs/data/pages.toml")
KINDS = ("docs", "script", "self")
FIDELITY_ROUNDS = 3  # on a shared machine one check can miss by noise alone


class ManifestError(TlsbenchError):
    """A page entry of the manifest that cannot be used."""


@dataclass(frozen=True)
class Page:
    file: str
    kind: str
    runs: tuple[tuple[str, ...], ...] = ()
    script: tuple[str, ...] = ()
    make: tuple[str, ...] = ()
    render: tuple[str, ...] = ()
    fresh: tuple[str, ...] = ()
    fidelity: bool = False
    readme: str = ""  # the README's figure line this page's (first) run fills, between <!-- NAME --> marks
    blocked: str = ""  # why the page cannot be made again today: it keeps its runs, and says so at its top


@dataclass
class Made:
    """The runs the driver made or found, by command (a command given twice in a page is two runs)."""

    runs: dict[str, list[dict]] = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path) -> Made:
        return cls(json.loads(path.read_text())) if path.exists() else cls()

    def save(self, path: Path) -> None:
        write_whole(path, json.dumps(self.runs, indent=1, sort_keys=True) + "\n")


def load_manifest(path: Path) -> list[Page]:
    """The manifest's pages; a bad entry is one line naming the file, the entry and what is allowed."""
    try:
        doc = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise ManifestError(f"{path}: {e}") from None
    pages = []
    allowed = {"file", "kind", "runs", "script", "make", "render", "fresh", "fidelity", "readme", "blocked"}
    for i, entry in enumerate(doc.get("page", []), 1):
        where = f"{path}: page {i} ({entry.get('file', 'no file')})"
        unknown = sorted(set(entry) - allowed)
        if unknown:
            raise ManifestError(f"{where}: unknown key {unknown[0]!r} (allowed: {', '.join(sorted(allowed))})")
        if entry.get("kind") not in KINDS:
            raise ManifestError(f"{where}: kind {entry.get('kind')!r} (allowed: {', '.join(KINDS)})")
        if not isinstance(entry.get("file"), str):
            raise ManifestError(f"{where}: file must be a path under docs/")
        runs = tuple(tuple(r) for r in entry.get("runs", []))
        if entry["kind"] in ("docs", "script") and not runs:
            raise ManifestError(f"{where}: kind {entry['kind']} needs runs (tlsbench command lines)")
        if entry["kind"] == "script" and not entry.get("script"):
            raise ManifestError(f"{where}: kind script needs script (its generator's command line)")
        if entry["kind"] == "self" and not entry.get("make"):
            raise ManifestError(f"{where}: kind self needs make (the command that makes the page)")
        pages.append(Page(entry["file"], entry["kind"], runs, tuple(entry.get("script", ())),
                          tuple(entry.get("make", ())), tuple(entry.get("render", ())), tuple(entry.get("fresh", ())),
                          bool(entry.get("fidelity", False)), str(entry.get("readme", "")),
                          str(entry.get("blocked", ""))))
    return pages


def _run_ids(db: Path) -> set[int]:
    if not db.exists():
        return set()
    store = Store(db, read_only=True)
    try:
        return {int(r["id"]) for r in store.list_runs()}
    finally:
        store.close()


def store_id_of(db: Path, uuid: str) -> int:
    store = Store(db, read_only=True)
    try:
        run_id = store.has_run(uuid)
    finally:
        store.close()
    if run_id is None:
        raise TlsbenchError(f"{db}: no run {uuid}")
    return run_id


def _load1() -> float:
    return os.getloadavg()[0]


class Driver:
    """Makes (or finds) each page's runs in one database, then renders the page."""

    def __init__(self, db: Path, make_runs: bool, fresh: bool,
                 tlsbench: Sequence[str] = (sys.executable, "-m", "tlsbench.cli")):
        self.db, self.make_runs, self.fresh = db, make_runs, fresh
        self.tlsbench = list(tlsbench)
        self.state_path = db.with_suffix(".runs.json")
        self.made = Made.load(self.state_path)
        self.done_fresh: set[str] = set()  # commands --fresh has made again in this call
        self.made_now: dict[str, bool] = {}  # page -> whether this call made one of its runs

    def _stored(self, key: str, nth: int) -> dict | None:
        if key not in self.done_fresh:  # another call may have made it meanwhile
            self.made.runs[key] = Made.load(self.state_path).runs.get(key, [])
        runs = self.made.runs.get(key, [])
        if not self.db.exists():
            return None
        store = Store(self.db, read_only=True)
        try:
            if nth < len(runs):
                run_id = store.has_run(runs[nth]["uuid"])
                return {**runs[nth], "id": run_id} if run_id is not None else None
            if self.fresh:
                return None
            adopted = self._adopt(store, key)
        finally:
            store.close()
        if adopted is None:
            return None
        self._record(key, nth, adopted)
        return {**adopted, "id": store_id_of(self.db, adopted["uuid"])}

    def _adopt(self, store: Store, key: str) -> dict | None:
        """A complete run of exactly this command that no page claims yet (made by hand, or by a call that
        stopped before recording it): the latest such run, else None."""
        claimed = {r["uuid"] for runs in Made.load(self.state_path).runs.values() for r in runs}
        for row in reversed(store.list_runs()):
            if row["status"] != "complete" or row["uuid"] in claimed:
                continue
            run = store.get_run(int(row["id"]))
            if f"tlsbench {key}" == resultsdoc.command(run) and not store.board_profile(run.id):
                logger.info(f"regenerate-docs: run {run.id} of {self.db} is `tlsbench {key}`: used")
                return {"uuid": row["uuid"]}
        return None

    def _record(self, key: str, nth: int, record: dict) -> None:
        # read again before writing: another call may have stored other pages' runs meanwhile
        on_disk = Made.load(self.state_path)
        runs = self.made.runs.setdefault(key, [])
        runs[nth:nth + 1] = [record]
        on_disk.runs[key] = runs
        on_disk.save(self.state_path)

    def run_ids(self, page: Page) -> tuple[list[dict], bool]:
        """Each of the page's runs, stored already or made now (unless rendering only), and whether any was made."""
        if self.fresh:  # each command made again once per call, its older runs forgotten
            for key in {shlex.join(a) for a in page.runs} - self.done_fresh:
                self.made.runs.pop(key, None)
                self.done_fresh.add(key)
        out, seen, made = [], {}, False
        for argv in page.runs:
            key = shlex.join(argv)
            nth = seen[key] = seen.get(key, -1) + 1
            stored = self._stored(key, nth)
            if stored is None:
                if not self.make_runs:
                    raise TlsbenchError(f"{page.file}: no stored run of `tlsbench {key}` in {self.db}"
                                        " (scripts/regenerate-docs without --render makes it)")
                stored, made = self._make(key, argv, nth), True
            out.append(stored)
        return out, made

    def _make(self, key: str, argv: tuple[str, ...], nth: int) -> dict:
        logger.info(f"regenerate-docs: tlsbench --db {self.db} {key}")
        self.db.parent.mkdir(parents=True, exist_ok=True)
        existing = _run_ids(self.db)
        before = _load1()
        subprocess.run([*self.tlsbench, "--db", str(self.db), *argv, *(["--no-progress"] if argv[0] == "run" else [])],
                       check=True, stdout=subprocess.DEVNULL)
        after = _load1()
        store = Store(self.db, read_only=True)
        try:
            # the run this command made: new since it started, of its target and plan (another call may be
            # making runs into the same database meanwhile)
            target = argv[argv.index("--target") + 1] if "--target" in argv else "host"
            plan = (argv[argv.index("--preset") + 1] if "--preset" in argv
                    else "code-size" if argv[0] == "sizes" else None)
            mine = [r["id"] for r in store.list_runs() if r["id"] not in existing and r["target"] == target
                    and (plan is None or r["plan_name"] == plan)]
            if not mine:
                raise TlsbenchError(f"{self.db}: no new run of {target} after `tlsbench {key}`")
            run_id = mine[-1]
            record = {"uuid": store.run_uuid(run_id), "load1_before": before, "load1_after": after}
        finally:
            store.close()
        self._record(key, nth, record)
        return {**record, "id": run_id}

    def fidelity_text(self, page: Page, runs: list[dict], made_now: bool) -> str | None:
        """`tlsbench fidelity` three times, kept beside the database so that a render-only call shows it too."""
        path = self.db.with_name(f"{self.db.stem}.fidelity-{runs[0]['uuid']}.txt")
        if made_now or not path.exists():
            if not self.make_runs:
                return None
            outs = [subprocess.run([*self.tlsbench, "fidelity"], capture_output=True, text=True).stdout
                    for _ in range(FIDELITY_ROUNDS)]
            write_whole(path, "\n".join(o.rstrip("\n") for o in outs) + "\n")
        return path.read_text()

    def make_runs_of(self, page: Page) -> None:
        """The page's runs, made where missing; before any page is written (a page written before a run
        would make that run's checkout "dirty")."""
        if page.kind != "self" and not page.blocked:
            self.made_now[page.file] = self.run_ids(page)[1]

    def page(self, page: Page) -> None:
        target = paths.root() / page.file
        if page.blocked:
            write_whole(target, mark_blocked(target.read_text(), page.blocked))
            logger.info(f"regenerate-docs: {page.file}: not made again: {page.blocked}")
            return
        if page.kind == "self":
            argv = (page.fresh or page.make) if self.fresh else page.make if self.make_runs else page.render
            if not argv:
                logger.info(f"regenerate-docs: {page.file}: no render-only mode (make it with scripts/regenerate-docs)")
                return
            subprocess.run(_script_argv(argv), check=True, cwd=paths.root(), env=_env(self.db, page))
            return
        runs, made = self.run_ids(page)  # made already by make_runs_of when the page's runs came first
        made_now = made or self.made_now.get(page.file, False)
        if page.kind == "script":
            env = {**_env(self.db, page), "RUNS": " ".join(str(r["id"]) for r in runs)}
            host = [r for r, argv in zip(runs, page.runs, strict=True) if any(targets.is_host(a) for a in argv)]
            if host:  # the machine's load while the host runs ran, for a page of host times
                env["LOAD"] = f"{host[0]['load1_before']:.2f} {host[-1]['load1_after']:.2f} {os.cpu_count()}"
            subprocess.run(_script_argv(page.script), check=True, cwd=paths.root(), env=env)
            return
        store = Store(self.db, read_only=True)
        try:
            data = [tables.load(store, r["id"]) for r in runs]
        finally:
            store.close()
        text = render_docs(data)
        if page.readme:
            readme = paths.root() / "README.md"
            load = (runs[0]["load1_before"], runs[0]["load1_after"]) if "load1_before" in runs[0] else None
            write_whole(readme, fill_readme(readme.read_text(), page.readme, wall_time_line(data[0], page.file, load)))
        if page.fidelity and (fidelity := self.fidelity_text(page, runs, made_now)) is not None:
            text += fidelity_section(runs[0]["id"], fidelity)
        write_whole(target, text)
        logger.info(f"regenerate-docs: wrote {page.file} (run {', '.join(str(r['id']) for r in runs)})")


def render_docs(runs: list[tables.RunData]) -> str:
    """One `tlsbench docs RUN` section per run, in the manifest's order."""
    return "\n".join(resultsdoc.render(data) for data in runs)


def _duration(seconds: float) -> str:
    minutes, secs = divmod(round(seconds), 60)
    return f"{minutes} min {secs:02d} s" if minutes else f"{secs} s"


def wall_time_line(data: tables.RunData, page: str, load: tuple[float, float] | None = None) -> str:
    """What a run took and on which machine, for the README: the figure is the stored run's own, with the
    machine's 1-minute load average before and after it when the driver made it (a shared machine is slower)."""
    run, m = data.run, data.run.machine
    if run.finished is None:
        return f"its run for {page} did not finish"
    day = datetime.datetime.fromtimestamp(run.created, datetime.UTC).strftime("%Y-%m-%d")
    loaded = f", 1-minute load average {load[0]:.1f} before and {load[1]:.1f} after" if load else ""
    return (f"{_duration(run.finished - run.created)} on {m.get('cpu_model')} with {m.get('cores')} cores{loaded},"
            f" {day}: run {run.id} of {page}")


def fill_readme(text: str, name: str, line: str) -> str:
    """The README with the text between <!-- NAME --> and <!-- /NAME --> replaced by line."""
    begin, end = f"<!-- {name} -->", f"<!-- /{name} -->"
    if text.count(begin) != 1 or text.count(end) != 1 or text.index(begin) > text.index(end):
        raise ManifestError(f"README.md: needs one {begin} ... {end} around the figure line"
                            f" (pages.toml: readme = {name!r})")
    head, rest = text.split(begin, 1)
    return f"{head}{begin}{line}{end}{rest.split(end, 1)[1]}"


BLOCKED = "**Not made again with today's defaults**: "


def mark_blocked(text: str, reason: str) -> str:
    """The page with its note saying why it was not made again, under its title (replacing an older note)."""
    lines = [line for line in text.split("\n") if not line.startswith(BLOCKED)]
    note = f"{BLOCKED}{reason}. Every figure below is the stored run's, with the versions it names."
    if lines and not lines[0].startswith("# "):
        return "\n".join([note, "", *lines])
    rest = lines[1:]
    if rest and rest[0] == "" and len(rest) > 1 and rest[1] == "":
        rest = rest[1:]  # the blank line a removed note left
    return "\n".join([lines[0], "", note, *rest]) if lines else note + "\n"


def fidelity_section(run_id: int, text: str) -> str:
    return (f"## Fidelity: tlsbench against `openssl speed -evp ALG -bytes 16384`\n\n"
            f"Not part of run {run_id}: `tlsbench fidelity`, {FIDELITY_ROUNDS} times, right after the run.\n\n"
            f"```\n{text.rstrip()}\n```\n")


def _script_argv(argv: Sequence[str]) -> list[str]:
    if argv[0] == "env":  # env VAR=VALUE ... script: the variables go into the environment below
        return list(argv)
    return [str(paths.root() / argv[0]), *argv[1:]]


def _env(db: Path, page: Page) -> dict[str, str]:
    env = dict(os.environ)
    if page.kind == "script":
        env["TLSBENCH_DB"] = str(db)
        env.pop("RUNS", None)
    return env


def add_parser(sub: argparse._SubParsersAction) -> None:
    ap = sub.add_parser("regenerate-docs", help="every generated page under docs/ in one command, from the runs of"
                        " docs/data/pages.toml (scripts/regenerate-docs)", description=__doc__.split("\n\n")[0])
    # the pages' own database, apart from the default results: a page names the runs it made there
    ap.add_argument("--db", default=".tlsbench/pages.sqlite", help="the database of the pages' runs"
                    " (default .tlsbench/pages.sqlite)")
    ap.add_argument("--manifest", default=str(MANIFEST), help=f"the pages and their runs (TOML; default {MANIFEST})")
    ap.add_argument("--render", action="store_true", help="render from stored runs only, run nothing")
    ap.add_argument("--fresh", action="store_true", help="make every run again (a default version changed)")
    ap.add_argument("pages", nargs="*", metavar="PAGE", help="only these pages (default: every page)")
    ap.set_defaults(func=lambda a: command(a, ap))


def command(a: argparse.Namespace, ap: argparse.ArgumentParser) -> int:
    if a.render and a.fresh:
        ap.error("--render and --fresh exclude each other")
    pages = load_manifest(paths.root() / a.manifest)
    unknown = sorted(set(a.pages) - {p.file for p in pages})
    if unknown:
        raise ManifestError(f"{unknown[0]}: not a page of {a.manifest} (pages: {', '.join(p.file for p in pages)})")
    # the database as given (relative to the checkout, where the scripts run): pages name no machine path
    driver = Driver(Path(a.db), make_runs=not a.render, fresh=a.fresh)
    chosen = [p for p in pages if not a.pages or p.file in a.pages]
    failed: dict[str, str] = {}  # page -> why: one page's failed run leaves the others to be made
    for step in (driver.make_runs_of, driver.page):  # every run first: no page makes a later run's checkout dirty
        for page in chosen:
            if page.file in failed:
                continue
            try:
                step(page)
            except (TlsbenchError, subprocess.CalledProcessError) as e:
                failed[page.file] = str(e)
                print(f"regenerate-docs: error: {e}", file=sys.stderr)
    if failed:
        print(f"regenerate-docs: {len(failed)} page(s) not made: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0
