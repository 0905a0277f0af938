"""The runner: a plan becomes cases; each case is checked, measured on its
own (never in parallel), summarised and stored before the next begins."""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass
from typing import TextIO

from . import agent, machine
from . import keys as keys_mod
from .catalog import ALGORITHMS, BENCH_OPS, PKE_MESSAGE_SIZE, SIG_MESSAGE_SIZE, SIZED_KINDS
from .checks import CBC_IV, TLS_AAD, run_checks
from .errors import AgentError, TlsbenchError
from .libraries import LibraryInfo, probe
from .plan import Plan
from .progress import Progress
from .protocol import encode_request
from .stats import parse_policy, summarize
from .store import Store

AEAD_NONCE = bytes.fromhex("000102030405060708090a0b")
SIG_MESSAGE = bytes(range(SIG_MESSAGE_SIZE))
PKE_MESSAGE = bytes(range(1, PKE_MESSAGE_SIZE + 1))
COUNTER_UNITS = {
    "wall_ns": "ns/op", "cpu_ns": "ns/op", "tsc": "tsc-ticks/op",
    "cycles": "cycles/op", "instructions": "instructions/op",
}
TERMINAL = ("ok", "unsupported", "check_failed")


@dataclass(frozen=True)
class Case:
    library: str
    kind: str
    alg: str
    op: str
    size: int | None

    @property
    def name(self) -> str:
        base = f"{self.library}/{self.kind}/{self.alg}/{self.op}"
        return base if self.size is None else f"{base}/{self.size}"


def expand(plan: Plan) -> list[Case]:
    """Cases in comparison order: the libraries of one comparison run back to back."""
    cases = []
    for kind in plan.kinds:
        for alg in ALGORITHMS[kind]:
            if plan.algorithms and alg not in plan.algorithms:
                continue
            for op in BENCH_OPS[kind]:
                if plan.ops and op not in plan.ops:
                    continue
                for size in plan.sizes if kind in SIZED_KINDS else [None]:
                    for lib in plan.libraries:
                        cases.append(Case(lib, kind, alg, op, size))
    names = [c.name for c in cases]
    assert len(names) == len(set(names)), "case names must be unique"
    return cases


def selected_algorithms(cases: list[Case]) -> set[tuple[str, str]]:
    return {(c.kind, c.alg) for c in cases}


def bench_fields(case: Case, keys: dict) -> dict[str, bytes | int | None]:
    k = keys.get(case.kind, {}).get(case.alg, {})
    raw = {name: bytes.fromhex(v) for name, v in k.items() if name != "peer_key"}
    if case.kind == "hash":
        return {"size": case.size}
    if case.kind == "mac":
        return {"size": case.size, "key": raw["key"]}
    if case.kind == "aead":
        cbc = "cbc" in case.alg
        return {"size": case.size, "key": raw["key"], "nonce": CBC_IV if cbc else AEAD_NONCE, "aad": TLS_AAD}
    if case.kind == "kex":
        if case.op == "keygen":
            return {}
        if case.op == "exchange":
            return {"peer": raw["peer"]}
        return {"key": raw["key"], "peer": raw["peer"]}
    if case.kind == "sig":
        return {"key": raw["key"], "pub": raw.get("pub"), "msg": SIG_MESSAGE}
    return {"key": raw["key"], "msg": PKE_MESSAGE}


@dataclass
class Measured:
    status: str
    reason: str
    iters: int | None
    transcript: str
    samples: list[tuple[int, int, int, str, int]]
    results: list[tuple]


def _validate_batches(batches: list, repeats: int, counters: list[str], case: Case) -> None:
    if len(batches) != repeats:
        raise AgentError(f"{case.name}: agent sent {len(batches)} samples, {repeats} were asked for")
    for i, rec in enumerate(batches):
        if rec["i"] != i:
            raise AgentError(f"{case.name}: sample {i} arrived out of order")
        lacking = [c for c in counters if c not in rec.fields]
        if lacking:
            raise AgentError(f"{case.name}: sample {i} lacks {', '.join(lacking)}")
        if rec["iters"] == 0:
            raise AgentError(f"{case.name}: sample {i} has zero iterations")


def measure(info: LibraryInfo, case: Case, keys: dict, plan: Plan) -> Measured:
    m = plan.method
    request = encode_request(
        "bench", kind=case.kind, alg=case.alg, op=case.op, warmup=m.warmup, repeats=m.repeats,
        min_ns=int(m.min_sample_ms * 1e6), **bench_fields(case, keys),
    )
    try:
        res = agent.call(info.path, [request], m.timeout_s, case.name)
    except agent.AgentCallError as e:
        p = e.partial
        return Measured("failed", str(e), None, p.stdout + ("\n--- stderr ---\n" + p.stderr if p.stderr else ""),
                        [], [])
    resp = res.responses[0]
    if resp.status == "unsupported":
        return Measured("unsupported", resp.message or "not supported", None, res.stdout, [], [])
    if resp.status != "ok":
        return Measured("failed", f"{resp.status}: {resp.message}", None, res.stdout, [], [])
    batches = resp.of_type("sample")
    warm = resp.of_type("warmup")
    counters = [c for c in info.counters if c in COUNTER_UNITS]
    try:
        _validate_batches(batches, m.repeats, counters, case)
    except AgentError as e:
        return Measured("failed", str(e), None, res.stdout, [], [])
    samples = [
        (int(rec["i"]), is_warm, int(rec["iters"]), c, int(rec[c]))
        for is_warm, recs in ((1, warm), (0, batches))
        for rec in recs
        for c in counters
    ]
    policy = parse_policy(m.outliers)
    results = []
    for c in counters:
        per_op = [int(rec[c]) / int(rec["iters"]) for rec in batches]
        s = summarize(per_op, policy)
        results.append((c, COUNTER_UNITS[c], s.n, s.removed, s.median, s.mean, s.stdev, s.min, s.max,
                        s.ci95_low, s.ci95_high))
    if case.size:
        rates = [case.size * int(r["iters"]) * 1e9 / int(r["wall_ns"]) for r in batches if int(r["wall_ns"])]
        if len(rates) == len(batches):
            s = summarize(rates, policy)
            results.append(("throughput", "B/s", s.n, s.removed, s.median, s.mean, s.stdev, s.min, s.max,
                            s.ci95_low, s.ci95_high))
    iters = int(batches[0]["iters"])
    return Measured("ok", "", iters, res.stdout, samples, results)


def json_rows(run_id: int, target: str, info_version: str, case: Case, measured: Measured) -> list[dict]:
    base = {
        "run": run_id, "target": target, "library": case.library, "library_version": info_version,
        "kind": case.kind, "name": case.alg, "params": {"op": case.op, "size": case.size},
        "case": case.name, "status": measured.status,
    }
    if measured.status != "ok":
        return [{**base, "reason": measured.reason, "metric": None, "unit": None, "n": 0,
                 **dict.fromkeys(("median", "mean", "stdev", "min", "max", "ci95_low", "ci95_high"))}]
    keys = ("metric", "unit", "n", "removed", "median", "mean", "stdev", "min", "max", "ci95_low", "ci95_high")
    return [{**base, **dict(zip(keys, r, strict=False))} for r in measured.results]


def _log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def run(plan: Plan, plan_source: str, store: Store, *, resume: int | None = None,
        json_out: TextIO | None = None, show_progress: bool = True, target: str = "host") -> int:
    """Runs (or resumes) a plan; returns the run id."""
    if resume is None:
        keys = keys_mod.generate()
        run_id = store.create_run(target=target, plan_name=plan.name, plan_source=plan_source,
                                  plan=plan.to_dict(), machine=machine.collect(),
                                  version=machine.tlsbench_revision(), keys=keys)
        _log(f"run {run_id}: plan {plan.name!r}, results in {store.path}")
    else:
        info = store.get_run(resume)
        if info.status == "complete":
            raise TlsbenchError(f"run {resume} is already complete")
        plan = Plan.from_dict(info.plan)
        keys = info.keys
        run_id = resume
        _log(f"resuming run {run_id} (plan {plan.name!r})")

    cases = expand(plan)
    infos: dict[str, LibraryInfo] = {}
    unavailable: dict[str, str] = {}
    for lib in plan.libraries:
        try:
            infos[lib] = probe(lib)
        except TlsbenchError as e:
            unavailable[lib] = str(e)
            _log(f"warning: {lib} is unavailable and its cases are recorded as failed: {e}")
            continue
        i = infos[lib]
        store.put_library(run_id, lib, i.version, i.config, i.source, i.agent_sha256, ",".join(i.counters),
                          i.counters_missing)

    selected = selected_algorithms(cases)
    checks = run_checks({n: i.path for n, i in infos.items()}, {n: i.support for n, i in infos.items()},
                        keys, selected, plan.method.timeout_s)
    store.put_checks(run_id, [(c.library, c.kind, c.alg, c.status, c.detail) for c in checks])
    verdict = {(c.library, c.kind, c.alg): c for c in checks}
    failed_checks = [c for c in checks if c.status == "fail"]
    for c in failed_checks:
        _log(f"check failed, not timed: {c.library} {c.alg}: {c.detail}")

    done = store.done_cases(run_id, TERMINAL)
    store.forget_failed(run_id)  # failed cases are measured again on resume
    todo = [c for c in cases if c.name not in done]
    progress = Progress(len(todo), enabled=show_progress)
    for case in todo:
        started = time.time()
        v = verdict.get((case.library, case.kind, case.alg))
        if case.library in unavailable:
            measured = Measured("failed", f"agent unavailable: {unavailable[case.library]}", None, "", [], [])
        elif (case.kind, case.alg, case.op) not in infos[case.library].support:
            measured = Measured("unsupported", "not supported by this library build", None, "", [], [])
        elif v is not None and v.status != "pass":
            measured = Measured("check_failed", v.detail, None, "", [], [])
        else:
            measured = measure(infos[case.library], case, keys, plan)
        store.put_case(run_id, name=case.name, library=case.library, kind=case.kind, alg=case.alg,
                       op=case.op, size=case.size, params={"op": case.op, "size": case.size},
                       status=measured.status, reason=measured.reason, iters=measured.iters,
                       started=started, transcript=measured.transcript, samples=measured.samples,
                       results=measured.results)
        if json_out is not None:
            version = infos[case.library].version if case.library in infos else "unavailable"
            for row in json_rows(run_id, target, version, case, measured):
                json_out.write(json.dumps(row) + "\n")
            json_out.flush()
        progress.update(case.name)
    store.finish_run(run_id)
    return run_id
