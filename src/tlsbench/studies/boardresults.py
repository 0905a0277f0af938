"""docs/results-boards.md: TLS handshake time per side on every board profile
(cycle model), energy where the profile has its run current, and time to the
first application byte over three link profiles.

One stored run per board profile (docs/data/boards-handshakes.toml, both
libraries, on the emulated core the profile maps to); the page is rendered
from those runs only.

    tlsbench study results-boards [--db PATH] [--out docs/results-boards.md]
    (scripts/results-boards)
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import io
import logging
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tlsbench import paths
from tlsbench.engine.store import Store
from tlsbench.errors import SetupError
from tlsbench.links import profiles as link_profiles
from tlsbench.links import view as link_view
from tlsbench.plans.plan import parse_plan
from tlsbench.report.tables import is_handshake
from tlsbench.report.tables import load as load_run
from tlsbench.targets import boardprofiles, cyclemodel, firmware, modelerror
from tlsbench.targets import target as targets

logger = logging.getLogger(__name__)

PLAN = Path("docs/data/boards-handshakes.toml")
LINKS = ("ethernet-100m", "ble-5", "802.15.4-6lowpan")
# the emulated board each core's firmware runs on (docs/cycle-model.md, "Board profiles")
EMULATED = {"cortex-m4": "mps2-an386", "cortex-m7": "mps2-an500", "cortex-m3": "mps2-an385",
            "cortex-m0plus": "microbit-roomy", "cortex-m0": "microbit-roomy", "cortex-m33": "mps2-an505",
            "rv32imc": "rv32-virt"}
SUITES = {"TLS_AES_128_GCM_SHA256": "TLS 1.3 X25519 + ECDSA P-256",
          "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256": "TLS 1.2 ECDHE-ECDSA (X25519)"}


@dataclass
class BoardRun:
    profile: boardprofiles.Profile
    target: str | None
    run: int | None
    why_not: str = ""


def _not_fit(target: str) -> str:
    """Why the target's firmware images could not be built ("does not fit"), if so."""
    folder = targets.parse(target).cmake_dir()
    why = [f.read_text().strip() for f in sorted(folder.glob("*.does-not-fit"))]
    return "; ".join(f"{f.name.split('.')[0].removeprefix('tlsbench-agent-')} {w}"
                     for f, w in zip(sorted(folder.glob("*.does-not-fit")), why, strict=True))


def stored_runs(db: Path) -> list[BoardRun]:
    """The latest complete run of the plan per board profile already in db (no new run)."""
    store = Store(db)
    latest: dict[str, int] = {}
    try:
        for row in store.list_runs():
            data = load_run(store, int(row["id"]))
            name = link_view.run_board(data)
            run = data.run
            if name and run is not None and run.status == "complete" and run.plan_name == "boards-handshakes":
                latest[name] = int(row["id"])
    finally:
        store.close()
    out = []
    for name in boardprofiles.names():
        profile = boardprofiles.load(name)
        machine = EMULATED.get(profile.core)
        target = f"qemu:{machine}" if machine else None
        if name in latest:
            out.append(BoardRun(profile, target, latest[name]))
        elif target is None:
            out.append(BoardRun(profile, None, None, f"no emulated target runs {profile.core} firmware yet"))
        else:
            out.append(BoardRun(profile, target, None, _not_fit(target) or f"no stored run in {db}"))
    return out


def run_all(db: Path, tlsbench: Callable[[list[str]], int],
            only: frozenset[str] = frozenset()) -> list[BoardRun]:
    """Runs the plan per profile (only those named in ``only``, if any) with ``tlsbench`` (the CLI's entry
    point, handed down by its dispatcher) and returns every profile's latest stored run."""
    tb = [sys.executable, "-m", "tlsbench.cli"]
    out = []
    built: set[str] = set()
    for name in boardprofiles.names():
        if only and name not in only:
            continue
        profile = boardprofiles.load(name)
        machine = EMULATED.get(profile.core)
        if machine is None:
            out.append(BoardRun(profile, None, None, f"no emulated target runs {profile.core} firmware yet"))
            continue
        target = f"qemu:{machine}"
        cyclemodel.check_target(profile, targets.BOARDS[machine])
        if target not in built:
            # fresh images (their stamps match their inputs) are not built again: the run's cases may all
            # come from the result cache, and a build that has nothing to do still takes its time
            # and of the stale ones, only those: one library's changed configuration rebuilds its images only
            todo = firmware.stale(targets.parse(target), parse_plan((paths.root() / PLAN).read_text()).libraries)
            if todo:
                why = "; ".join(f"{lib}: {reason}" for lib, (reason, _opt) in todo.items())
                logger.info(f"results-boards: building {target}: {why}")
                built_now = subprocess.run([*tb, "build", "--target", target, "--libraries", ",".join(todo)],
                                           stdout=subprocess.DEVNULL)
                if built_now.returncode:
                    raise SetupError(f"results-boards: tlsbench build --target {target} --libraries"
                                     f" {','.join(todo)} failed (exit {built_now.returncode})")
            built.add(target)
        logger.info(f"results-boards: {name} on {target}")
        returncode, stderr = _run_here(["--db", str(db), "run", "--plan", str(paths.root() / PLAN), "--target",
                                        target, "--board", name, "-q"], tlsbench)
        if returncode != 0:
            reason = _not_fit(target) or (stderr.strip().splitlines() or ["failed"])[-1]
            out.append(BoardRun(profile, target, None, reason))
            continue
        store = Store(db)
        try:
            out.append(BoardRun(profile, target, store.latest_run_id()))
        finally:
            store.close()
    if not only:
        return out
    ran = {br.profile.name: br for br in out}
    return [ran.get(br.profile.name, br) for br in stored_runs(db)]


def _run_here(argv: list[str], tlsbench_main: Callable[[list[str]], int]) -> tuple[int, str]:
    """`tlsbench ARGV` in this process (a warm run's cases all come from the result cache: starting a
    Python and importing tlsbench again per profile would be most of its time); returns its exit code
    and what it wrote on stderr after what its processes wrote there (file descriptor 2), both captured
    as a subprocess's stderr was."""
    said = io.StringIO()
    with tempfile.TemporaryFile(mode="w+") as err:
        sys.stderr.flush()
        saved = os.dup(2)
        os.dup2(err.fileno(), 2)
        try:
            with contextlib.redirect_stderr(said):
                returncode = tlsbench_main(argv)
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        err.seek(0)
        text = err.read() + said.getvalue()
    if returncode >= 128:  # stopped by a signal (Ctrl-C, SIGTERM): so is this study, as a subprocess's parent was
        print(text, end="", file=sys.stderr)
        raise SystemExit(returncode)
    return returncode, text


def _ms(ns: float | None) -> str:
    return "-" if ns is None else f"{ns / 1e6:,.1f} ms"


def _uj(nj: float | None) -> str:
    return "n/a" if nj is None else f"{nj / 1e3:,.1f} µJ"


def render(runs: list[BoardRun], db: Path) -> str:
    store = Store(db)
    with_current = [br.profile.name for br in runs if br.profile.energy_nj_per_cycle is not None]
    lines = ["# TLS handshakes per board profile (cycle model)", "",
             f"Generated by `scripts/results-boards` on {datetime.date.today():%Y-%m-%d} from the stored runs named"
             " in each row (`tlsbench report RUN` in the database it wrote). Every time and energy here is a"
             " **model** (docs/cycle-model.md): the board profile's cycle model on the emulated core, not a"
             " measurement on the board; its measured error against published board figures is in"
             " docs/cycle-model.md, \"Validation\". Full handshakes, both sides on the device, in memory, server"
             " certificate ECDSA P-256 (docs/data/boards-handshakes.toml). Energy = model cycles x V x I / f"
             " with the profile's datasheet run current (typical, peripherals off, at the profile's clock; sources in"
             " docs/cycle-model.md, \"Energy: the datasheet rows\"), for "
             + (", ".join(with_current) or "no profile") + "; n/a where the profile has none. A profile runs on"
             " the roomy emulated board with its core (column 'emulated on'), so every row is a whole handshake"
             " whatever the real board's memory: the Cortex-M0+ profiles run the ARMv6-M image (which an M0+ runs"
             " unchanged) on qemu:microbit-roomy, the micro:bit's Cortex-M0 with 4 MiB of flash and RAM. Whether"
             " a handshake fits the real board is another question: `tlsbench fits` and docs/results-min-ram.md"
             " answer it (the L053's 8 KiB and the L073's 20 KiB of RAM hold none of these).", "",
             "The column 'model error' is the model's measured error for the row's core class: median and largest"
             " absolute error on the same-code rows of docs/cycle-model.md, \"Validation\" (generated by"
             " scripts/validate-model), or \"not measured\" where no published figure of the same code was run.", "",
             "| board profile | core, clock | emulated on | library | handshake | client (model) | server (model)"
             " | model error | client energy | server energy | run |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    link_lines = ["", "## Time to the first application byte over three links (model)", "",
                  "`tlsbench link RUN --link NAME` per run: handshake compute per side (above) + latency,"
                  " serialisation and the TCP handshake of each link profile (src/tlsbench/links/; no loss).", "",
                  "| board profile | library | handshake | " + " | ".join(LINKS) + " | run |",
                  "|---|---|---|" + "---|" * len(LINKS) + "---|"]
    try:
        for br in runs:
            p = br.profile
            head = f"| {p.name} | {p.core}, {p.clock_hz / 1e6:g} MHz | {br.target or '-'}"
            if br.run is None:
                lines.append(f"{head} | - | not run: {br.why_not} | - | - | - | - | - | - |")
                continue
            data = load_run(store, br.run)
            # the version each library reported: the page must say which release the rows are
            version = {r["library"]: m.group(0) for r in store.libraries(br.run)
                       if (m := re.search(r"\d+\.\d+(?:\.\d+)?", r["version"] or ""))}
            link_rows = {name: {r.case: r for r in link_view.rows(data, link_profiles.get_profile(name),
                                                                   link_view.board_for(data, None))}
                         for name in LINKS}
            for case in data.cases:
                if not is_handshake(case):
                    continue
                res = {m: r.get("median") for m, r in case["results"].items()}
                suite = next((s for s in SUITES if s in case["name"]), case["name"])
                what = SUITES.get(suite, suite)
                lib = f"{case['library']} {version.get(case['library'], '')}".strip()
                lines.append(f"{head} | {lib} | {what} | {_ms(res.get('client_model_time_ns'))}"
                             f" | {_ms(res.get('server_model_time_ns'))} | {modelerror.short(p.core)}"
                             f" | {_uj(res.get('client_model_energy_nj'))}"
                             f" | {_uj(res.get('server_model_energy_nj'))} | {br.run} |")
                cells = []
                for name in LINKS:
                    row = link_rows[name].get(case["name"])
                    cells.append(_ms(float(row.breakdown.total_ns)) if row and row.breakdown else "-")
                link_lines.append(f"| {p.name} | {lib} | {what} | " + " | ".join(cells)
                                  + f" | {br.run} |")
    finally:
        store.close()
    return "\n".join(lines + link_lines) + "\n"


def add_parser(sub: argparse._SubParsersAction) -> None:
    ap = sub.add_parser("results-boards", help="docs/results-boards.md: one handshake run per board profile, then"
                        " the page (scripts/results-boards)", description=__doc__.split("\n\n")[0])
    # its own database, apart from the default results: the page names only the runs it wrote there
    ap.add_argument("--db", default=".tlsbench/boards.sqlite", help="results database for the runs"
                    " (default .tlsbench/boards.sqlite)")
    ap.add_argument("--out", default="docs/results-boards.md",
                    help="the page to write (default docs/results-boards.md)")
    ap.add_argument("--stored", action="store_true", help="render from the runs already in --db (no new run)")
    ap.add_argument("--missing", action="store_true",
                    help="run only the profiles with no stored run in --db, then render (scripts/regenerate-docs)")
    ap.add_argument("--profile", action="append", default=[], metavar="NAME", choices=boardprofiles.names(),
                    help="run only this board profile (repeatable); the others keep their latest stored run")
    ap.set_defaults(func=command)


def command(args: argparse.Namespace) -> int:
    db = Path(args.db)
    db.parent.mkdir(parents=True, exist_ok=True)

    if args.stored:
        runs = stored_runs(db)
    elif args.missing:  # a profile that cannot run here (no emulated core) has no target: nothing to run
        runs = stored_runs(db)
        lacking = frozenset(br.profile.name for br in runs if br.run is None and br.target is not None)
        if lacking:
            runs = run_all(db, args.tlsbench, only=lacking)
    else:
        runs = run_all(db, args.tlsbench, only=frozenset(args.profile))
    (paths.root() / args.out).write_text(render(runs, db))
    return 0
