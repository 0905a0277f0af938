"""The end of a paced run: every ok case without a steady round measured
again while the machine is fast, within settling's budget (the policy and its
evidence: engine/settling.py), its slowest round replaced when the new
attempt's references are faster; then the JSON lines held back for those
cases. The session is the runner's; this module asks it only for what the
SettlingSession protocol names."""

from __future__ import annotations

import logging
from typing import Protocol, TextIO

from tlsbench.engine import layout, pacing, settling
from tlsbench.engine.case import Case, Measured
from tlsbench.engine.case_summary import summarize_samples
from tlsbench.engine.store import Store
from tlsbench.errors import TlsbenchError
from tlsbench.plans.plan import Plan
from tlsbench.targets import target as targets
from tlsbench.targets.base import LibraryInfo

logger = logging.getLogger(__name__)


class SettlingSession(Protocol):
    """What settling needs of the runner's session."""

    store: Store
    plan: Plan
    target: targets.Target
    infos: dict[str, LibraryInfo]
    pace: pacing.Pace | None
    rounds_of: dict[str, list[dict]]  # each case's stored rounds (references, attempts)
    deferred: dict[str, tuple[Case, Measured]]  # ok cases whose JSON lines wait for settling
    json_out: TextIO | None

    def unsettled(self, case: Case) -> bool: ...

    def write_json(self, case: Case, measured: Measured) -> None: ...

    def placement(self, case: Case, rnd: int) -> layout.Placement | None: ...

    def attempt(self, case_info: LibraryInfo, case: Case, rnd: int,
                place: layout.Placement | None) -> tuple[Measured, int | None]: ...

    def paced(self, m: Measured, ref: int | None, attempts: int) -> None: ...


def settle(session: SettlingSession, cases: list[Case], progress_of: dict, measured_s: float) -> None:
    """Every ok case without a steady round measured again, at most settling.PASSES times each and
    within settling's budget (a share of ``measured_s``); then the held-back JSON lines."""
    lacking = [c for c in cases if progress_of.get(c.name, (0, ""))[1] == "ok" and session.unsettled(c)
               and (c.name in session.deferred or session.json_out is None)]
    out = settling.Outcome(lacking=len(lacking))
    started = settling.clock()
    budget = settling.Budget(measured_s)
    todo = lacking
    for _ in range(settling.PASSES):
        still = []
        for case in todo:
            if not budget.left():
                out.out_of_budget = True
                still = []
                break
            if case.library in session.infos and not _settle_one(session, case, progress_of[case.name][0], out):
                still.append(case)
        todo = still
    out.settled = sum(1 for c in lacking if not session.unsettled(c))
    if lacking:
        logger.info(out.line(settling.clock() - started))
    for case, measured in session.deferred.values():
        session.write_json(case, measured)
    session.deferred.clear()


def _settle_one(session: SettlingSession, case: Case, case_id: int, out: settling.Outcome) -> bool:
    """One attempt at a steady round for the case, once a reference says the machine is fast; True
    when the case has a steady round afterwards."""
    info = session.infos[case.library]
    pace = session.pace
    assert pace is not None  # only a paced run has cases to settle

    def timed() -> int:
        out.polls += 1
        return pacing.reference_ns(info.path)

    try:
        if pace.speed(settling.wait_fast(pace, timed, settling.POLLS)) < settling.STEADY_SPEED:
            return False  # still in a slow phase: another pass may find a fast one
        rounds = session.rounds_of[case.name]
        worst = settling.slowest_round(rounds, pace.best_ns)
        rnd = int(worst["round"])
        m, ref = session.attempt(info, case, rnd, session.placement(case, rnd))
    except (TlsbenchError, OSError) as e:  # the round stays as it was measured
        logger.info(f"warning: {case.name}: measuring again failed ({e})")
        return False
    out.attempts += 1
    attempts = int(worst.get("attempts") or 1) + 1
    session.paced(m, ref, attempts)
    old = [ns for ns in (worst.get("reference_ns"), worst.get("reference_after_ns")) if ns]
    faster = m.status == "ok" and ref is not None and (not old or ref < max(old))
    if faster and _replace_round(session, case, case_id, rnd, m):
        out.kept += 1
        rounds[rounds.index(worst)] = {"round": rnd, **(m.round_info or {})}
    else:
        worst["attempts"] = attempts
        session.store.put_round_info(case_id, rnd, {k: v for k, v in worst.items() if k != "round"})
    return not session.unsettled(case)


def _replace_round(session: SettlingSession, case: Case, case_id: int, rnd: int, m: Measured) -> bool:
    """Round ``rnd``'s samples replaced by the new attempt's (the same
    indices: a family numbers a round's batches by the round) and the case
    summarised again, in one transaction; False (nothing changed) when
    the stored round does not hold exactly those samples."""
    stored = session.store.case_samples(case_id)
    keys = {(s.idx, s.warmup, s.counter) for s in m.samples}
    kept = [s for s in stored if (s.idx, s.warmup, s.counter) not in keys]
    if len(keys) != len(m.samples) or len(stored) - len(kept) != len(m.samples):
        logger.info(f"warning: {case.name}: round {rnd + 1} measured again has other samples; kept as it was")
        return False
    results = summarize_samples(kept + m.samples, case.size, session.plan.method.outliers)
    results += session.target.derived_results(results)
    session.store.replace_round(case_id, rnd, samples=m.samples, results=results, round_info=m.round_info,
                                transcript=m.transcript)
    if case.name in session.deferred:
        session.deferred[case.name][1].results = results
    return True
