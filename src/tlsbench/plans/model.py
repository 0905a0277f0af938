"""A plan as data, knowing no family: its own fields (name, libraries,
kinds, method, where it runs) and the sections the case families declare
(plans.plan builds the schema from families.registry). A family's section
owns its keys, their defaults, checks, stored form and `tlsbench run` flags;
the plan holds its values as attributes (plan.sizes, plan.tls)."""

from __future__ import annotations

import argparse
import copy
from dataclasses import asdict, dataclass, field
from typing import Any, ClassVar, Protocol

from tlsbench.errors import TlsbenchError
from tlsbench.libraries import registry as libraries
from tlsbench.plans.checks import Locator
from tlsbench.plans.where import TARGET_KINDS


@dataclass
class Method:
    warmup: int = 2
    repeats: int = 10
    outliers: str = "tukey"
    min_sample_ms: float = 10.0
    timeout_s: float = 120.0
    rounds: int = 1
    # environment of every process the run starts (agents, servers, client tools), recorded with the run;
    # e.g. OPENSSL_ia32cap = "~0x200000200000000" masks AES-NI and PCLMULQDQ in OpenSSL
    env: dict[str, str] = field(default_factory=dict)
    # LD_* and PATH in env change which code runs: only with this set
    allow_loader_env: bool = False
    # the CPU a timed host run is confined to: "auto" (the last it may use), "none", or a number (engine/timed_cpu.py)
    cpu: str = "auto"


class PlanSection(Protocol):
    """A family's part of a plan."""

    table: str | None  # its own table ([tls]), or None: its keys sit in [select]
    keys: dict[str, str]  # key -> what it allows (an unknown key's error lists them)

    def defaults(self) -> dict[str, Any]:
        """Plan attribute -> a fresh default value."""
        ...

    def parse(self, loc: Locator, given: dict, plan: Plan) -> None:
        """Reads its keys of a plan file's table (given) into the plan, one-line errors through loc."""
        ...

    def validate(self, plan: Plan, loc: Locator) -> None:
        """Checks across fields, for plan files and command-line flags alike."""
        ...

    def load(self, stored: dict) -> dict[str, Any]:
        """Its attributes from a stored plan (Plan.to_dict's form; a key absent: its default)."""
        ...

    def dump(self, plan: Plan) -> dict[str, Any]:
        """Its attributes as JSON values, in to_dict's order."""
        ...

    def long_lists(self, plan: Plan) -> dict[str, int]:
        """Its lists whose length the case count grows with (each an innermost loop): name -> length."""
        ...

    def cut(self, plan: Plan, keep: dict[str, int]) -> None:
        """Keeps the first keep[name] values of each long list of a shallow copy (1 if not named)."""
        ...

    def device_side(self, plan: Plan) -> str:
        """The side of its handshakes the plan puts on a firmware device ("" none)."""
        ...

    def firmware_problem(self, plan: Plan, target_name: str, what: str) -> str | None:
        """Why the plan cannot run on a firmware target (None: it can)."""
        ...

    def add_select_flags(self, p: argparse.ArgumentParser) -> None:
        """Its `tlsbench run` flags that choose cases (the help lists them after --kinds)."""
        ...

    def add_target_flags(self, p: argparse.ArgumentParser) -> None:
        """Its `tlsbench run` flags for how its cases run on the target (listed after the target's)."""
        ...

    def apply_flags(self, a: argparse.Namespace, plan: Plan, kinds_given: bool) -> list[str]:
        """Sets the plan from those of its flags given (kinds_given: --kinds was), one-line errors;
        returns them as typed, recorded with the run."""
        ...


@dataclass(frozen=True)
class Schema:
    """What the families let a plan hold."""

    sections: tuple[PlanSection, ...]
    kinds: tuple[str, ...]  # the kinds a plan may select, in order
    default_kinds: tuple[str, ...]  # those it selects when it names none


_CORE = ("name", "description", "libraries", "kinds", "method", "targets", "target_note", "target_instead")


class Plan:
    """What to measure and how. The schema is the class's (plans.plan.Plan)."""

    schema: ClassVar[Schema | None] = None

    def __init__(self, name: str = "custom", description: str = "", libraries: list[str] | None = None,
                 kinds: list[str] | None = None, method: Method | None = None, targets: list[str] | None = None,
                 target_note: str = "", target_instead: str = "", **sections: Any):
        if self.schema is None:
            raise TlsbenchError("a plan needs the families' schema: use tlsbench.plans.plan.Plan")
        self.name = name
        self.description = description
        self.libraries = list(libraries) if libraries is not None else list(_default_libraries())
        self.kinds = list(kinds) if kinds is not None else list(self.schema.default_kinds)
        self.method = method if method is not None else Method()
        # where it runs (plans.where): "host", "firmware"; with why not the other, and the preset that runs there
        self.targets = list(targets) if targets is not None else list(TARGET_KINDS)
        self.target_note = target_note
        self.target_instead = target_instead
        defaults: dict[str, Any] = {}
        for section in self.schema.sections:
            defaults.update(section.defaults())
        unknown = set(sections) - set(defaults)
        if unknown:
            raise TypeError(f"Plan() got unknown fields: {', '.join(sorted(unknown))}")
        for key, value in defaults.items():
            setattr(self, key, sections.get(key, value))

    @property
    def sections(self) -> tuple[PlanSection, ...]:
        assert self.schema is not None
        return self.schema.sections

    @property
    def device_side(self) -> str:
        """The side its handshakes put on a firmware device ("" none)."""
        return next((side for side in (s.device_side(self) for s in self.sections) if side), "")

    def to_dict(self) -> dict:
        """As stored with a run: its own fields, the [select] sections' after kinds, the tables' after method."""
        d: dict[str, Any] = {"name": self.name, "description": self.description,
                             "libraries": list(self.libraries), "kinds": list(self.kinds)}
        for section in self.sections:
            if section.table is None:
                d.update(section.dump(self))
        d["method"] = asdict(self.method)
        for section in self.sections:
            if section.table is not None:
                d.update(section.dump(self))
        d.update(targets=list(self.targets), target_note=self.target_note, target_instead=self.target_instead)
        return d

    @classmethod
    def from_dict(cls, d: dict) -> Plan:
        core = {k: d[k] for k in _CORE if k in d}
        core["method"] = Method(**d.get("method", {}))
        assert cls.schema is not None
        values: dict[str, Any] = {}
        for section in cls.schema.sections:
            values.update(section.load(d))
        return cls(**core, **values)

    def cut(self, keep: dict[str, int]) -> Plan:
        """A shallow copy keeping the first values of its long lists (plan_size)."""
        out = copy.copy(self)
        for section in self.sections:
            section.cut(out, keep)
        return out

    def long_lists(self) -> dict[str, int]:
        return {name: n for section in self.sections for name, n in section.long_lists(self).items()}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Plan) and self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]  # mutable, as the dataclass it replaces

    def __repr__(self) -> str:
        return f"Plan({self.to_dict()!r})"


def _default_libraries() -> tuple[str, ...]:
    """The libraries a plan that names none measures (each library's record says whether it is one)."""
    return tuple(libraries.default_plan())
