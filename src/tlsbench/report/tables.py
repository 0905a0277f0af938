"""Reports of a stored run: read (rundata.py) -> arrange (cells.py, context.py, marks.py) -> render
here (terminal, Markdown, CSV, JSON); a view a family renders itself (views.py) is the family's. Every
figure comes from the store; a case that was not measured shows why (unsupported, check failed,
failed), never a zero."""

from __future__ import annotations

import csv
import io
import json

from tlsbench.engine import metrics, stats, steadiness
from tlsbench.families import registry
from tlsbench.report import views
from tlsbench.report.cells import CODE_SIZE_NOTE, STATUS_TEXT, cell, code_size_table, pivot
from tlsbench.report.context import context_lines, features_label, user_build_lines
from tlsbench.report.marks import (
    REUSED_MARK,
    clockless,
    drifting_cases,
    marks,
    noise_lines,
    noisy_cases,
    slow_rounds,
    varying_counts,
)
from tlsbench.report.rundata import (
    DRIFT_METRIC,
    RunData,
    board_profile_line,
    counters_missing,
    load,
    load_stored,
    model_core,
    model_error_line,
    model_profile,
    timed_headline,
)
from tlsbench.report.textformat import aligned, markdown
from tlsbench.report.views import has_fits, is_handshake
from tlsbench.targets import cyclemodel, modelerror
from tlsbench.targets.target import is_host

# what callers read as report.X (the command line, the pages, the studies, tests): each lives in the
# module of its job (rundata, marks, cells, context, textformat, views); render is this module's own
__all__ = ["CODE_SIZE_NOTE", "FORMATS", "JSON_VERSION", "REUSED_MARK", "STATUS_TEXT", "RunData",
           "aligned", "board_profile_line", "cell", "clockless", "code_size_table", "context_lines",
           "counters_missing", "drifting_cases", "features_label", "has_fits",
           "is_handshake", "load", "load_stored", "markdown", "marks", "model_error_line", "noise_lines",
           "noisy_cases", "pivot", "render", "slow_rounds", "user_build_lines",
           "varying_counts"]

FORMATS = ("table", "markdown", "csv", "json")
# The version of `report --format json`'s document (its "format" field). Raise it when a field
# changes meaning or goes; new fields may be added without (as `run --json`'s lines).
JSON_VERSION = 2  # 2: each result says which stored column is its figure ("estimator")


def _metric_figure(data: RunData, metric: str) -> str:
    """How a named metric's cells are figured: "median", or a host timing's "min of 6 samples"."""
    estimator = metrics.headline_estimator(metric, is_host(data.run.target))
    return "median" if estimator == "median" else metrics.estimator_label(
        estimator, int(data.run.plan.get("method", {}).get("repeats", 0)) or None)


def render(data: RunData, fmt: str, metric: str | None = None, view: str = views.CASES) -> str:
    if fmt in ("table", "markdown") and (family_view := registry.report_view(view)) is not None:
        return family_view.text(data, fmt == "markdown")
    if fmt in ("table", "markdown"):
        header, body = pivot(data, metric)
        md = fmt == "markdown"
        table = markdown(header, body) if md else aligned(header, body)
        has_tls = any(is_handshake(c) for c in data.cases)
        firmware = clockless(data.cases)
        sizes = any("flash_bytes" in c["results"] for c in data.cases)
        timed = timed_headline(data)
        legend = ("cells: flash (text + rodata + data) and static RAM (data + bss) the primitive adds to an"
                  " empty image: library code and tables, and the C runtime it reaches (not tlsbench's own"
                  " platform code); heap and stack are measured per operation elsewhere" if sizes and metric is None
                  else "cells: instructions per operation, median of the repeats, per byte for sized operations"
                  + ("; tls: instructions per handshake of the client (C) and the server (S), handshake bytes"
                     " client->server + server->client, round trips" if has_tls else "")
                  + ". " + metrics.INSTRUCTIONS_NOTE
                  if firmware and metric is None else
                  (f"cells: the fastest sample ({timed}): the highest throughput for sized operations"
                   if timed else "cells: median throughput for sized operations")
                  + " (MB/s = 10^6 B/s; sizes in KiB = 1,024 B),"
                  + (" otherwise the least wall time per operation; ±: stdev/median of the kept samples, their spread"
                     if timed else " otherwise median wall time per operation; ±: stdev/median of the kept samples")
                  + ((f"; tls: {'the least' if timed else 'median'} CPU time per handshake of the client (C) and"
                      " the server (S), handshake bytes client->server + server->client, round trips")
                     if has_tls else "")
                  if metric is None else
                  f"cells: {_metric_figure(data, metric)} {metric} per operation (heap and stack from one untimed"
                  " pass per round)")
        bullet = "- " if md else "  "
        model = cyclemodel.legend(data.run.plan.get("method", {}).get("env", {}), model_profile(data))
        if model and metric is None:
            legend += "\n" + bullet + model
        out = "\n".join([*context_lines(data, md), bullet + legend]) + "\n\n" + table + "\n"
        out += "".join(f"\n{bullet}{line}\n" for line in noise_lines(data))
        if data.code_sizes:
            sizes_table = markdown(*code_size_table(data)) if md else aligned(*code_size_table(data))
            out += ("\n" + bullet + "code size of each firmware image, from its linker map (" + CODE_SIZE_NOTE
                    + "; an operation's heap and stack are measured per operation)\n\n" + sizes_table + "\n")
        if has_fits(data):
            out += ("\n" + bullet + "fits on (tlsbench fits): the RAM each side of a min-ram case needs\n\n"
                    + (view := registry.fits_view()).render(view.fits(data.cases, data.code_sizes),
                                                            markdown if md else aligned, md))
        return out
    if fmt == "csv":
        buf = io.StringIO()
        cols = ["run", "case", "library", "library_version", "kind", "name", "op", "size", "status", "reason",
                "metric", "unit", "n", "removed", "median", "mean", "stdev", "min", "max", "ci95_low", "ci95_high",
                "spread", "noisy", "round_drift", "slow_rounds"]
        slow = slow_rounds(data)
        w = csv.writer(buf)
        w.writerow(cols)
        versions = {lib["library"]: lib["version"] for lib in data.libraries}
        for c in data.cases:
            base = [data.run.id, c["name"], c["library"], versions.get(c["library"], ""), c["kind"], c["alg"],
                    c["op"], c["size"] if c["size"] is not None else "", c["status"], c["reason"]]
            if not c["results"]:
                w.writerow(base + [""] * 14 + [slow.get(c["name"], 0)])
            for metric, r in c["results"].items():
                sp = None if metrics.is_exact(metric) else stats.spread(r["median"], r["stdev"])
                drift = c.get("round_drift") if metric == DRIFT_METRIC else None
                w.writerow(base + [metric] + [r[k] if r[k] is not None else "" for k in cols[11:-4]]
                           + ["" if sp is None else f"{sp:.4f}", int(sp is not None and sp > stats.NOISE_LIMIT),
                              "" if drift is None else f"{drift:.4f}", slow.get(c["name"], 0)])
        return buf.getvalue()
    if fmt == "json":
        r = data.run
        doc = {
            "format": JSON_VERSION,
            "run": r.id, "status": r.status, "target": r.target, "plan": r.plan, "machine": r.machine,
            "tlsbench_version": r.tlsbench_version, "libraries": data.libraries, "checks": data.checks,
            "cases": data.cases,
            "noise": {"limit": stats.NOISE_LIMIT, "rule": "stdev/median of a noisy metric above the limit",
                      "noisy": [{"case": n, "metric": m, "spread": round(sp, 4)} for n, m, sp in noisy_cases(data)],
                      "drift_limit": stats.DRIFT_LIMIT,
                      "drift_rule": f"(largest - smallest round median of {DRIFT_METRIC}) / median, above the limit",
                      "drifting": [{"case": n, "drift": round(d, 4)} for n, d in drifting_cases(data)],
                      "varying": [{"case": n, "metric": m, "min": lo, "max": hi}
                                  for n, m, lo, hi in varying_counts(data)]},
            # rounds measured while the reference workload was slow (pacing.py), per case
            "slow_phase": {"rounds": len(data.rounds), "slow_rounds": sum(slow_rounds(data).values()),
                           "cases": slow_rounds(data)},
        }
        if (core := model_core(data)) is not None:  # the model's measured error beside its figures
            doc["model_error"] = modelerror.as_json(core)
        if data.rounds:  # the machine's speed through the run, from the references around its rounds
            doc["machine_steadiness"] = steadiness.run_line(data.rounds)
        return json.dumps(doc, indent=1, default=str) + "\n"
    raise ValueError(f"unknown format {fmt!r}; formats: {', '.join(FORMATS)}")
