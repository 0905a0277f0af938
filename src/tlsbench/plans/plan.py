"""Benchmark plans: TOML files (or presets, or command-line flags).

A plan has these tables:

  [select]  libraries, kinds, and the families' own keys (algorithms, ops, sizes)   (what to measure)
  [method]  warmup, repeats, outliers, min_sample_ms, timeout_s   (how)
  a family's own table ([tls])

and an optional top-level ``name`` and ``description``. The families own
their keys (families.registry, each family's plan_section); this module
names none. Every mistake is an error naming the file, the line and the
allowed values.
"""

from __future__ import annotations

import difflib
import math
import tomllib
from pathlib import Path

from tlsbench import paths, versions
from tlsbench.engine import timed_cpu
from tlsbench.engine.stats import POLICY_HELP, parse_policy
from tlsbench.errors import PlanError
from tlsbench.families import registry
from tlsbench.plans import model
from tlsbench.plans.checks import Locator, check_list, check_unknown
from tlsbench.plans.model import Method, PlanSection, Schema
from tlsbench.plans.runenv import check_env
from tlsbench.plans.where import TARGET_KINDS

__all__ = ["PLAN_KINDS", "Locator", "Method", "Plan", "load_plan", "load_preset", "parse_plan", "validate"]

# the families' parts of a plan: their sections (one each, or shared), the kinds a plan selects
SCHEMA = Schema(
    sections=registry.plan_sections(),
    kinds=tuple(k for f in registry.FAMILIES for k in f.plan_kinds),
    default_kinds=tuple(k for f in registry.FAMILIES for k in f.default_kinds),
)
PLAN_KINDS = SCHEMA.kinds


class Plan(model.Plan):
    """A plan with the registered families' sections (plans.model)."""

    schema = SCHEMA


def _select_sections() -> tuple[PlanSection, ...]:
    return tuple(s for s in SCHEMA.sections if s.table is None)


def _table_sections() -> tuple[PlanSection, ...]:
    return tuple(s for s in SCHEMA.sections if s.table is not None)


_SELECT_KEYS = {
    "libraries": "list of library names",
    "kinds": "list of kinds",
    **{k: v for s in _select_sections() for k, v in s.keys.items()},
}
_METHOD_KEYS = {
    "warmup": "integer 0..1000",
    "repeats": "integer 1..100000",
    "outliers": POLICY_HELP,
    "min_sample_ms": "number > 0 and <= 60000 (milliseconds one sample lasts at least)",
    "timeout_s": "number > 0 and <= 86400 (seconds before a hanging case is killed)",
    "rounds": "integer 1..repeats, at most 1000 (passes over the plan that share a case's repeats)",
    "env": "table of environment variables (NAME = \"value\") for every process the run starts",
    "allow_loader_env": "boolean: let env set LD_* and PATH (they change which code is measured)",
    "cpu": timed_cpu.HELP,
}
# [method] numbers, for plan files and command-line flags alike:
# name -> (integer, lowest, lowest itself allowed, highest)
METHOD_BOUNDS: dict[str, tuple[bool, float, bool, float]] = {
    "warmup": (True, 0, True, 1000),
    "repeats": (True, 1, True, 100_000),
    "rounds": (True, 1, True, 1000),
    "min_sample_ms": (False, 0, False, 60_000),
    "timeout_s": (False, 0, False, 86_400),
}
_TOP_KEYS = {"name": "string", "description": "string", "select": "table", "method": "table",
             **{s.table: "table" for s in _table_sections() if s.table},
             "targets": "list of where the plan runs: host, firmware",
             "target_note": "string (why the plan does not run on the other kind of target)",
             "target_instead": "string (the preset that runs on the other kind of target)"}


def _check_libraries(loc: Locator, table: str, key: str, value: object) -> list[str]:
    """Library identifiers: a bare name (its default version) or name@version."""
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise loc.error(table, key, f"must be a list of strings; allowed: {', '.join(versions.identifiers())}")
    for v in value:
        if versions.base(v) not in versions.VERSIONS:  # the nearest library names, then every version allowed
            near = difflib.get_close_matches(v, list(versions.VERSIONS), n=3, cutoff=0.5)
            hint = f" (did you mean {', '.join(near)}?)" if near else ""
            raise loc.error(table, key, f"unknown value {v!r}{hint}; allowed: {', '.join(versions.identifiers())}")
        if versions.problem(v):
            raise loc.error(table, key, versions.problem(v))
    chosen = [versions.canonical(v) for v in value]
    if len(set(chosen)) != len(chosen):
        raise loc.error(table, key, "lists a library version twice")
    return chosen


def parse_plan(text: str, source: str = "<plan>") -> Plan:
    loc = Locator(source, text)
    try:
        data = tomllib.loads(text)
    except ValueError as e:  # TOMLDecodeError, and dates out of range
        raise PlanError(f"{source}: not valid TOML: {e}") from e
    except RecursionError:
        raise PlanError(f"{source}: not a plan: arrays or tables nested too deeply") from None
    check_unknown(loc, None, data, _TOP_KEYS)
    plan = Plan()
    for key in ("name", "description", "target_note", "target_instead"):
        if key in data:
            if not isinstance(data[key], str):
                raise loc.error(None, key, "must be a string")
            setattr(plan, key, data[key])
    if "targets" in data:
        plan.targets = check_list(loc, None, "targets", data["targets"], list(TARGET_KINDS))
        if not plan.targets:
            raise loc.error(None, "targets", f"must name at least one of: {', '.join(TARGET_KINDS)}")
    select = data.get("select", {})
    method = data.get("method", {})
    tables = {s.table: data.get(s.table, {}) for s in _table_sections() if s.table}
    for table, value in (("select", select), ("method", method), *tables.items()):
        if not isinstance(value, dict):
            raise loc.error(None, table, "must be a table")
    check_unknown(loc, "select", select, _SELECT_KEYS)
    check_unknown(loc, "method", method, _METHOD_KEYS)
    for section in _table_sections():
        check_unknown(loc, section.table, tables[section.table], section.keys)  # type: ignore[index]
    for section in _table_sections():
        section.parse(loc, tables[section.table], plan)  # type: ignore[index]
    if "libraries" in select:
        plan.libraries = _check_libraries(loc, "select", "libraries", select["libraries"])
    if "kinds" in select:
        plan.kinds = check_list(loc, "select", "kinds", select["kinds"], list(PLAN_KINDS))
    for section in _select_sections():
        section.parse(loc, select, plan)
    m = plan.method
    for key in METHOD_BOUNDS:
        if key in method:
            problem = method_value_problem(key, method[key])
            if problem:
                raise loc.error("method", key, problem)
            setattr(m, key, method[key] if METHOD_BOUNDS[key][0] else float(method[key]))
    if "allow_loader_env" in method:
        if not isinstance(method["allow_loader_env"], bool):
            raise loc.error("method", "allow_loader_env", "must be true or false")
        m.allow_loader_env = method["allow_loader_env"]
    if "cpu" in method:
        problem = timed_cpu.setting_problem(method["cpu"])
        if problem:
            raise loc.error("method", "cpu", problem)
        m.cpu = str(method["cpu"])
    if "outliers" in method:
        if not isinstance(method["outliers"], str):
            raise loc.error("method", "outliers", f"must be a string: {POLICY_HELP}")
        try:
            parse_policy(method["outliers"])
        except PlanError as e:
            raise loc.error("method", "outliers", str(e)) from None
        m.outliers = method["outliers"]
    if "env" in method:
        try:
            m.env = check_env(method["env"], m.allow_loader_env)
        except PlanError as e:
            raise loc.error("method", "env", str(e)) from None
    validate(plan, loc)
    return plan


def method_value_problem(key: str, value: object) -> str | None:
    """Why a [method] number is not allowed (None when it is)."""
    integer, lowest, lowest_ok, highest = METHOD_BOUNDS[key]
    ok_type = isinstance(value, int) if integer else isinstance(value, (int, float))
    if (isinstance(value, bool) or not ok_type or not math.isfinite(value)  # type: ignore[arg-type]
            or not lowest <= value <= highest or (value == lowest and not lowest_ok)):  # type: ignore[operator]
        return f"must be {_METHOD_KEYS[key]}, got {value!r}"
    return None


def validate(plan: Plan, loc: Locator | None = None) -> None:
    """Cross-field checks, shared by plan files and command-line flags."""
    loc = loc or Locator("<command line>", "")
    for key in METHOD_BOUNDS:
        problem = method_value_problem(key, getattr(plan.method, key))
        if problem:
            raise loc.error("method", key, problem)
    if not plan.libraries:
        raise loc.error("select", "libraries",
                        f"must name at least one library; allowed: {', '.join(versions.identifiers())}")
    if not plan.kinds:
        raise loc.error("select", "kinds", f"must name at least one kind; allowed: {', '.join(PLAN_KINDS)}")
    for section in SCHEMA.sections:
        section.validate(plan, loc)
    if plan.method.rounds > plan.method.repeats:
        raise loc.error("method", "rounds", f"must be at most repeats ({plan.method.repeats}): "
                        "every round measures at least one batch")


def load_plan(path: Path) -> Plan:
    try:
        data = path.read_bytes()
    except OSError as e:
        raise PlanError(f"cannot read plan {path}: {e}") from e
    return parse_plan(decode_plan(data, str(path)), str(path))


def decode_plan(data: bytes, source: str) -> str:
    """A plan file's text: TOML is UTF-8."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise PlanError(f"{source}:{line}: not UTF-8 text (byte 0x{data[e.start]:02x}); "
                        "a plan is a UTF-8 TOML file") from None


def presets() -> dict[str, Path]:
    return {p.stem: p for p in sorted(paths.presets_dir().glob("*.toml"))}


def load_preset(name: str) -> tuple[Plan, str]:
    known = presets()
    if name not in known:
        near = difflib.get_close_matches(name, list(known), n=2)
        hint = f" (did you mean {', '.join(near)}?)" if near else ""
        raise PlanError(f"unknown preset {name!r}{hint}; presets: {', '.join(known)}")
    text = known[name].read_text()
    return parse_plan(text, f"preset {name}"), text
