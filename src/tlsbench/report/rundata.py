"""A stored run as the reports read it (RunData) and what its cycle model says of itself: the board
profile it stored, its core and that core's measured error."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from tlsbench.engine import metrics, stats
from tlsbench.engine.case import split_repeats
from tlsbench.engine.store import RunInfo, Store
from tlsbench.errors import PlanError
from tlsbench.targets import boardprofiles, cyclemodel, modelerror
from tlsbench.targets.target import is_host

DRIFT_METRIC = "wall_ns"  # the timed metric whose rounds are compared


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
        cases[r["name"]]["results"][r["metric"]] = {
            **dict(r), "reported_as": metrics.reported_as(r["metric"], r["min"], r["max"]),
            "estimator": metrics.headline_estimator(r["metric"], is_host(run.target))}  # which column is its figure
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


def timed_headline(data: RunData) -> str | None:
    """What a host run's timed figures are, for a legend ("min of 6 samples"); None for a run whose
    figures stay medians (a firmware target)."""
    if metrics.headline_estimator("wall_ns", is_host(data.run.target)) == "median":  # the target's timings stay medians
        return None
    repeats = int(data.run.plan.get("method", {}).get("repeats", 0)) or None
    return metrics.estimator_label("min", repeats)
