"""docs/results-pq-cores.md from stored runs: the `pq-cortex-m` preset on each emulated core beside the M4,
a summary table of the headline counts of every run (ML-KEM-768, ML-DSA-44, the TLS 1.3 handshakes with
X25519 and X25519MLKEM768, each side's least heap), then each run's own page (`tlsbench docs N`). Every
figure is a stored exact count; the runs are made by scripts/regenerate-docs (docs/data/pages.toml).

    tlsbench study results-pq-cores --db DB --run N [--run M ...] -o docs/results-pq-cores.md
"""

from __future__ import annotations

import argparse
import datetime
import sys

from tlsbench.engine.store import Store
from tlsbench.errors import TlsbenchError
from tlsbench.outfile import write_whole
from tlsbench.report import resultsdoc, tables
from tlsbench.report.tables import RunData
from tlsbench.studies.pagecommand import add_page_parser

PLAN = "pq-cortex-m"
SUITE = "TLS_AES_128_GCM_SHA256"
CERT = "ecdsa-p256-full"
GROUPS = (("X25519", "x25519"), ("X25519MLKEM768", "x25519mlkem768"))


def core_label(data: RunData) -> str:
    """"Cortex-M3 (qemu:mps2-an385)": the board's core as the run stored it, and the target."""
    cpu = str(data.run.machine.get("board_cpu") or "?")
    name = "Cortex-" + cpu.removeprefix("cortex-").upper() if cpu.startswith("cortex-") else cpu.upper()
    return f"{name} ({data.run.target})"


def _case(data: RunData, name: str) -> dict | None:
    return next((c for c in data.cases if c["name"] == name and c["status"] == "ok"), None)


def _count(data: RunData, name: str, metric: str) -> str:
    """The case's stored median, or what is missing (never a zero for a figure not measured)."""
    c = _case(data, name)
    r = c["results"].get(metric) if c else None
    return "n/m" if r is None else f"{r['median']:,.0f}"


def _pair(data: RunData, name: str, metrics: tuple[str, ...]) -> str:
    return " / ".join(_count(data, name, m) for m in metrics)


def _library(data: RunData) -> str:
    """The library of the run's image (the preset measures one)."""
    return data.libraries[0]["library"] if data.libraries else "?"


def summary_row(data: RunData) -> list[str]:
    lib = _library(data)
    tls = {g: f"{lib}/tls/{SUITE}/{g}/{CERT}" for _label, g in GROUPS}
    heap = {g: f"{lib}/min-ram/{SUITE}/{g}/{CERT}" for _label, g in GROUPS}
    return [core_label(data),
            _pair(data, f"{lib}/kem/ml-kem-768/keygen", ("instructions",)) + " / "
            + _pair(data, f"{lib}/kem/ml-kem-768/encaps", ("instructions",)) + " / "
            + _pair(data, f"{lib}/kem/ml-kem-768/decaps", ("instructions",)),
            _pair(data, f"{lib}/pqsig/ml-dsa-44/sign", ("instructions",)) + " / "
            + _pair(data, f"{lib}/pqsig/ml-dsa-44/verify", ("instructions",)),
            *(_pair(data, tls[g], ("client_instructions", "server_instructions")) for _label, g in GROUPS),
            *(_pair(data, heap[g], ("client_min_heap_bytes", "server_min_heap_bytes")) for _label, g in GROUPS)]


def _bytes(data: RunData, group: str) -> str:
    return _pair(data, f"{_library(data)}/tls/{SUITE}/{group}/{CERT}", ("c2s_bytes", "s2c_bytes")).replace(" / ", " + ")


def bytes_note(runs: list[RunData]) -> str:
    """Both sides' handshake bytes per group: one figure when every core sent the same, else each core's."""
    parts = []
    for label, group in GROUPS:
        seen = {_bytes(d, group) for d in runs}
        if len(seen) == 1:
            parts.append(f"{seen.pop()} B with {label} on every core")
        else:
            parts.append(f"with {label}: " + ", ".join(f"{_bytes(d, group)} B on {core_label(d)}" for d in runs))
    return "both sides' bytes are " + " and ".join(parts)


def _versions(runs: list[RunData]) -> str:
    seen = dict.fromkeys(f"{lib['library']} {lib.get('version', '')}".strip() for d in runs for lib in d.libraries)
    return ", ".join(seen)


def measured_note(runs: list[RunData], reused: dict[int, int]) -> str:
    """Whether each run measured its cases itself or copied some from the result cache."""
    copied = [f"run {d.run.id} copied {reused[d.run.id]} of its {len(d.cases)} cases from the result cache"
              for d in runs if reused.get(d.run.id)]
    if not copied:
        return f"every run measured all its cases (runs {', '.join(str(d.run.id) for d in runs)})"
    return "; ".join(copied) + " (measured before with the same image, inputs and code)"


def commands(runs: list[RunData], reused: dict[int, int]) -> list[str]:
    """Each run's command; with --no-cache when it copied no case from the result cache (what that flag gives)."""
    return [resultsdoc.command(d.run) + ("" if reused.get(d.run.id) else " --no-cache") for d in runs]


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:] + "."


def render(runs: list[RunData], reused: dict[int, int] | None = None) -> str:
    wrong = [d.run.id for d in runs if d.run.plan_name != PLAN]
    if wrong:
        raise TlsbenchError(f"run {wrong[0]} is not a {PLAN} run (results-pq-cores renders the {PLAN} preset)")
    day = datetime.datetime.fromtimestamp(runs[0].run.created, datetime.UTC).strftime("%Y-%m-%d")
    header = ["core", "ML-KEM-768 keygen / encaps / decaps", "ML-DSA-44 sign / verify",
              *(f"TLS 1.3 {label} C / S" for label, _g in GROUPS),
              *(f"least heap {label} C / S (B)" for label, _g in GROUPS)]
    out = ["# Post-quantum on every emulated core", "",
           f"The `{PLAN}` preset (ML-KEM-768, ML-DSA-44/65, the TLS 1.3 handshake with X25519, X25519MLKEM768 and"
           " ML-KEM-768 in one image, and each side's least heap) on the emulated cores beside the M4 of"
           " [results-pq.md](results-pq.md): " + ", ".join(core_label(d) for d in runs) + "."
           f" Exact instruction counts of the default wolfSSL image ({_versions(runs)}), not time: for time on a"
           " board, run the same preset with `--board` (docs/cycle-model.md). Made from"
           f" {day} by `scripts/regenerate-docs docs/results-pq-cores.md` (docs/data/pages.toml), one run per"
           " core:", "", "```sh",
           *commands(runs, reused or {}),
           "```", "", _sentence(measured_note(runs, reused or {})), "",
           f"In short (instructions; the handshakes in one image, ECDSA P-256 certificate, {bytes_note(runs)};"
           " the M4's figures are in results-pq.md; n/m: not measured):", "",
           tables.markdown(header, [summary_row(d) for d in runs]), ""]
    return "\n".join(out) + "\n" + "\n".join(demoted(resultsdoc.render(d)) for d in runs)


def demoted(text: str) -> str:
    """A run's page as a section of this one: each heading one level down (code blocks left alone)."""
    out, code = [], False
    for line in text.split("\n"):
        code ^= line.startswith("```")
        out.append("#" + line if line.startswith("#") and not code else line)
    return "\n".join(out)


def add_parser(sub: argparse._SubParsersAction, db: argparse.ArgumentParser) -> None:
    add_page_parser(sub, db, "results-pq-cores", "docs/results-pq-cores.md from stored runs (scripts/regenerate-docs"
                    " makes the runs)", "a stored pq-cortex-m run (repeatable)", command, __doc__)


def command(a: argparse.Namespace) -> int:
    runs = [tables.load_stored(a.db, r) for r in a.run]
    store = Store(a.db, read_only=True)
    try:
        reused = {r: len(store.reuse_marks(r)) for r in a.run}
    finally:
        store.close()
    write_whole(a.output, render(runs, reused))
    print(f"{a.output}: runs {', '.join(map(str, a.run))}", file=sys.stderr)
    return 0
