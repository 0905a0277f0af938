"""A results page (docs/results-*.md) rendered from one stored run and
nothing else: the run names its commit, machine, CPU features, command and
number, so the page can be made again, byte for byte, from the database
(`tlsbench docs RUN`). Measuring is the run's job (scripts/results-doc)."""

from __future__ import annotations

import argparse
import datetime
import shlex

from tlsbench.engine import steadiness
from tlsbench.engine.store import RunInfo
from tlsbench.families import registry
from tlsbench.outfile import emit
from tlsbench.plans.plan import presets
from tlsbench.report import tables, views

# The share of 16 KiB AEAD cases whose spread (stdev/median) is under this
# is printed for host runs: a quick read of how quiet the machine was.
QUIET_SPREAD = 0.05


def _day(when: float | None) -> str:
    if when is None:
        return "unfinished"
    return datetime.datetime.fromtimestamp(when, datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")


def _profiles(run: RunInfo) -> str:
    return ",".join(f"{k}={v}" for k, v in sorted((run.machine.get("profiles") or {}).items()))


def command(run: RunInfo) -> str:
    """The command that made the run, rebuilt from what the run stored."""
    target = ["--target", run.target]
    if run.machine.get("profiles"):
        target += ["--profile", _profiles(run)]
    if "size_probes" in run.plan.get("method", {}):
        return shlex.join(["tlsbench", "sizes", *target])
    preset = presets().get(run.plan_name)
    if preset is not None and preset.read_text() == run.plan_source:
        return shlex.join(["tlsbench", "run", "--preset", run.plan_name, *target])
    return shlex.join(["tlsbench", "run", "PLAN", *target]) + " (PLAN: the plan as given, in the report's context)"


def _commit(run: RunInfo) -> str:
    version, _, rev = run.tlsbench_version.partition("+")
    return f"commit {rev} (tlsbench {version})" if rev else f"tlsbench {version} (no commit recorded)"


def _summary(data: tables.RunData) -> list[str]:
    run, m = data.run, data.run.machine
    out = [
        f"- command: `{command(run)}`",
        f"- made by {_commit(run)} from {_day(run.created)} to {_day(run.finished)}"
        + (f" ({run.finished - run.created:.0f} s)" if run.finished is not None else ""),
        f"- {'host ' if 'board' in m else ''}machine: {m.get('cpu_model')}, {m.get('cores')} cores,"
        f" {m.get('memory_mib', 0):,} MiB, {m.get('os')}, kernel {m.get('kernel')}",
        f"- {tables.features_label('board' in m)}: {', '.join(m.get('cpu_flags', [])) or 'none recorded'}",
    ]
    if "board" not in m:  # host times: how steady the machine above was while they were measured
        out.append(f"- {steadiness.run_line(data.rounds)}")
    if "board" in m:
        out.append(f"- board: {m['board']} ({m.get('board_cpu')}); {m.get('emulator', 'a real board')}"
                   f" {m.get('emulator_options', '')}".rstrip()
                   + f"; {m.get('cross_compiler')}, newlib {m.get('newlib')}")
    if (error := tables.model_error_line(data)) is not None:  # model figures below: their measured error
        out.append(f"- model error: {error}")
    spreads = [c["results"]["wall_ns"]["stdev"] / c["results"]["wall_ns"]["median"] for c in data.cases
               if c["kind"] == "aead" and c["size"] == 16384 and c["status"] == "ok"
               and c["results"].get("wall_ns", {}).get("stdev") is not None]
    if spreads:
        quiet = sum(s < QUIET_SPREAD for s in spreads)
        out.append(f"- relative spread (stdev/median) of the 16 KiB AEAD cases: {quiet} of {len(spreads)} under"
                   f" {100 * QUIET_SPREAD:g}%, mean {100 * sum(spreads) / len(spreads):.1f}%,"
                   f" largest {100 * max(spreads):.1f}%")
    status: dict[str, int] = {}
    for c in data.cases:
        status[c["status"]] = status.get(c["status"], 0) + 1
    out.append("- cases: " + ", ".join(f"{n} {s}" for s, n in sorted(status.items())))
    return out


def _views(data: tables.RunData) -> list[str]:
    """The report views a run's page shows: its cases, then each view a family renders itself that
    says it has something to show (the TLS family's: the per-side view when the run has TLS cases,
    the interop grid when it has TCP ones)."""
    handshakes = [c for c in data.cases if tables.is_handshake(c)]
    shown = [views.CASES] if len(handshakes) < len(data.cases) or not data.cases else []
    return shown + [view.name for view in registry.report_views() if view.shown(data)]


def render(data: tables.RunData) -> str:
    run = data.run
    profiles = _profiles(run)
    title = (f"# Results on {run.target}: plan {run.plan_name}" + (f" (profiles {profiles})" if profiles else ""))
    out = [
        title, "",
        f"Rendered by `tlsbench docs {run.id}` from stored run {run.id} (`tlsbench report {run.id}` in the database"
        " it was made with); every figure below is that run's. To make the page again: run the command below,"
        " then `tlsbench docs RUN -o FILE` (scripts/results-doc does both).", "",
        *_summary(data), "",
    ]
    for i, view in enumerate(_views(data)):
        text = tables.render(data, "markdown", None, view)
        if i:  # one context block per page: later views drop theirs (up to the first blank line)
            text = text.split("\n\n", 1)[1] if "\n\n" in text else text
        out.append(text.rstrip("\n"))
        out.append("")
    return "\n".join(out)


def cmd_docs(a: argparse.Namespace) -> int:
    data = tables.load_stored(a.db, a.run)
    text = render(data)
    emit(text, a.output, note=f"run {data.run.id}")
    return 0


def add_parser(sub: argparse._SubParsersAction, db: argparse.ArgumentParser) -> None:
    d = sub.add_parser("docs", parents=[db], help="a results page (Markdown) from one stored run, naming its commit,"
                       " machine, CPU features and command (docs/results-*.md)")
    d.add_argument("run", nargs="?", type=int, help="run id (default: the latest)")
    d.add_argument("-o", "--output", help="write to this file (default: standard output)")
    d.set_defaults(func=cmd_docs)
