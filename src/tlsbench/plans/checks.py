"""Checks of plan values shared by every table: where a key sits in the
file (for the one-line error), lists of known names, unknown keys, numbers."""

from __future__ import annotations

import difflib
import math
import re

from tlsbench.errors import PlanError


class Locator:
    """Finds the line of a key in a TOML text, for error messages."""

    def __init__(self, source: str, text: str):
        self.source = source
        self.lines = text.splitlines()

    def line_of(self, table: str | None, key: str | None) -> int:
        current = None
        header_line = 0
        for i, raw in enumerate(self.lines, 1):
            line = raw.strip()
            m = re.match(r"\[\s*([A-Za-z0-9_.\-\"]+)\s*\]", line)
            if m:
                current = m.group(1).strip('"')
                if current == table:
                    header_line = i
                continue
            if key and current == table and re.match(rf"\"?{re.escape(key)}\"?\s*=", line):
                return i
        return header_line or 1

    def error(self, table: str | None, key: str | None, message: str) -> PlanError:
        line = self.line_of(table, key)
        where = f"[{table}] " if table else ""
        what = f"{where}{key}" if key else where.strip()
        return PlanError(f"{self.source}:{line}: {what}: {message}")


def names_error(loc: Locator, table: str | None, key: str, bad: str, allowed: list[str]) -> PlanError:
    near = difflib.get_close_matches(bad, allowed, n=3, cutoff=0.5)
    hint = f" (did you mean {', '.join(near)}?)" if near else ""
    return loc.error(table, key, f"unknown value {bad!r}{hint}; allowed: {', '.join(allowed)}")


def check_list(loc: Locator, table: str | None, key: str, value: object, allowed: list[str]) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise loc.error(table, key, f"must be a list of strings; allowed: {', '.join(allowed)}")
    for v in value:
        if v not in allowed:
            raise names_error(loc, table, key, v, allowed)
    if len(set(value)) != len(value):
        raise loc.error(table, key, "lists a value twice")
    return list(value)


def check_unknown(loc: Locator, table: str | None, got: dict, allowed: dict[str, str]) -> None:
    for key in got:
        if key not in allowed:
            listing = ", ".join(f"{k} ({v})" for k, v in allowed.items())
            raise loc.error(table, key, f"unknown key; allowed keys: {listing}")


def check_number(loc: Locator, table: str, key: str, what: str, value: object, integer: bool, minimum: float,
                 strict: bool) -> float:
    """A number at least minimum (above it when strict); what: the allowed values, for the error."""
    ok_type = isinstance(value, int) if integer else isinstance(value, (int, float))
    if (isinstance(value, bool) or not ok_type or not math.isfinite(value)  # type: ignore[arg-type]
            or value < minimum or (strict and value == minimum)):  # type: ignore[operator]
        raise loc.error(table, key, f"must be {what}, got {value!r}")
    return value  # type: ignore[return-value]


def check_bool(loc: Locator, table: str, key: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise loc.error(table, key, "must be true or false")
    return value
