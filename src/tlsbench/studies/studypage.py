"""A study page as it is written (Page: lines, tables, the study's shapes, what is not re-created), the
figures a page reads from a run, and the head that names each run it took (studypages.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from tlsbench.engine import metrics, steadiness
from tlsbench.engine.store import Store
from tlsbench.families.tls import plan as tls_plan
from tlsbench.families.tls.names import BASELINE, TlsVariant
from tlsbench.links import profiles as link_profiles
from tlsbench.links import view as link_view
from tlsbench.links.model import Breakdown as model_breakdown
from tlsbench.report import tables
from tlsbench.report.tables import RunData
from tlsbench.studies.studyruns import Used, Want, status_counts


@dataclass
class Page:
    lines: list[str] = field(default_factory=list)

    def add(self, *lines: str) -> None:
        self.lines.extend(lines)

    def table(self, header: list[str], rows: Iterable[list[str]]) -> None:
        self.lines.append(tables.markdown(header, list(rows)).rstrip("\n"))
        self.lines.append("")

    def shapes(self, statements: list[str], source: str, libs: list[str], cols: list[list[str]]) -> None:
        """The study's claims, one row each: the study's own verdict (``cols[0]``)
        and each library's, checked on our figures."""
        self.table(["statement", f"in the {source}", *libs],
                   [[s, *(c[i] for c in cols)] for i, s in enumerate(statements)])

    def not_recreated(self, *items: str) -> None:
        """The page's last section: what of the study it does not re-create, and why (one "- " item each)."""
        self.add("## What is not re-created here", "", *items, "")



# ---- figures of a run ----

def ok_cases(data: RunData) -> list[dict]:
    return [c for c in data.cases if c["status"] == "ok"]


def median(case: dict | None, metric: str) -> float | None:
    if case is None or metric not in case["results"]:
        return None
    return float(metrics.headline_of(case["results"][metric]))  # a host timing: its fastest sample


def ms(ns: float | None) -> str:
    return "n/m" if ns is None else f"{ns / 1e6:,.2f}"


def num(v: float | None, digits: int = 0) -> str:
    return "n/m" if v is None else f"{v:,.{digits}f}"


def ratio(a: float | None, b: float | None) -> str:
    return "-" if a is None or b is None or b == 0 else f"{a / b:.2f}"


def holds(flag: bool | None) -> str:
    return "not measured" if flag is None else "holds" if flag else "does not hold"


def libraries(data: RunData) -> list[str]:
    return sorted({c["library"] for c in data.cases})


def tls_case(data: RunData, library: str, suite: str, pick: Callable[[TlsVariant], bool]) -> dict | None:
    """A TLS case of the run by library, suite and variant (any status)."""
    for c in data.cases:
        if c["kind"] == tls_plan.KIND and c["library"] == library and c["alg"] == suite and c["alg"] != BASELINE:
            if pick(TlsVariant.parse(c["op"])):
                return c
    return None


def primitive_case(data: RunData, lib: str, alg: str, op: str | None = None, size: int | None = None) -> dict | None:
    """A case of the run by library, algorithm and, when given, operation and size (any status)."""
    for c in data.cases:
        if c["library"] == lib and c["alg"] == alg and (op is None or c["op"] == op) and \
                (size is None or c["size"] == size):
            return c
    return None


def status_note(case: dict | None) -> str:
    if case is None:
        return "not in the run"
    if case["status"] == "ok":
        return ""
    return f"{tables.STATUS_TEXT.get(case['status'], case['status'])}: {(case['reason'] or '')[:120]}"


def link_model(data: RunData, link: str) -> dict[str, model_breakdown]:
    """Each TLS case's time to the first application byte over a link profile (links/: a model), the
    server on a host elsewhere (its compute not charged): case name -> breakdown."""
    profile = link_profiles.get_profile(link)
    board = link_view.board_for(data, None)
    return {r.case: r.breakdown for r in link_view.rows(data, profile, board, None, server_host=True)
            if r.breakdown is not None}


# ---- the page's head ----

def reused_from(store: Store, data: RunData) -> tuple[int, list[int]]:
    """How many of the page's cases the result cache copied from an earlier measurement, and the runs
    that measured them."""
    ids = [c["reused_from"] for c in data.cases if c.get("reused_from") is not None]
    runs = {found[0] for i in ids if (found := store.case_run_and_name(i)) is not None}
    return len(ids), sorted(runs)


def run_section(page: Page, want: Want, data: RunData, used: list[Used], db: str,
                reused: tuple[int, list[int]] = (0, [])) -> None:
    profile = tables.board_profile_line(data)
    versions = ", ".join(f"{lib['library']} {lib['version']}" for lib in data.libraries)
    page.add(f"- **{want.target}**{' under board profile ' + profile if profile else ''}",
             f"  - command: `{want.command()}`",
             f"  - run {used[0].run_id} of `{db}` (not committed; tlsbench {data.run.tlsbench_version}); cases:"
             f" {used[0].counts}")
    for u in used[1:]:
        page.add(f"  - then run {u.run_id}, the same with `{u.flags}` ({u.counts}): {u.taken} case(s) that did not"
                 " run ok in the first taken from it")
    page.add(f"  - cases on this page: {status_counts(data)}", f"  - libraries: {versions}")
    if reused[0]:  # exact counts: the same image, emulator, plugin, profile and requests give the same figures
        page.add(f"  - reused: {reused[0]} of {len(data.cases)} cases' exact counts copied by the result cache from"
                 f" run {', '.join(map(str, reused[1]))} of the same database (the same image, emulator, cycle-model"
                 " plugin, board profile, requests and protocol; `tlsbench run --no-cache` measures them again)")
    if "board" not in data.run.machine:  # host times: how steady the machine was while they were measured
        page.add(f"  - {steadiness.run_line(data.rounds)}")
    if profile:
        page.add("  - model figures (model cycles, model time) are the board profile's cycle model applied to the"
                 " firmware's exact instructions (docs/cycle-model.md): a model, not a measurement on the board")
        page.add(f"  - model error: {tables.model_error_line(data)}")  # so no model time reads as a measurement
    page.add(*(f"  - {line}" for line in tables.noise_lines(data)))  # noisy, varying or drifting figures
