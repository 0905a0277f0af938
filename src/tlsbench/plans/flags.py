"""Command-line values of a plan: comma-separated selections checked against
what is allowed, one line naming the nearest names when not. The families'
sections read their `tlsbench run` flags with these (plans.model.PlanSection)."""

from __future__ import annotations

import difflib

from tlsbench.errors import PlanError


def comma_list(text: str) -> list[str]:
    return [t.strip() for t in text.split(",") if t.strip()]


def choose(what: str, text: str, allowed: list[str], see: str) -> list[str]:
    """A comma-separated selection; an unknown name suggests the nearest."""
    chosen = comma_list(text)
    for name in chosen:
        if name not in allowed:
            near = difflib.get_close_matches(name, allowed, n=3, cutoff=0.5)
            hint = f" (did you mean {', '.join(near)}?)" if near else ""
            raise PlanError(f"unknown {what} {name!r}{hint}; see: {see}")
    return chosen
