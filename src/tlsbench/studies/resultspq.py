"""docs/results-pq.md from stored runs (scripts/results-pq makes the runs):
classical vs hybrid vs pure ML-KEM TLS 1.3 key exchange, per library and
handshake kind (full, ticket resumption with (EC)DHE, HelloRetryRequest),
then the interop grid with each failing pair's reason. Every figure is a
stored median (a host CPU time: the minimum, metrics.headline_estimator): bytes, round trips and
heap are exact; a host CPU time is labelled with the load the machine had while it was measured.

    tlsbench study results-pq --db DB --run N [--run M ...]
        [--load "BEFORE AFTER CORES"] -o docs/results-pq.md
"""

from __future__ import annotations

import argparse
import sys

from tlsbench import paths
from tlsbench.engine import metrics, steadiness
from tlsbench.engine.metrics import format_time
from tlsbench.families.minram import fits as fits_view
from tlsbench.families.primitive.catalog import PQ_KINDS
from tlsbench.families.tls import figures_pq, names
from tlsbench.families.tls.tables import interop
from tlsbench.outfile import write_whole
from tlsbench.report import resultsdoc, tables
from tlsbench.report.tables import RunData
from tlsbench.studies.pagecommand import add_page_parser
from tlsbench.targets import target as targets

# a 1-minute load average per core above this: the machine was busy, host CPU times are not final
BUSY_LOAD_PER_CORE = 0.25
COLUMNS = (("C->S B", "c2s_bytes"), ("S->C B", "s2c_bytes"), ("RTT", "round_trips"), ("flights", "flights"),
           ("C heap peak", "client_heap_peak_bytes"), ("S heap peak", "server_heap_peak_bytes"))
TIMES = (("client CPU", "client_cpu_ns"), ("server CPU", "server_cpu_ns"))
COUNTS = (("client instructions", "client_instructions"), ("server instructions", "server_instructions"))


def _value(c: dict, metric: str) -> str:
    r = c["results"].get(metric)
    if r is None:
        return "n/m"
    return format_time(metrics.headline_of(r)) if metric.endswith("_ns") else f"{r['median']:,.0f}"


def _relative(text: str) -> str:
    """A source description without the checkout's own path (the page is the same from any clone)."""
    return text.replace(f"{paths.root()}/", "")


def load_note(load: str | None) -> str:
    """What the page says about host CPU times, from "BEFORE AFTER CORES"
    (1-minute load averages around the runs, and the core count)."""
    if not load:
        return "host CPU times: the machine's load was not recorded; not final."
    before, after, cores = (float(x) for x in load.split())
    busy = max(before, after) / cores > BUSY_LOAD_PER_CORE
    text = f"1-minute load average {before:.2f} before and {after:.2f} after the runs on {cores:.0f} cores"
    if busy:
        return f"host CPU times MEASURED UNDER LOAD ({text}): noisy, not final; regenerate on a quiet machine."
    return f"host CPU times measured on a quiet machine ({text})."


def _delta_rows(cases: list[dict]) -> list[list[str]]:
    """Each ML-KEM case against its library's x25519 case of the same kind:
    the exact extra bytes each way and heap per side."""
    base = {}
    for c in cases:
        v = names.TlsVariant.parse(c["op"])
        if v.group == "x25519" and not v.share:
            base[(c["library"], v.handshake)] = c
    out = []
    for c in cases:
        v = names.TlsVariant.parse(c["op"])
        ref = base.get((c["library"], v.handshake))
        if v.group == "x25519" or ref is None or figures_pq.group_class(v.group) == "classical" or c["status"] != "ok":
            continue
        row = [c["library"], v.group, v.handshake + (f" share={v.share}" if v.share else "")]
        for _h, m in (COLUMNS[0], COLUMNS[1], COLUMNS[4], COLUMNS[5]):
            a, b = c["results"].get(m), ref["results"].get(m)
            row.append(f"{a['median'] - b['median']:+,.0f}" if a and b else "n/m")
        out.append(row)
    return out


def section(data: RunData, load: str | None) -> list[str]:
    run = data.run
    host = targets.is_host(run.target)
    cases = figures_pq.pq_cases(data)
    out = [f"## Run {run.id}: {run.plan_name} on {run.target}", "",
           f"- command: `{resultsdoc.command(run)}`",
           f"- tlsbench {run.tlsbench_version}; machine: {run.machine.get('cpu_model')},"
           f" {run.machine.get('cores')} cores" + (f"; board {run.machine['board']}" if "board" in run.machine else ""),
           *([f"- {steadiness.run_line(data.rounds)}"] if host else []),  # how steady the machine was for its times
           "- libraries: " + ", ".join(f"{lib['library']} {lib.get('version', '')}".strip() for lib in data.libraries),
           *(f"- {lib['library']} source: {_relative(lib['source'])}" for lib in data.libraries
             if "user-supplied" in lib["source"]),
           ("- bytes, round trips, flights and heap are exact (the same in every run), but for an ECDSA"
            " signature's DER length (70-72 B: random on the host, so a server's bytes may differ by 2 B); "
            + load_note(load)) if host else
           "- instructions, bytes, round trips, heap and stack are exact counts (QEMU -icount, seeded keys and"
           " randomness: the same in every run); instructions are not cycles.", ""]
    out += _primitives(data) + _min_ram(data) + _size_probes(data)
    if cases:
        out += _memory(data, cases, host)
    ih, ib = interop(data)
    if ib:
        out += ["### Over loopback TCP: each client against each server", "",
                "A cell is ok with the client's handshake wall time (host: noisy, see above), or the reason the"
                " pair did not complete.", "", tables.markdown(ih, ib), ""]
    return out


def _memory(data: RunData, cases: list[dict], host: bool) -> list[str]:
    """The in-memory handshakes: a row per library, group and kind, then the differences from X25519."""
    out: list[str] = []
    extra = TIMES if host else COUNTS
    header = ["library", "group", "class", "handshake", *(h for h, _m in COLUMNS), *(h for h, _m in extra)]
    body = []
    for c in cases:
        v = names.TlsVariant.parse(c["op"])
        kind = v.handshake + (f" share={v.share}" if v.share else "")
        cells = ([_value(c, m) for _h, m in (*COLUMNS, *extra)] if c["status"] == "ok"
                 else [f"{c['status']}: {c['reason'] or ''}"] + [""] * (len(COLUMNS) + len(extra) - 1))
        body.append([c["library"], v.group or "", figures_pq.group_class(v.group), kind, *cells])
    where = "both sides in one process" if host else "both sides in one firmware image"
    out += [f"### In memory, {where}", "", tables.markdown(header, body), ""]
    deltas = _delta_rows(cases)
    if deltas:
        out += ["### Against X25519 (same library and handshake kind)", "",
                tables.markdown(["library", "group", "handshake", "C->S B", "S->C B", "C heap peak", "S heap peak"],
                                deltas), ""]
    return out


PRIMITIVE_COLUMNS = (("instructions", "instructions"), ("heap peak B", "heap_peak_bytes"), ("stack B", "stack_bytes"))


def _primitives(data: RunData) -> list[str]:
    """ML-KEM and ML-DSA operations: one row each (exact on firmware)."""
    rows = [c for c in data.cases if c["kind"] in PQ_KINDS]
    if not rows:
        return []
    times = (("wall", "wall_ns"),) if targets.is_host(data.run.target) else ()
    body = [[c["alg"], c["op"], *([_value(c, m) for _h, m in (*PRIMITIVE_COLUMNS, *times)] if c["status"] == "ok"
                                  else [f"{c['status']}: {c['reason'] or ''}"])] for c in rows]
    return ["### ML-KEM and ML-DSA, one operation", "",
            tables.markdown(["algorithm", "op", *(h for h, _m in (*PRIMITIVE_COLUMNS, *times))], body), ""]


def _min_ram(data: RunData) -> list[str]:
    """The least heap each side of a handshake completes with (min-ram cases), and the RAM it adds up to."""
    if not tables.has_fits(data):
        return []
    f = fits_view.fits(data.cases, data.code_sizes)
    return ["### The least RAM a handshake completes with (min-ram)", "", tables.markdown(*fits_view.size_table(f)),
            "", *(f"- {n}" for n in fits_view.notes(f)), ""]


def _size_probes(data: RunData) -> list[str]:
    """Flash each post-quantum primitive pulls in: its size probe's image minus the empty probe's."""
    if "size_probes" not in data.run.plan.get("method", {}):
        return []
    body = [[c["alg"], c["op"], _value(c, "flash_bytes"), _value(c, "ram_bytes")] for c in data.cases
            if c["status"] == "ok" and any(k in c["alg"] for k in ("mlkem", "mldsa", "ml-kem", "ml-dsa"))]
    if not body:
        return []
    return ["### Code size of each post-quantum primitive (size probes: image minus the empty image)", "",
            tables.markdown(["probe", "op", "flash B", "static RAM B"], body), ""]


def render(runs: list[RunData], load: str | None) -> str:
    out = ["# Post-quantum TLS 1.3: classical vs hybrid vs ML-KEM-768", "",
           "Made by `scripts/results-pq` (the `pq-tls` and `pq-interop` presets on the host; on a Cortex-M4,"
           " qemu:mps2-an386, wolfSSL 5.9.2 firmware with the `pq-cortex-m` preset and the size probes; then"
           " this page with `tlsbench study results-pq`); every figure is a stored run's median (a host CPU time: its"
           " fastest sample, the minimum), named"
           " by run below (`RUNS=\"...\" scripts/results-pq` renders the same runs again)."
           " Groups: x25519 and p256 (classical), x25519mlkem768 and secp256r1mlkem768 (hybrid), mlkem768 (pure"
           " PQ). Handshakes: full; resume-ticket (TLS 1.3 ticket PSK with (EC)DHE, psk_dhe_ke: the group's key"
           " exchange runs again); hrr with share=G (the client's first key share is G, the server supports only"
           " the case's group: one HelloRetryRequest and a second ClientHello).", ""]
    for data in runs:
        out += section(data, load)
    return "\n".join(out).rstrip("\n") + "\n"


def _load(text: str) -> str:
    """--load "BEFORE AFTER CORES": three numbers."""
    try:
        before, after, cores = (float(x) for x in text.split())
    except ValueError:
        raise argparse.ArgumentTypeError(f'{text!r}: give "BEFORE AFTER CORES", e.g. "0.12 0.30 2"') from None
    return text


def add_parser(sub: argparse._SubParsersAction, db: argparse.ArgumentParser) -> None:
    p = add_page_parser(sub, db, "results-pq", "docs/results-pq.md from stored runs (scripts/results-pq makes the"
                        " runs)", "a stored run (repeatable)", command, __doc__)
    p.add_argument("--load", type=_load, help='"BEFORE AFTER CORES": 1-minute load averages around the host runs')


def command(a: argparse.Namespace) -> int:
    runs = [tables.load_stored(a.db, r) for r in a.run]
    write_whole(a.output, render(runs, a.load))
    print(f"{a.output}: runs {', '.join(map(str, a.run))}", file=sys.stderr)
    return 0
