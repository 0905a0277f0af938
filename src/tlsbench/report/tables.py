"""Reports of a stored run: read -> arrange -> render (terminal, Markdown,
CSV, JSON). Every figure comes from the store; a case that was not measured
shows why (unsupported, check failed, failed), never a zero."""

from __future__ import annotations

import csv
import html
import io
import json
import re
from dataclasses import dataclass, field

from tlsbench.engine import metrics, stats, steadiness
from tlsbench.engine.case import split_repeats
from tlsbench.engine.metrics import format_rate, format_time
from tlsbench.engine.store import NOTHING_MEASURED, RunInfo, Store
from tlsbench.errors import PlanError
from tlsbench.families import registry
from tlsbench.families.base import FITS, HANDSHAKES
from tlsbench.families.tls import names as tls_names
from tlsbench.report import fits as fits_view
from tlsbench.report import views
from tlsbench.targets import boardprofiles, cyclemodel, modelerror

FORMATS = ("table", "markdown", "csv", "json")
# The version of `report --format json`'s document (its "format" field). Raise it when a field
# changes meaning or goes; new fields may be added without (as `run --json`'s lines).
JSON_VERSION = 1
STATUS_TEXT = {"unsupported": "unsupported", "check_failed": "check failed", "failed": "failed",
               "does_not_fit": "does not fit"}


@dataclass
class RunData:
    run: RunInfo
    libraries: list[dict]
    checks: list[dict]
    cases: list[dict]  # each with "results": {metric: {...}}
    code_sizes: list[dict] = field(default_factory=list)  # firmware runs: per library and component
    rounds: list[dict] = field(default_factory=list)  # host runs: each round's placement and pace
    board_profile: dict | None = None  # a cycle model's board profile as stored (name, origin, text, sha256)


def load_stored(db: str, run_id: int | None) -> RunData:
    """A stored run (None: the latest) from the results database ``db``, opened read-only."""
    store = Store(db, read_only=True)
    try:
        return load(store, run_id if run_id is not None else store.latest_run_id())
    finally:
        store.close()


def load(store: Store, run_id: int) -> RunData:
    run = store.get_run(run_id)
    cases = {c["name"]: {**dict(c), "results": {}} for c in store.cases(run_id)}
    for r in store.results(run_id):
        cases[r["name"]]["results"][r["metric"]] = {**dict(r),
                                                    "reported_as": metrics.reported_as(r["metric"], r["min"], r["max"])}
    for c in cases.values():
        c.pop("transcript", None)
        c.pop("cache_key", None)  # the store's own look-up key, no figure
        if c.get("reused_from") is None:  # a measured case reads as it always has; a reused one says so
            c.pop("reused_from", None)
    method = run.plan.get("method", {})
    per_round = split_repeats(int(method.get("repeats", 0)), int(method.get("rounds", 1)))
    if len(per_round) > 1:  # each case's drift between its rounds, of its timed headline
        for name, (status, values) in store.per_op_values(run_id, DRIFT_METRIC).items():
            drift = stats.round_drift(values, per_round) if status == "ok" else None
            if drift is not None:
                cases[name]["round_drift"] = drift
    rounds = [dict(r) for r in store.case_rounds(run_id)]
    for r in rounds:  # each case's rounds measured in a slow phase (pacing.py), for its figures' marks
        if r["slow"] and r["name"] in cases:
            cases[r["name"]]["slow_rounds"] = cases[r["name"]].get("slow_rounds", 0) + 1
    return RunData(
        run=run,
        libraries=[dict(r) for r in store.libraries(run_id)],
        checks=[dict(r) for r in store.checks(run_id)],
        cases=list(cases.values()),
        code_sizes=[dict(r) for r in store.code_sizes(run_id)],
        rounds=rounds,
        board_profile=store.board_profile(run_id),
    )


def board_profile_line(data: RunData) -> str | None:
    """The cycle model's board as the run stored it (its name, core, clock, wait states, where from)."""
    row = data.board_profile
    if row is None:  # a run stored before profiles were: the profile it names, as it reads now
        ref = data.run.plan.get("method", {}).get("env", {}).get(cyclemodel.MODEL_ENV)
        if not ref:
            return None
        try:
            return f"{boardprofiles.resolve(ref).described()}; read now, not stored with this run"
        except PlanError as e:
            return f"{ref} (not stored with this run, and it does not load now: {e})"
    try:
        return boardprofiles.from_stored(row["name"], row["origin"], row["text"]).described()
    except PlanError as e:  # stored by a tlsbench whose checks were looser
        return f"{row['name']} (sha256 {row['sha256'][:16]}; the stored text does not load now: {e})"


def model_profile(data: RunData) -> boardprofiles.Profile | None:
    """The stored profile, parsed (None: no model, a run stored before profiles were, or one that no
    longer loads)."""
    row = data.board_profile
    if row is None:
        return None
    try:
        return boardprofiles.from_stored(row["name"], row["origin"], row["text"])
    except PlanError:
        return None


def model_core(data: RunData) -> str | None:
    """The core class whose cycle model the run used (None: no model, or a profile that no longer loads)."""
    profile = model_profile(data)
    if profile is not None:
        return profile.core
    ref = data.run.plan.get("method", {}).get("env", {}).get(cyclemodel.MODEL_ENV)
    if not ref:
        return None
    try:
        return boardprofiles.resolve(ref).core
    except PlanError:
        return None


def model_error_line(data: RunData) -> str | None:
    """The measured error of the run's model core, said beside its model figures ("not measured" when none)."""
    core = model_core(data)
    return modelerror.sentence(core) if core else None


def model_error_short(data: RunData) -> str:
    """The same in a few words, for a cell ("" without a model)."""
    core = model_core(data)
    return modelerror.short(core) if core else ""


NOISY_MARK = "(noisy)"
VARIES_MARK = "(varies)"


def varies(r: dict) -> bool:
    """An exact count whose repeats differ (state a library keeps from one
    call to the next): shown as varying with its range, never as exact."""
    return r["n"] > 1 and metrics.reported_as(r["metric"], r["min"], r["max"]) == "varies"


def varying_counts(data: RunData) -> list[tuple[str, str, float, float]]:
    """(case, metric, min, max) of every exact count whose repeats differ."""
    return [(c["name"], m, r["min"], r["max"]) for c in data.cases if c["status"] == "ok"
            for m, r in c["results"].items() if varies(r)]


def _range(r: dict) -> str:
    return f" {VARIES_MARK} {r['min']:,.0f}..{r['max']:,.0f}" if varies(r) else ""
DRIFT_MARK = "(drift)"
DRIFT_METRIC = "wall_ns"  # the timed metric whose rounds are compared
SLOW_MARK = "(slow phase)"


# what the static RAM column holds (families/size/maps.py: .stacks counts as RAM)
CODE_SIZE_NOTE = ("static RAM: .data + .bss, and in the tlsbench core + platform line the harness's painted"
                  " stacks; not the heap")


def features_label(firmware: bool) -> str:
    """What the recorded CPU features are: on the host the code paths the
    libraries take; on a firmware target only the emulator's machine's."""
    return ("host CPU features (not the firmware's)" if firmware
            else "CPU features the libraries dispatch on")


def marks(case: dict | None, metric: str) -> list[str]:
    """The flags one figure carries in every format (tables, HTML, charts):
    (noisy) when this noisy metric's spread exceeds stats.NOISE_LIMIT, (drift)
    when the case's rounds differ, (slow phase) when a round of it ran while
    the reference workload was slow. Exact counts are never noisy: they get
    (varies) when their repeats differ."""
    if not case or case.get("status") != "ok":
        return []
    r = case["results"].get(metric)
    if metrics.is_exact(metric):  # a count the machine's pace does not move: only its repeats can differ
        return [VARIES_MARK] if r is not None and varies(r) else []
    out = []
    if r is not None and stats.is_noisy(r["median"], r["stdev"]):
        out.append(NOISY_MARK)
    if (case.get("round_drift") or 0) > stats.DRIFT_LIMIT:
        out.append(DRIFT_MARK)
    if case.get("slow_rounds"):
        out.append(SLOW_MARK)
    return out


def drifting_cases(data: RunData) -> list[tuple[str, float]]:
    """(case, drift) of every case whose rounds' medians differ by more than
    stats.DRIFT_LIMIT of its median (stats.round_drift)."""
    return [(c["name"], c["round_drift"]) for c in data.cases
            if c.get("round_drift") is not None and c["round_drift"] > stats.DRIFT_LIMIT]


def slow_rounds(data: RunData) -> dict[str, int]:
    """Per case: its rounds measured while the reference workload was slow
    (pacing.py: still slow after being measured again); cases without none."""
    out: dict[str, int] = {}
    for r in data.rounds:
        if r["slow"]:
            out[r["name"]] = out.get(r["name"], 0) + 1
    return out


def noisy_cases(data: RunData) -> list[tuple[str, str, float]]:
    """(case, metric, stdev/median) of every noisy metric whose spread exceeds
    stats.NOISE_LIMIT; exact counts are never noisy."""
    out = []
    for c in data.cases:
        for metric, r in c["results"].items():
            if not metrics.is_exact(metric) and stats.is_noisy(r["median"], r["stdev"]):
                out.append((c["name"], metric, r["stdev"] / abs(r["median"])))
    return out


def noise_lines(data: RunData) -> list[str]:
    """The warning every format prints when some figure is noisy: how many, the worst, what to do."""
    out = []
    noisy = noisy_cases(data)
    if noisy:
        worst = sorted(noisy, key=lambda x: -x[2])[:5]
        out.append(f"noisy: {len(noisy)} figure(s) have a spread (stdev/median) over {100 * stats.NOISE_LIMIT:g}%,"
                   f" marked {NOISY_MARK}; worst: " + ", ".join(f"{n} {m} ±{100 * s:.0f}%" for n, m, s in worst)
                   + f"; {stats.NOISE_ADVICE}")
    varying = varying_counts(data)
    if varying:
        out.append(f"varies: {len(varying)} exact count(s) differ between the repeats of their case, marked"
                   f" {VARIES_MARK} in firmware cells with their range (median shown): randomness drawn (on the"
                   " host, from the OS) or state the library keeps from one call to the next (on firmware, Mbed"
                   " TLS's RSA blinding values drawn per operation), not measurement noise; e.g. "
                   + ", ".join(f"{n} {m} {lo:,.0f}..{hi:,.0f}" for n, m, lo, hi in varying[:3]))
    drifting = drifting_cases(data)
    if drifting:
        worst_d = sorted(drifting, key=lambda x: -x[1])[:5]
        out.append(f"drift: {len(drifting)} case(s) whose rounds' median {DRIFT_METRIC} differ by more than"
                   f" {100 * stats.DRIFT_LIMIT:g}% of the median (the machine changed during the run), marked"
                   f" {DRIFT_MARK}; worst: " + ", ".join(f"{n} {100 * d:.0f}%" for n, d in worst_d)
                   + f"; {stats.NOISE_ADVICE}")
    return out


def clockless(cases: list[dict]) -> bool:
    """A run without a clock (firmware under QEMU: exact instruction counts):
    no case measured a noisy metric the registry calls a time, so legends and
    charts speak of counts, never of a time. TLS cases count too: a firmware
    TLS-only run has per-side instructions and no time at all."""
    ok = [c for c in cases if c["status"] == "ok"]
    # a model's time (model_time_ns: exact, derived from instructions) is no clock
    return bool(ok) and not any(metrics.display(m) == "time" and not metrics.is_exact(m)
                                for c in ok for m in c["results"])


# a cell whose case was copied from an earlier measurement (the result cache of exact counts)
REUSED_MARK = "[reused]"


def cell(case: dict, metric: str | None = None, model_error: str = "") -> str:
    """A case's cell: its figures (or why it has none), the core's measured model error beside a model
    figure, marked when reused from the result cache."""
    text = _cell_text(case, metric, model_error)
    return f"{text} {REUSED_MARK}" if case.get("reused_from") is not None else text


def _cell_text(case: dict, metric: str | None = None, model_error: str = "") -> str:
    if case["status"] != "ok":
        return STATUS_TEXT.get(case["status"], case["status"])
    res = case["results"]
    if metric is not None:
        r = res.get(metric)
        if r is None:
            return "not measured"
        if metric in metrics.REGISTRY:  # its unit and format from the registry
            return metrics.format_value(metric, r["median"])
        return f"{r['median']:.4g} {r['unit']}"
    if "flash_bytes" in res and "ram_bytes" in res:  # a size probe (tlsbench sizes)
        return f"{res['flash_bytes']['median']:,.0f} B flash, {res['ram_bytes']['median']:,.0f} B RAM"
    if tls_names.is_baseline(case["alg"]) and "transaction_wall_ns" in res:  # the plain TCP baseline
        return (f"TCP {format_time(res['transaction_wall_ns']['median'])} per request/response"
                f" ({format_time(res['connect_wall_ns']['median'])} connect),"
                f" {res['total_c2s_bytes']['median']:.0f}+{res['total_s2c_bytes']['median']:.0f} B")
    if "client_min_heap_bytes" in res or "server_min_heap_bytes" in res:  # the minimum-RAM search
        def b(metric: str) -> str:
            return f"{res[metric]['median']:,.0f}" if metric in res else "n/m"
        return (f"min heap C {b('client_min_heap_bytes')} / S {b('server_min_heap_bytes')} B"
                f" (uncapped peak {b('client_conn_heap_peak_bytes')} / {b('server_conn_heap_peak_bytes')}),"
                f" stack C {b('client_stack_bytes')} / S {b('server_stack_bytes')} B"
                + (f", fragment {b('negotiated_max_frag_bytes')} B" if "negotiated_max_frag_bytes" in res else ""))
    if "transactions_per_s" in res:  # TLS server capacity
        return f"{res['transactions_per_s']['median']:,.0f} transactions/s"
    if "c2s_bytes" in res and ("client_instructions" in res or "server_instructions" in res):
        # a TLS case on firmware: exact instructions per side (one side on the device: the other is the host's,
        # not measured), bytes each way
        def count(metric: str) -> str:
            return f"{res[metric]['median']:,.0f}{_range(res[metric])}" if metric in res else "host"

        def model_time(side: str) -> str:
            metric = f"{side}_model_time_ns"
            return format_time(res[metric]["median"]) if metric in res else "host"
        modelled = "client_model_time_ns" in res or "server_model_time_ns" in res
        return (f"C {count('client_instructions')} / S {count('server_instructions')}"
                f" instructions, {res['c2s_bytes']['median']:.0f}+{res['s2c_bytes']['median']:.0f} B"
                + (f", {res['round_trips']['median']:.0f} RTT" if "round_trips" in res else "")
                + (f"; model C {model_time('client')} / S {model_time('server')}"
                   + (f" ({model_error})" if model_error else "") if modelled else ""))
    if "c2s_bytes" in res and ("client_cpu_ns" in res or "server_cpu_ns" in res):
        # a TLS case: CPU per side (a foreign peer's is not measured), bytes each way
        def side(metric: str) -> str:
            return format_time(res[metric]["median"]) if metric in res else "not measured (foreign)"
        text = (f"C {side('client_cpu_ns')} / S {side('server_cpu_ns')},"
                f" {res['c2s_bytes']['median']:.0f}+{res['s2c_bytes']['median']:.0f} B")
        if "round_trips" in res:
            text += f", {res['round_trips']['median']:.0f} RTT"
        for wall in ("handshake_wall_ns", "server_handshake_wall_ns"):  # over TCP: to handshake complete
            if wall in res:
                text += f", {format_time(res[wall]['median'])} wall"
                break
        return text
    if "wall_ns" not in res and "instructions" in res:  # firmware: exact counts, no clock
        n = res["instructions"]["median"]
        per_byte = f" ({n / case['size']:,.1f}/B)" if case.get("size") else ""
        model = res.get("model_time_ns")
        if model is not None:  # a board profile's cycle model ran along
            cycles = res["model_cycles"]["median"]
            per_byte += f"; model {cycles:,.0f} cycles = {format_time(model['median'])}"
            if model_error:
                per_byte += f" ({model_error})"
        return f"{n:,.0f} instructions{_range(res['instructions'])}{per_byte}"
    if "wall_ns" not in res and "cycles" in res:  # a real board's cycle counter
        return f"{res['cycles']['median']:,.0f} cycles"
    wall = res["wall_ns"]
    sp = stats.spread(wall["median"], wall["stdev"])
    spread = "" if sp is None else f" ±{100 * sp:.1f}%" + (f" {NOISY_MARK}" if sp > stats.NOISE_LIMIT else "")
    if (case.get("round_drift") or 0) > stats.DRIFT_LIMIT:
        spread += f" {DRIFT_MARK}"
    if "throughput" in res:
        return f"{format_rate(res['throughput']['median'])}{spread}"
    return f"{format_time(wall['median'])}{spread}"


def code_size_table(data: RunData) -> tuple[list[str], list[list[str]]]:
    """Firmware runs: flash (text + rodata + data) and static RAM (data +
    bss) per library image, per component, from the linker map."""
    profiles = data.run.machine.get("profiles") or {}
    header = ["library", "build profile", "component", "flash bytes", "static RAM bytes"]
    body = [[r["library"], profiles.get(r["library"], "default"), r["component"], f"{r['flash_bytes']:,}",
             f"{r['ram_bytes']:,}"] for r in data.code_sizes]
    return header, body


def is_handshake(case: dict) -> bool:
    """A case its family shows in the handshake views (the TLS tables and charts)."""
    return case["kind"] in registry.kinds_with(HANDSHAKES)


def has_fits(data: RunData) -> bool:
    """The run has cases its family shows in the fits view (report.fits)."""
    return any(c["kind"] in registry.kinds_with(FITS) for c in data.cases)


def pivot(data: RunData, metric: str | None = None) -> tuple[list[str], list[list[str]]]:
    """Rows: kind/alg/op/size; columns: libraries. Cells: median throughput
    (sized operations) or median time per operation, with stdev/median; or
    the median of another metric (heap_peak_bytes, stack_bytes, ...)."""
    libs = list(dict.fromkeys(c["library"] for c in data.cases))
    band = model_error_short(data)
    rows: dict[tuple, dict[str, str]] = {}
    for c in data.cases:
        key = (c["kind"], c["alg"], c["op"], c["size"])
        rows.setdefault(key, {})[c["library"]] = cell(c, metric, band)
    header = ["kind", "algorithm", "op", "size"] + libs
    body = [
        [k[0], k[1], k[2], "" if k[3] is None else str(k[3])] + [cells.get(lib, "-") for lib in libs]
        for k, cells in rows.items()
    ]
    return header, body


def interop(data: RunData) -> tuple[list[str], list[list[str]]]:
    """The interop matrix of TCP cases: a row per suite, variant and client
    library, a column per server; a cell says ok (with the client's handshake
    wall time) or why it failed."""
    servers: list[str] = []
    rows: dict[tuple, dict[str, str]] = {}
    for c in data.cases:
        if not is_handshake(c):
            continue
        server = tls_names.server_of(c["alg"], c["op"], c["library"])
        if server is None or tls_names.is_capacity(c["alg"], c["op"]):
            continue
        if server not in servers:
            servers.append(server)
        variant = tls_names.TlsVariant.parse(c["op"]).peers_removed(c["alg"])
        key = (c["alg"], variant, tls_names.client_of(c["alg"], c["op"], c["library"]))
        if c["status"] == "ok":
            wall = c["results"].get("handshake_wall_ns") or c["results"].get("server_handshake_wall_ns")
            text = "ok" + (f" {format_time(wall['median'])}" if wall else "")
        elif c["status"] == "unsupported":
            text = "unsupported: " + (c["reason"] or "")[:60]
        else:
            text = "FAILS: " + (c["reason"] or "").removeprefix("handshake failed: ")[:80]
        rows.setdefault(key, {})[server] = text
    header = ["suite", "variant", "client \\ server", *servers]
    body = [[*k, *(cells.get(s, "-") for s in servers)] for k, cells in rows.items()]
    return header, body


TLS_TIME_COLUMNS = (  # (header, metric or the first of these that was measured)
    ("client CPU", "client_cpu_ns"), ("server CPU", "server_cpu_ns"),
    ("wall", ("handshake_wall_ns", "exchange_wall_ns")),
)
TLS_INSTRUCTION_COLUMNS = (  # firmware: exact counts instead of clocks
    ("client instructions", "client_instructions"), ("server instructions", "server_instructions"),
)
TLS_MODEL_COLUMNS = (  # a board profile's cycle model, beside the instructions it is computed from
    ("client model cycles", "client_model_cycles"), ("server model cycles", "server_model_cycles"),
    ("client model time", "client_model_time_ns"), ("server model time", "server_model_time_ns"),
)
TLS_COLUMNS = (*TLS_TIME_COLUMNS,
    ("C->S B", "c2s_bytes"), ("S->C B", "s2c_bytes"), ("RTT", "round_trips"),
    ("C heap peak", "client_heap_peak_bytes"), ("S heap peak", "server_heap_peak_bytes"),
    ("C heap held", "client_heap_held_bytes"), ("S heap held", "server_heap_held_bytes"),
    ("C stack", "client_stack_bytes"), ("S stack", "server_stack_bytes"),
    ("bulk", "bulk_throughput_per_s"),
)


def _tls_value(res: dict, metric: str | tuple[str, ...]) -> str:
    for m in (metric,) if isinstance(metric, str) else metric:
        if m in res:
            v = res[m]["median"]
            how = metrics.display(m)
            text = format_time(v) if how == "time" else format_rate(v) if how == "rate" else f"{v:,.0f}"
            # an exact count whose repeats differ is marked in the cell, as in the other tables
            return f"{text} {VARIES_MARK}" if metrics.is_exact(m) and varies(res[m]) else text
    return "n/m"  # not measured for this case (e.g. a foreign server's side)


def tls_table(data: RunData) -> tuple[list[str], list[list[str]]]:
    """A row per TLS case: medians per side (CPU, bytes, round trips, heap,
    stack, bulk throughput); a case that did not run says why."""
    firmware = any("client_instructions" in c["results"] and "client_cpu_ns" not in c["results"]
                   for c in data.cases)
    model = TLS_MODEL_COLUMNS if has_tls_model(data) else ()
    columns = ((*TLS_INSTRUCTION_COLUMNS, *model, *TLS_COLUMNS[len(TLS_TIME_COLUMNS):]) if firmware
               else TLS_COLUMNS)
    # the reason a case did not run goes to the last column, not into a number column
    header = ["suite", "variant", "library", *(h for h, _m in columns), "note"]
    body = []
    for c in data.cases:
        if not is_handshake(c) or tls_names.is_baseline(c["alg"]) or tls_names.is_capacity(c["alg"], c["op"]):
            continue
        row = [c["alg"], c["op"], c["library"]]
        if c["status"] != "ok":
            why = (c["reason"] or "").removeprefix("handshake failed: ")
            body.append(row + [STATUS_TEXT.get(c["status"], c["status"])] + [""] * (len(columns) - 1) + [why[:100]])
            continue
        note = REUSED_MARK if c.get("reused_from") is not None else ""
        body.append(row + [_tls_value(c["results"], m) for _h, m in columns] + [note])
    return header, body


TLS_MODEL_LEGEND = ("model cycles and model time per side: a model, the board profile's cycle model applied to the"
                    " side's instructions, not a measurement (its error against real boards: docs/cycle-model.md,"
                    " Validation)")


def has_tls_model(data: RunData) -> bool:
    """Some TLS case of the run carries a side's model cycles."""
    return any(m in c["results"] for c in data.cases if is_handshake(c) for _h, m in TLS_MODEL_COLUMNS[:2])


def has_model(data: RunData) -> bool:
    """The run was made with a board profile's cycle model."""
    return data.board_profile is not None or cyclemodel.MODEL_ENV in data.run.plan.get("method", {}).get("env", {})


def counters_missing(data: RunData, lib: dict) -> dict[str, str]:
    """A library's counters the target could not measure, and why; in a model run the emulator's missing
    cycle counter is said beside the model that stands in for it."""
    missing = json.loads(lib["counters_missing_json"])
    if "cycles" in missing and has_model(data):
        missing["cycles"] = ("the emulator counts no core cycles; model_cycles and model time are the board"
                             " profile's cycle model, computed from the instructions")
    return missing


def tls_extras(data: RunData) -> tuple[list[str], list[list[str]]]:
    """Capacity and TCP baseline cases: a line each."""
    body = []
    for c in data.cases:
        if is_handshake(c) and (tls_names.is_baseline(c["alg"]) or tls_names.is_capacity(c["alg"], c["op"])):
            body.append([c["alg"], c["op"], c["library"], cell(c)])
    return ["suite", "variant", "library", "result"], body


def aligned(header: list[str], body: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in [header, *body]) for i in range(len(header))]
    fmt = lambda r: "  ".join(v.ljust(w) for v, w in zip(r, widths, strict=False)).rstrip()  # noqa: E731
    return "\n".join([fmt(header), fmt(["-" * w for w in widths]), *map(fmt, body)])


_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]|#])")


def markdown_text(text: str) -> str:
    """Text shown as itself in Markdown: a stored name (a plan's, a label's) may hold raw HTML or
    Markdown syntax; neither is interpreted by a Markdown viewer."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", html.escape(text, quote=False))


def markdown(header: list[str], body: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in body]
    return "\n".join(lines)


def user_build_lines(user: dict, bullet: str) -> list[str]:
    """The user's config files (path, how applied, SHA-256, each line of the text) and compiler options."""
    out = []
    for lib, c in sorted(user.get("configs", {}).items()):
        how = "the whole configuration" if c["full"] else "layered over ours"
        out.append(f"{bullet}{lib} your configuration: {c['path']} ({how}), sha256 {c['sha256']}")
        out += [f"{bullet}    {line.rstrip()}" for line in c["text"].splitlines() if line.strip()]
    if user.get("cflags"):
        out.append(f"{bullet}your compiler options: {' '.join(user['cflags'])}")
    return out


def context_lines(data: RunData, md: bool) -> list[str]:
    r = data.run
    m = r.machine
    status = (r.status if r.status == "complete"
              else f"{r.status}: no case came out ok (the reasons are in the table)" if r.status == NOTHING_MEASURED
              else f"{r.status} (incomplete: tlsbench run --resume {r.id})")
    bullet = "- " if md else "  "
    method = r.plan["method"]
    firmware = "board" in m
    sampling = ("one operation per sample (exact counts)" if firmware
                else f"samples of >= {method['min_sample_ms']} ms")
    out = [
        (f"## tlsbench run {r.id}: plan {markdown_text(r.plan_name)}, target {markdown_text(r.target)}, {status}"
         if md else f"tlsbench run {r.id}: plan {r.plan_name}, target {r.target}, {status}"),
        f"{bullet}{'host ' if firmware else ''}machine: {m.get('cpu_model')} ({m.get('cores')} cores;"
        f" {features_label(firmware)}: {', '.join(m.get('cpu_flags', [])) or 'none recorded'}),"
        f" {m.get('os')}, kernel {m.get('kernel')}",
    ]
    if firmware:
        out.append(f"{bullet}board: {m['board']} ({m.get('board_cpu')}, {m.get('board_ram_bytes', 0) // 1024} KiB RAM),"
                   f" counter: {m.get('board_counter')}"
                   + (f"; {m['emulator']} {m.get('emulator_options', '')}" if "emulator" in m else "")
                   + f"; built with {m.get('cross_compiler')}, "
                   + (f"picolibc {m['picolibc']}" if "picolibc" in m else f"newlib {m.get('newlib')}"))
    if "size_probes" in method:  # tlsbench sizes: no sampling, images measured
        out.append(f"{bullet}tlsbench {r.tlsbench_version}; method: {method['size_probes']}")
    else:
        out.append(f"{bullet}tlsbench {r.tlsbench_version}; method: {method['repeats']} repeats in"
                   f" {method.get('rounds', 1)} round(s) over the plan, warm-up {method['warmup']} per round,"
                   f" outliers {method['outliers']}, {sampling}")
    board_line = board_profile_line(data)
    if board_line:
        out.append(f"{bullet}board profile of the cycle model: {board_line}")
    if (error_line := model_error_line(data)) is not None:
        out.append(f"{bullet}model error: {error_line}")
    if method.get("env"):
        out.append(f"{bullet}environment of the run's processes: "
                   + " ".join(f"{k}={v}" for k, v in sorted(method["env"].items())))
    out += user_build_lines(m.get("user_build") or {}, bullet)
    for lib in data.libraries:
        out.append(f"{bullet}{lib['library']}: {lib['version']} [{lib['source']}]")
        if firmware:  # the profile, optimisation and seed make firmware numbers what they are
            out.append(f"{bullet}{lib['library']} build: {lib['config']}")
    missing: dict[str, str] = {}
    for lib in data.libraries:
        missing.update(counters_missing(data, lib))
    for counter, why in sorted(missing.items()):
        out.append(f"{bullet}{counter}: not measured on this {'target' if firmware else 'machine'} ({why})")
    no_room_checks = {(c["library"], c["alg"]) for c in data.cases if c["status"] == "does_not_fit"}
    for c in data.checks:
        if c["status"] == "fail" and (c["library"], c["alg"]) not in no_room_checks:
            out.append(f"{bullet}CHECK FAILED, not timed: {c['library']} {c['alg']}: {c['detail']}")
    no_room: dict[str, list[str]] = {}  # reason -> cases: a too-big image is one reason for many cases
    for c in data.cases:
        if c["status"] == "does_not_fit":
            no_room.setdefault(f"{c['library']}: {c['reason']}", []).append(c["name"])
    for why, names in list(no_room.items())[:20]:
        out.append(f"{bullet}DOES NOT FIT: {why}" + (f" ({len(names)} cases)" if len(names) > 1 else f" ({names[0]})"))
    if data.rounds:  # a host run's rounds were paced: how steady the machine was through it
        out.append(f"{bullet}{steadiness.run_line(data.rounds)}")
    slow = [r for r in data.rounds if r["slow"]]
    if slow:  # pacing.py: still slower than the threshold after being measured again
        names = sorted({r["name"] for r in slow})
        out.append(f"{bullet}SLOW PHASE: {len(slow)} of {len(data.rounds)} rounds ran while the reference workload"
                   f" was slow (after measuring again), in {len(names)} cases: {', '.join(names[:5])}"
                   + (" ..." if len(names) > 5 else ""))
    reused = [c for c in data.cases if c.get("reused_from") is not None]
    if reused:
        out.append(f"{bullet}REUSED: {len(reused)} of {len(data.cases)} cases reused from the result cache, marked"
                   f" {REUSED_MARK}: an earlier measurement with the same image, emulator, cycle-model plugin, board"
                   " profile, requests and protocol (exact counts; tlsbench run --no-cache measures them again)")
    failed = [c for c in data.cases if c["status"] == "failed"]
    for c in failed[:20]:
        out.append(f"{bullet}FAILED: {c['name']}: {c['reason']}")
    if len(failed) > 20:
        out.append(f"{bullet}... and {len(failed) - 20} more failed cases")
    return out


def render(data: RunData, fmt: str, metric: str | None = None, view: str = views.CASES) -> str:
    if view == views.TLS and fmt in ("table", "markdown"):
        md = fmt == "markdown"
        bullet = "- " if md else "  "
        render_t = markdown if md else aligned
        legend = (f"{bullet}TLS cases: medians per handshake; CPU is each side's thread CPU time in the library,"
                  " wall is the client's time to handshake complete (TCP) or of the handshake and 64-byte"
                  " request/response (memory); bytes and round trips from the exchange; heap and stack per side"
                  " (n/m: not measured for this case, e.g. the side of a foreign server)")
        if has_tls_model(data):
            legend += f"\n{bullet}{TLS_MODEL_LEGEND}"
        out = "\n".join([*context_lines(data, md), legend]) + "\n\n" + render_t(*tls_table(data)) + "\n"
        out += "".join(f"\n{bullet}{line}\n" for line in noise_lines(data))
        extras = tls_extras(data)
        if extras[1]:
            out += "\n" + render_t(*extras) + "\n"
        return out
    if view == views.INTEROP and fmt in ("table", "markdown"):
        header, body = interop(data)
        md = fmt == "markdown"
        table = markdown(header, body) if md else aligned(header, body)
        bullet = "- " if md else "  "
        legend = (f"{bullet}interop over loopback TCP: each client library against each server;"
                  " ok with the median handshake wall time (the client's; the server's against a client tool),"
                  " or the failure with its reason")
        table = table if body else "(no TCP cases in this run)"
        return "\n".join([*context_lines(data, md), legend]) + "\n\n" + table + "\n"
    if fmt in ("table", "markdown"):
        header, body = pivot(data, metric)
        md = fmt == "markdown"
        table = markdown(header, body) if md else aligned(header, body)
        has_tls = any(is_handshake(c) for c in data.cases)
        firmware = clockless(data.cases)
        sizes = any("flash_bytes" in c["results"] for c in data.cases)
        legend = ("cells: flash (text + rodata + data) and static RAM (data + bss) the primitive adds to an"
                  " empty image: library code and tables, and the C runtime it reaches (not tlsbench's own"
                  " platform code); heap and stack are measured per operation elsewhere" if sizes and metric is None
                  else "cells: instructions per operation, median of the repeats, per byte for sized operations"
                  + ("; tls: instructions per handshake of the client (C) and the server (S), handshake bytes"
                     " client->server + server->client, round trips" if has_tls else "")
                  + ". " + metrics.INSTRUCTIONS_NOTE
                  if firmware and metric is None else
                  "cells: median throughput for sized operations (MB/s = 10^6 B/s; sizes in KiB = 1,024 B),"
                  " otherwise median wall time per operation; ±: stdev/median of the kept samples"
                  + ("; tls: median CPU time per handshake of the client (C) and the server (S), handshake"
                     " bytes client->server + server->client, round trips" if has_tls else "")
                  if metric is None else
                  f"cells: median {metric} per operation (heap and stack from one untimed pass per round)")
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
                    + fits_view.render(fits_view.fits(data.cases, data.code_sizes), markdown if md else aligned, md))
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
