"""The stored runs a study page takes: what it wants (a preset on a target under a board profile), the
newest complete run of it as shipped, and the later narrowed runs whose cases replace those that did not
run ok (studypages.py)."""

from __future__ import annotations

from dataclasses import dataclass

from tlsbench.engine.store import Store
from tlsbench.report import tables
from tlsbench.report.tables import RunData
from tlsbench.targets import target as targets


@dataclass(frozen=True)
class Want:
    """A stored run a page needs: a preset on a target, under a board profile (None: none)."""
    preset: str
    target: str
    board: str | None
    extra: tuple[str, ...] = ()  # further run flags (a library profile)

    def command(self) -> str:
        board = f" --board {self.board}" if self.board else ""
        where = "" if targets.is_host(self.target) else f" --target {self.target}"
        return f"tlsbench run --preset {self.preset}{where}{board}{''.join(' ' + a for a in self.extra)}"


def _library_profiles(want: Want) -> dict[str, str]:
    flags = list(want.extra)
    given = flags[flags.index("--profile") + 1] if "--profile" in flags else ""
    return dict(p.split("=", 1) for p in given.split(",") if "=" in p)


OVERRIDDEN = "# overridden on the command line: "  # what cli.py appends to a narrowed plan's source


def overrides(source: str) -> str:
    """The run flags that narrowed or changed the preset ("" for the preset as shipped)."""
    return next((line[len(OVERRIDDEN):].strip() for line in source.splitlines() if line.startswith(OVERRIDDEN)), "")


def find_runs(store: Store, want: Want) -> list[int]:
    """The complete runs of this preset on this target, board profile and library profiles, oldest first."""
    runs = [r["id"] for r in store.list_runs() if r["plan_name"] == want.preset and r["target"] == want.target
            and r["board_profile"] == want.board and r["status"] == "complete"]
    return [r for r in runs if (store.get_run(r).machine.get("profiles") or {}) == _library_profiles(want)]


def find_run(store: Store, want: Want) -> int | None:
    """The newest complete run of the preset as shipped (no flag narrowed it)."""
    full = [r for r in find_runs(store, want) if not overrides(store.get_run(r).plan_source)]
    return full[-1] if full else None


@dataclass(frozen=True)
class Used:
    run_id: int
    flags: str  # the flags that narrowed it ("" for the preset as shipped)
    counts: str
    taken: int  # cases the page takes from it


def merged(store: Store, want: Want) -> tuple[int, RunData, list[Used]] | None:
    """The newest run of the preset as shipped, its cases that did not run ok replaced by those of later
    narrowed runs of the same preset, target and profiles that did (a re-run of what failed, e.g. with a
    longer --timeout-s); every run used is named on the page."""
    base = find_run(store, want)
    if base is None:
        return None
    data = tables.load(store, base)
    cases = {c["name"]: (base, c) for c in data.cases}
    later = [r for r in find_runs(store, want) if r > base and overrides(store.get_run(r).plan_source)]
    loaded = {r: tables.load(store, r) for r in later}
    for r in later:
        for c in loaded[r].cases:
            if c["name"] in cases and cases[c["name"]][1]["status"] != "ok" and c["status"] == "ok":
                cases[c["name"]] = (r, c)
    data.cases = [c for _r, c in cases.values()]
    used = [Used(r, overrides((loaded[r] if r in loaded else data).run.plan_source),
                 status_counts(loaded[r] if r in loaded else tables.load(store, r)),
                 sum(1 for src_run, _c in cases.values() if src_run == r)) for r in [base, *later]]
    return base, data, used


def status_counts(data: RunData) -> str:
    by: dict[str, int] = {}
    for c in data.cases:
        by[c["status"]] = by.get(c["status"], 0) + 1
    return ", ".join(f"{n} {s}" for s, n in sorted(by.items()))
