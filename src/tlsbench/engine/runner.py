"""The runner: a plan becomes cases (one family at a time, families.registry);
each case is checked, measured, summarised and stored in plan order. Timed
cases are measured one at a time; exact ones (an emulator's counts) may run
several at once (engine/parallel.py) and are reused from the result cache
when nothing that decides them changed (engine/result_cache.py). The runner
knows no family by name, and asks a target, a family or a library only
through its public face (targets/base.py and target.py, families/registry.py,
libraries/registry.py)."""

from __future__ import annotations

import json
import logging
import signal
import time
from collections.abc import Iterable
from dataclasses import asdict
from typing import TextIO

from tlsbench.engine import layout, machine, metrics, pacing, parallel, resettle, result_cache, settling, timed_cpu
from tlsbench.engine.case import Case, Measured
from tlsbench.engine.case_summary import summarize_samples
from tlsbench.engine.progress import Progress
from tlsbench.engine.protocol import ran_out_of_room
from tlsbench.engine.store import Store
from tlsbench.engine.store_faults import kept_hint, translated
from tlsbench.errors import RunInterrupted, StoreError, TlsbenchError
from tlsbench.families import registry
from tlsbench.families.base import Context
from tlsbench.libraries import registry as library_registry
from tlsbench.plans import runenv
from tlsbench.plans.plan import Plan
from tlsbench.targets import target as targets
from tlsbench.targets.base import LibraryInfo, answer_of

logger = logging.getLogger(__name__)

TERMINAL = ("ok", "unsupported", "check_failed", "does_not_fit")


def expand(plan: Plan) -> list[Case]:
    """Cases in comparison order (family by family): the libraries of one
    comparison run back to back. A name is the comparison key: never twice."""
    cases = [c for family in registry.FAMILIES for c in family.expand(plan)]
    seen: set[str] = set()
    for c in cases:
        if c.name in seen:
            raise TlsbenchError(f"the plan expands to case {c.name} twice")
        seen.add(c.name)
    return cases


def measure(info: LibraryInfo, case: Case, keys: dict, plan: Plan, rnd: int = 0,
            place: layout.Placement | None = None, paced: bool = False,
            target: targets.Target = targets.HOST) -> Measured:
    """One round of a case in a fresh agent, by its family; ``place``: where a
    primitive's timed loop sits (host), ``paced``: the reference workload runs
    first in the same agent (families.primitive), ``target``: where the agent
    runs (a family may put one side of a case on a device)."""
    return registry.family_of(case.kind).measure(case, Context(info, keys, plan, place, paced, target), rnd)


# The version of `run --json`'s lines: one object per (case, metric), or one
# per case that did not run (metric null, its reason). Raise it when a field
# changes meaning or goes; new fields may be added without.
JSON_LINES_VERSION = 1


def json_rows(run_id: int, target: str, info_version: str, case: Case, measured: Measured,
              model_error: dict | None = None) -> list[dict]:
    """`run --json`: one object per metric of a case (one for a case that did not run); a model
    metric carries the measured model error of the run's board profile's core (Target.model_error)."""
    base = {
        "format": JSON_LINES_VERSION, "run": run_id, "target": target, "library": case.library,
        "library_version": info_version,
        "kind": case.kind, "name": case.alg, "params": {"op": case.op, "size": case.size},
        "case": case.name, "status": measured.status,
    }
    if measured.status != "ok":
        return [{**base, "reason": measured.reason, "metric": None, "unit": None, "n": 0,
                 **dict.fromkeys(("median", "mean", "stdev", "min", "max", "ci95_low", "ci95_high"))}]
    return [{**base, **r.flat(), "reported_as": metrics.reported_as(r.metric, r.min, r.max),
             "estimator": metrics.headline_estimator(r.metric, targets.is_host(target)),  # the reports' column
             **({"model_error": model_error} if model_error and "model_" in r.metric else {})}
            for r in measured.results]


class _Session:
    """What one run (or resume) needs while it measures: the libraries, the
    checks' verdicts, where results go."""

    def __init__(self, store: Store, run_id: int, plan: Plan, keys: dict, target: targets.Target,
                 json_out: TextIO | None):
        self.store, self.run_id, self.plan, self.keys = store, run_id, plan, keys
        self.target, self.json_out = target, json_out
        self.infos: dict[str, LibraryInfo] = {}
        self.unavailable: dict[str, str] = {}
        self.does_not_fit: dict[str, str] = {}  # firmware too big for the board: why, in bytes
        self.no_room: dict[tuple[str, str, str], str] = {}  # checks that ran out of the board's memory
        self.verdict: dict[tuple[str, str, str], str] = {}
        self.resuming = False
        # a clock to keep steady: rounds are placed on purpose and paced (layout.py, pacing.py)
        self.pace = pacing.Pace() if target.paced else None
        self.turned_off: dict[str, set[str]] = {}  # per library, what the user's configuration turned off
        # a library's "hw" build: why a case cannot run on this board profile (Target.refusal)
        self.hw_board = target.board_profile() if target.models_cycles else None
        self.cache = False  # exact outcomes are looked up in (and added to) the result cache
        # paced runs: each case's stored rounds (references, attempts) and the ok cases whose JSON lines
        # wait for resettle.settle(), as they may be measured again
        self.rounds_of: dict[str, list[dict]] = {}
        self.deferred: dict[str, tuple[Case, Measured]] = {}
        self.steady: set[str] = set()  # the cases with a steady round, as their rounds were stored
        self._cache_context: dict[str, str] | None = None

    def use_cache(self, enabled: bool) -> None:
        """Exact outcomes keyed (engine/result_cache.py), and reused when ``enabled``; a noisy
        target's never are."""
        self.cache = enabled and self.target.deterministic and self.plan.method.rounds == 1
        if not self.target.deterministic:
            self._cache_context = None
            return
        run = self.store.get_run(self.run_id)
        profile = self.store.board_profile(self.run_id)
        plugin = self.target.cycle_plugin()
        self._cache_context = {
            "emulator": f"{run.machine.get('emulator', '')} {run.machine.get('emulator_options', '')}".strip(),
            "plugin_sha256": (result_cache.sha256_file(plugin) if profile is not None and plugin.exists() else ""),
            "board_profile_text": profile["text"] if profile is not None else "",
        }

    def cache_key(self, case: Case, rnd: int) -> tuple[str, dict[str, str]] | None:
        """The case's result-cache key and its parts; None where outcomes are not exact."""
        info = self.infos.get(case.library)
        if self._cache_context is None or info is None or not info.agent_sha256:
            return None
        parts = result_cache.key_parts(
            case=case, rnd=rnd, family_module=type(registry.family_of(case.kind)).__module__,
            target_name=self.target.name, build_name=self.target.build_name, image_sha256=info.agent_sha256,
            emulator=self._cache_context["emulator"], plugin_sha256=self._cache_context["plugin_sha256"],
            board_profile_text=self._cache_context["board_profile_text"], method=asdict(self.plan.method),
            tls=asdict(self.plan.tls), material=self.keys)
        return result_cache.key_of(parts), parts

    def reused(self, case: Case, rnd: int) -> Measured | None:
        """The outcome stored under the case's key, copied (its samples, so the results are summarised
        as measured), or None: measure it."""
        if not self.cache:
            return None
        keyed = self.cache_key(case, rnd)
        row = self.store.cached_case(keyed[0], result_cache.REUSABLE) if keyed else None
        if row is None:
            return None
        m = Measured(row["status"], row["reason"], row["iters"], row["transcript"],
                     self.store.case_samples(int(row["id"])), [])
        m.reused_from = int(row["id"])
        return m

    def to_check(self, cases: list[Case]) -> list[Case]:
        """The cases whose checks must run: all but those the result cache serves (each was measured
        after its checks passed, with the same image, material and check code: its key says so)."""
        if not self.cache or self.plan.method.rounds != 1:
            return cases
        keyed = {c.name: self.cache_key(c, 0) for c in cases}
        return [c for c in cases if keyed[c.name] is None
                or self.store.cached_case(keyed[c.name][0], result_cache.REUSABLE) is None]

    def known(self, case: Case, rnd: int) -> Measured | None:
        """A round's outcome without measuring it: decided, or reused from the cache."""
        decided = self.decide(case, rnd)
        if decided is not None:
            return self._named(case, decided)
        return self.reused(case, rnd)  # its reason as stored (the user's configuration named already)

    def probe_libraries(self) -> None:
        try:  # an emulated board's images are built here when missing or stale
            self.target.prepare_images(self.plan.libraries)
        except TlsbenchError as e:
            for lib in self.plan.libraries:
                self.unavailable[lib] = f"building its firmware failed: {e}"
            logger.info(f"warning: building the firmware for {self.target.name} failed: {e}")
        try:  # so an unsupported case can name the define the user's configuration turned off
            self.turned_off = self.target.turned_off()
        except TlsbenchError as e:
            logger.info(f"warning: what your configuration turns off is not known ({e}): reasons are the agents' own")
        for lib in self.plan.libraries:
            if lib in self.unavailable:
                continue
            try:
                too_big = self.target.does_not_fit(lib)
                if too_big is not None:
                    self.does_not_fit[lib] = too_big
                    logger.info(f"note: {lib}: {too_big}")
                    continue
                i = self.infos[lib] = self._probed(lib)
                parts = self.target.code_sizes(lib)
                if parts is not None:
                    self.store.put_code_sizes(self.run_id, lib, parts)
            except TlsbenchError as e:
                self.unavailable[lib] = str(e)
                logger.info(f"warning: {lib} is unavailable and its cases are recorded as failed: {e}")
                continue
            if self.resuming:
                self._refuse_another_build(lib, i)
            self.store.put_library(self.run_id, lib, i.version, i.config, i.source, i.agent_sha256,
                                   ",".join(i.counters), i.counters_missing)

    def _probed(self, lib: str) -> LibraryInfo:
        """The library's agent asked what it is and supports, or, on an exact target, its image's answer
        as stored under the same image, emulator and cycle model (no emulator started for it)."""
        keyed = self._probe_key(lib)
        if keyed is not None and self.cache:
            answer = self.store.probe_answer(keyed[0])
            if answer is not None:
                return self.target.stored_probe(lib, answer, keyed[1]["image_sha256"])
        info = self.target.probe_library(lib)
        if keyed is not None and info.agent_sha256 == keyed[1]["image_sha256"]:
            self.store.put_probe_answer(*keyed, answer_of(info))
        return info

    def _probe_key(self, lib: str) -> tuple[str, dict[str, str]] | None:
        image = self.target.image_sha256(lib) if self._cache_context is not None else None
        if self._cache_context is None or image is None:
            return None
        parts = result_cache.probe_key_parts(
            library=lib, target_name=self.target.name, build_name=self.target.build_name, image_sha256=image,
            emulator=self._cache_context["emulator"], plugin_sha256=self._cache_context["plugin_sha256"],
            board_profile_text=self._cache_context["board_profile_text"])
        return result_cache.key_of(parts), parts

    def _refuse_another_build(self, lib: str, info: LibraryInfo) -> None:
        """A resumed run measures with the very binaries it started with:
        two builds in one run would make its figures a mix."""
        recorded = {r["library"]: r["agent_sha256"] for r in self.store.libraries(self.run_id)}
        before = recorded.get(lib)
        if before is not None and before != info.agent_sha256:
            what = "firmware" if self.target.runs_firmware else "agent"
            raise TlsbenchError(
                f"run {self.run_id} was measured with a {lib} {what} of SHA-256 {before[:16]}, the one now built is "
                f"{info.agent_sha256[:16]} ({info.path}): resuming would mix two builds in one run; "
                "start a new run instead")

    def check(self, cases: list[Case]) -> None:
        agents = {n: i.path for n, i in self.infos.items()}
        support = {n: i.support for n, i in self.infos.items()}
        checks = [c for family in registry.FAMILIES
                  for c in family.check(agents, support, self.keys, cases, self.plan.method.timeout_s)]
        self.store.put_checks(self.run_id, [(c.library, c.kind, c.alg, c.status, c.detail) for c in checks])
        for c in checks:
            if c.status != "pass":
                self.verdict[(c.library, c.kind, c.alg)] = c.detail
            if c.status == "fail" and self.target.memory_bound and c.no_room:
                # the check could not run in the board's memory: that says nothing against the library
                self.no_room[(c.library, c.kind, c.alg)] = c.detail
                logger.info(f"does not fit {self.target.name}: {c.library} {c.alg}: {c.detail}")
            elif c.status == "fail":
                logger.info(f"check failed, not timed: {c.library} {c.alg}: {c.detail}")

    def decide(self, case: Case, rnd: int) -> Measured | None:
        """A round's outcome known without measuring, or None: measure it."""
        if case.library in self.does_not_fit:
            return Measured.not_run("does_not_fit", self.does_not_fit[case.library])
        if case.library in self.unavailable:
            return Measured.not_run("failed", f"agent unavailable: {self.unavailable[case.library]}")
        no_peripheral = self.target.refusal(case.library, case.kind, case.alg, self.hw_board)
        if no_peripheral is not None:
            return Measured.not_run("unsupported", no_peripheral)
        if not registry.family_of(case.kind).needs_checks:  # the agent itself says what it cannot do
            return None
        if (case.kind, case.alg, case.op) not in self.infos[case.library].support:
            return Measured.not_run("unsupported", library_registry.lacking(case.library, case.alg))
        no_room = self.no_room.get((case.library, case.kind, case.alg))
        if no_room is not None:
            return Measured.not_run("does_not_fit", f"its check: {no_room}")
        failed_check = self.verdict.get((case.library, case.kind, case.alg))
        if failed_check is not None:
            return Measured.not_run("check_failed", failed_check)
        return None

    def _measure(self, case: Case, rnd: int) -> Measured:
        """One round, placed and paced on the host: the references around it
        say how fast the machine was (a slow round is flagged; a case with no
        steady round is measured again at the end of the run, engine/resettle.py)."""
        info = self.infos[case.library]
        timed = getattr(registry.family_of(case.kind), "timed", False)  # older families: not timed
        place = self.placement(case, rnd) if self.pace is not None else None
        if self.pace is None or not timed:
            return measure(info, case, self.keys, self.plan, rnd, place, target=self.target)
        try:
            if not self.pace.seen:
                for _ in range(pacing.PRIME):
                    self.pace.note(pacing.reference_ns(info.path))
        except TlsbenchError as e:  # no pace to go by: the round is measured as it comes
            logger.info(f"warning: {case.name}: reference workload failed ({e}); round measured without pacing")
            return measure(info, case, self.keys, self.plan, rnd, place, target=self.target)
        m, ref = self.attempt(info, case, rnd, place)
        self.paced(m, ref, attempts=1)
        return m

    def placement(self, case: Case, rnd: int) -> layout.Placement | None:
        """Where round ``rnd`` of a placed family's case puts its timed loop (None: the family does not
        place its rounds; older families do not say)."""
        if not getattr(registry.family_of(case.kind), "placed", False):
            return None
        return layout.placement(self.run_id, case.name, rnd, self.plan.method.rounds)

    def paced(self, m: Measured, ref: int | None, attempts: int) -> None:
        """The round's references noted (each can set the run's best) and its pace stored with it."""
        info_ = m.round_info or {}
        around = [info_.get("reference_ns"), info_.get("reference_after_ns")]
        for ns in around if any(around) else [ref]:  # in time order: the last says how fast the machine is now
            if ns:
                self.pace.note(ns)
        info_.setdefault("reference_ns", ref)  # a placed round's agent stored its own before and after
        info_.update(best_reference_ns=self.pace.best_ns, attempts=attempts,
                     slow=ref is not None and self.pace.slow(ref))
        m.round_info = info_

    def attempt(self, case_info: LibraryInfo, case: Case, rnd: int,
                 place: layout.Placement | None) -> tuple[Measured, int | None]:
        """One measurement of a round and the reference that says how fast the machine was for it: the
        slower of the one before and the one after (a primitive's in the same process; a handshake's each
        in an agent of its own), else the one before."""
        if getattr(registry.family_of(case.kind), "placed", False):  # its agent runs the references around it
            m = measure(case_info, case, self.keys, self.plan, rnd, place, paced=True, target=self.target)
            around = [(m.round_info or {}).get(k) for k in ("reference_ns", "reference_after_ns")]
            known = [ns for ns in around if ns]
            return m, max(known) if known else None
        try:
            ref: int | None = pacing.reference_ns(case_info.path)
        except TlsbenchError as e:
            logger.info(f"warning: {case.name}: reference workload failed ({e})")
            ref = None
        return measure(case_info, case, self.keys, self.plan, rnd, place, target=self.target), ref

    def run_round(self, case: Case, rnd: int, entry: tuple[int, str, int] | None) -> tuple[int, str, int]:
        """Measures (or reuses) and stores one round of a case; returns its new progress."""
        started = time.time()
        return self.store_round(case, rnd, entry, self.known(case, rnd) or self.outcome(case, rnd), started)

    def outcome(self, case: Case, rnd: int) -> Measured:
        """One round measured (or decided without measuring); never raises for an agent's failure."""
        try:
            m = self.decide(case, rnd) or self._measure(case, rnd)
        except (TlsbenchError, OSError) as e:  # an agent's failure fails its case, never the run
            return Measured("failed", str(e), None, "", [], [])
        return self._named(case, m)

    def _named(self, case: Case, m: Measured) -> Measured:
        """An unsupported outcome's reason names the define the user's configuration turned off, if one is why."""
        if m.status == "unsupported" and self.turned_off:
            m.reason = self.target.unsupported_reason(case.library, case.name, self.turned_off, m.reason)
        return m

    def store_round(self, case: Case, rnd: int, entry: tuple[int, str, int] | None, measured: Measured,
                    started: float, place: str | None = None, image: str | None = None) -> tuple[int, str, int]:
        """Stores one measured round; ``place``: which of several boards measured it, ``image``: the SHA-256
        of the firmware image tlsbench flashed on it (both in the case's params)."""
        rounds = self.plan.method.rounds
        # a board's memory is the budget; on the host an error stays one
        # (the agent says so in its end or fault record: engine.protocol.ran_out_of_room)
        if measured.status == "failed" and self.target.memory_bound and ran_out_of_room(measured.transcript):
            measured.status = "does_not_fit"
        status = measured.status
        if status == "ok":
            if rnd < rounds - 1:
                status = "partial"
            else:  # the last round: summarise every round's batches, stored with it
                earlier = self.store.case_samples(entry[0]) if entry else []
                measured.results = summarize_samples(earlier + measured.samples, case.size,
                                                     self.plan.method.outliers)
                measured.results += self.target.derived_results(measured.results)
        elif rnd > 0:
            measured.reason = f"round {rnd + 1} of {rounds}: {measured.reason}"
        keyed = self.cache_key(case, rnd) if status in result_cache.REUSABLE else None
        if keyed is not None:
            self.store.put_cache_key(*keyed)
        if entry is None:
            params = measured.params if measured.params is not None else {
                "op": case.op, "size": case.size, **({"place": place} if place else {}),
                **({"image_sha256": image} if image else {})}
            case_id = self.store.put_case(
                self.run_id, name=case.name, library=case.library, kind=case.kind, alg=case.alg, op=case.op,
                size=case.size, params=params,
                status=status,
                reason=measured.reason, iters=measured.iters, started=started, transcript=measured.transcript,
                samples=measured.samples, results=measured.results, rounds_done=rnd + 1,
                round_info=measured.round_info, cache_key=keyed[0] if keyed else None,
                reused_from=measured.reused_from)
        else:
            case_id = entry[0]
            self.store.add_round(case_id, status=status, reason=measured.reason, transcript=measured.transcript,
                                 samples=measured.samples, results=measured.results, rounds_done=rnd + 1,
                                 round_info=measured.round_info)
        if measured.round_info is not None and self.pace is not None:
            self.rounds_of.setdefault(case.name, []).append({"round": rnd, **measured.round_info})
            if not self.unsettled(case):
                self.steady.add(case.name)
        if status == "ok" and self.unsettled(case):  # its figures may change when settling measures it again
            self.deferred[case.name] = (case, measured)
        elif status != "partial":
            self.write_json(case, measured)
        return case_id, status, rnd + 1

    def write_json(self, case: Case, measured: Measured) -> None:
        """The case's JSON lines (``--json``), once its figures are final."""
        if self.json_out is None:
            return
        version = self.infos[case.library].version if case.library in self.infos else "unavailable"
        for row in json_rows(self.run_id, self.target.name, version, case, measured, self.target.model_error()):
            if measured.reused_from is not None:
                row["reused"] = True
            self.json_out.write(json.dumps(row) + "\n")
        self.json_out.flush()

    def ordered(self, pending: list[tuple[int, Case]]) -> Iterable[tuple[int, Case]]:
        """The pending rounds in the order to measure them: plan order, or on a paced target the one the
        machine's phase picks (settling.phase_order)."""
        if self.pace is None:
            return pending
        return settling.phase_order(
            pending, lambda c: c.name, lambda c: c.name not in self.steady,
            lambda: bool(self.pace.seen) and self.pace.speed(self.pace.seen[-1]) >= settling.STEADY_SPEED)

    def unsettled(self, case: Case) -> bool:
        """A paced, timed case none of whose rounds is steady (yet)."""
        rounds = self.rounds_of.get(case.name)
        return (self.pace is not None and self.pace.best_ns is not None and bool(rounds)
                and getattr(registry.family_of(case.kind), "timed", False)
                and not settling.is_steady(rounds, self.pace.best_ns))


def _needs_round(entry: tuple[int, str, int] | None, rnd: int) -> bool:
    """entry: (case id, status, rounds done) as stored, or None when not started."""
    return entry is None or (entry[1] not in TERMINAL and entry[2] <= rnd)


def fit_to_target(plan: Plan, target: targets.Target) -> None:
    """The plan made one the target can run (e.g. a firmware target: its
    libraries only, and the few repeats that exact counts need). Each alias of a
    user's configuration ("mbedtls@a2") is measured beside its library."""
    plan.libraries = target.user.with_aliases(plan.libraries)
    target.fit(plan)


def image_for(plan: Plan, target: targets.Target) -> targets.Target:
    """A plan with one side of its handshakes on the device runs on the
    board's one-side image (every case of it: primitives too)."""
    return target.for_plan(plan)


def run(plan: Plan, plan_source: str, store: Store, *, resume: int | None = None,
        json_out: TextIO | None = None, show_progress: bool = True,
        target: targets.Target = targets.HOST, quiet: bool = False, labels: dict[str, str] | None = None,
        jobs: int | None = None, cache: bool = True) -> int:
    """Runs (or resumes) a plan; returns the run id. ``quiet``: warnings and errors only on stderr.
    ``labels``: the user's, stored with the run beside the recorded ones. ``jobs``: sessions at once
    (None: the machine's cores where the target's metrics are exact, else 1); ``cache``: exact outcomes
    reused from the result cache."""
    if resume is None:
        fit_to_target(plan, target)
        target = image_for(plan, target)
        jobs = parallel.checked_jobs(jobs, target.one_at_a_time())  # refused before the run is stored
        # an exact target's material is the same every time: identical counts run after run
        keys = registry.material(plan, target.deterministic)
        board_profile = target.board_profile()  # the cycle model's board, as read now: stored with the run
        cpu = timed_cpu.choose(plan.method.cpu, target.paced)
        run_id = store.create_run(target=target.name, plan_name=plan.name, plan_source=plan_source,
                                  plan=plan.to_dict(), machine={**machine.collect(target), **timed_cpu.record(cpu)},
                                  version=machine.tlsbench_revision(), keys=keys, labels=labels)
        if board_profile is not None:
            store.put_board_profile(run_id, board_profile.name, board_profile.origin, board_profile.text,
                                    board_profile.sha256)
        if not quiet:
            logger.info(f"run {run_id}: plan {plan.name!r}, results in {store.path}")
    else:
        damage = store.check()
        if damage:
            raise StoreError(f"results database {store.path} is damaged ({damage[0]}): resume refused; "
                             "see `tlsbench db check`")
        info = store.get_run(resume)
        if info.status == "complete":
            raise TlsbenchError(f"run {resume} is already complete")
        stored = targets.of_run(info.target, info.machine)
        stored.board_profile()  # a user's board profile edited since the start is refused now, not per case
        plan = Plan.from_dict(info.plan)
        keys = info.keys
        run_id = resume
        target = image_for(plan, stored)
        jobs = parallel.checked_jobs(jobs, target.one_at_a_time())
        cpu = timed_cpu.of_run(info.machine, resume)
        if not quiet:
            logger.info(f"resuming run {run_id} (plan {plan.name!r})")

    # the firmware's frozen clock, inside the material's validity: for this run only
    clock = registry.material_environment(keys)
    clock.update(target.agent_environment())  # e.g. every host agent of the run (servers too) from the user's build
    with store.lock_run(run_id), runenv.applied(clock), timed_cpu.confined(cpu):  # a second resume is refused
        with translated(store.path, kept_hint(store.path, run_id)):
            _measure_run(store, run_id, plan, keys, target, json_out, show_progress, resume is not None,
                         (jobs, cache))
    return run_id


def run_built(plan: Plan, stored_plan: dict, plan_source: str, store: Store, target: targets.Target,
              libraries: list[LibraryInfo], cases: list[Case]) -> int:
    """A run whose cases are measured from what a build made, in no agent (a
    family that needs none: the size probes): the run and its libraries as
    given, then each case measured by its family and stored as any other's.
    ``stored_plan``: the plan as stored with the run (the family's own form)."""
    run_id = store.create_run(target=target.name, plan_name=plan.name, plan_source=plan_source, plan=stored_plan,
                              machine=machine.collect(target), version=machine.tlsbench_revision(), keys={})
    session = _Session(store, run_id, plan, {}, target, None)
    for info in libraries:
        session.infos[info.name] = info
        store.put_library(run_id, info.name, info.version, info.config, info.source, info.agent_sha256,
                          ",".join(info.counters), info.counters_missing)
    for case in cases:
        session.run_round(case, 0, None)
    store.finish_run(run_id)
    return run_id


def _measure_run(store: Store, run_id: int, plan: Plan, keys: dict, target: targets.Target,
                 json_out: TextIO | None, show_progress: bool, resuming: bool, how: tuple[int, bool]) -> None:
    with target.held() as (first, places):  # e.g. a farm's places: held for the whole run, however it ends
        _measure_session(store, run_id, plan, keys, first, json_out, show_progress, resuming, places, how)


def _measure_session(store: Store, run_id: int, plan: Plan, keys: dict, target: targets.Target,
                     json_out: TextIO | None, show_progress: bool, resuming: bool, places: list | None = None,
                     how: tuple[int, bool] = (1, True)) -> None:
    """``how``: (sessions at once, whether the result cache is used)."""
    jobs, cache = how
    session = _Session(store, run_id, plan, keys, target, json_out)
    session.resuming = resuming
    cases = expand(plan)
    session.use_cache(cache)  # before the probe: an exact image's stored answer is reused
    session.probe_libraries()
    session.check(session.to_check(cases))

    store.forget_failed(run_id)  # failed cases are measured again on resume
    progress_of = store.case_progress(run_id)  # name -> (case id, status, rounds done)
    # round-major order: each case's rounds are spread over the whole run, so
    # its samples meet the machine in different moods (slow phases last seconds)
    pending = [(r, c) for r in range(plan.method.rounds) for c in cases if _needs_round(progress_of.get(c.name), r)]
    # whole rounds pending (a fresh run): the line counts cases within rounds
    rounds = len({r for r, _ in pending}) if len(pending) == len(cases) * len({r for r, _ in pending}) else 1
    progress = Progress(len(pending), enabled=show_progress, rounds=rounds)
    if session.pace is not None:  # a resumed run's earlier rounds count towards a case's steadiness
        for r in store.case_rounds(run_id):
            session.rounds_of.setdefault(r["name"], []).append(dict(r))
            for ns in (r["reference_ns"], r["reference_after_ns"]):
                if ns:
                    session.pace.note(int(ns))
        session.steady = {c.name for c in cases if c.name in session.rounds_of and not session.unsettled(c)}
    measuring = time.monotonic()
    try:
        if target.measure_on_places(places, session, pending, progress_of, progress, run_id):  # several boards
            pending = []
        elif jobs > 1:  # exact counts: several sessions at once, stored in plan order
            _measure_side_by_side(session, pending, progress_of, progress, jobs)
            pending = []
        for rnd, case in session.ordered(pending):
            entry = progress_of.get(case.name)
            if entry is None or entry[1] == "partial":  # not decided in an earlier round of this session
                progress_of[case.name] = session.run_round(case, rnd, entry)
            progress.update(case.name)
        resettle.settle(session, cases, progress_of, time.monotonic() - measuring)
    except KeyboardInterrupt as e:  # every finished round is already stored (engine/stopping.py: SIGTERM too)
        raise RunInterrupted(run_id, getattr(e, "signum", signal.SIGINT)) from None
    reused = len(store.reuse_marks(run_id))
    if reused and show_progress:
        logger.info(f"run {run_id}: {reused} case(s) reused from the result cache (measured before with the same"
                    " image, emulator, board profile and requests; --no-cache measures them again)")
    if store.finish_run(run_id) != "complete":
        logger.info(f"run {run_id}: no case came out ok")


def _measure_side_by_side(session: _Session, pending: list[tuple[int, Case]], progress_of: dict,
                          progress: Progress, jobs: int) -> None:
    def wanted(rnd: int, case: Case) -> bool:  # not decided in an earlier round, nor stored yet
        return _needs_round(progress_of.get(case.name), rnd)

    def store(case: Case, rnd: int, measured: Measured, started: float) -> None:
        progress_of[case.name] = session.store_round(case, rnd, progress_of.get(case.name), measured, started)

    parallel.measure_in_order(pending, jobs, wanted, session.known, session.outcome, store,
                              lambda c: progress.update(c.name))
