"""The primitive family: one case per library, algorithm, operation and
message size; each measured in batches by the agent's own loop, after the
known-answer checks of its algorithm have passed."""

from __future__ import annotations

import datetime
from collections.abc import Iterable
from pathlib import Path

from tlsbench.engine import agent, metrics, pacing
from tlsbench.engine.case import Case, Measured, Sample, split_repeats
from tlsbench.engine.protocol import encode_request
from tlsbench.errors import AgentError, SetupError
from tlsbench.families.base import KIND_CHARTS, Context
from tlsbench.families.primitive import keys as keys_mod
from tlsbench.families.primitive import plan as plan_keys
from tlsbench.families.primitive import pqvectors
from tlsbench.families.primitive.catalog import (
    ALGORITHMS,
    BENCH_OPS,
    DEFAULT_KINDS,
    KINDS,
    PKE_MESSAGE_SIZE,
    SIG_MESSAGE_SIZE,
    SIZED_KINDS,
)
from tlsbench.families.primitive.checks import CBC_IV, TLS_AAD, CheckResult, run_checks
from tlsbench.plans.model import Plan

AEAD_NONCE = bytes.fromhex("000102030405060708090a0b")
SIG_MESSAGE = bytes(range(SIG_MESSAGE_SIZE))
PKE_MESSAGE = bytes(range(1, PKE_MESSAGE_SIZE + 1))


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
    if case.kind == "kem":  # the first published vector: the same work in every run (pqvectors.py)
        v = pqvectors.kem_vectors(case.alg)[0]
        return {"keygen": {"key": v.seed}, "encaps": {"pub": v.ek, "nonce": v.m},
                "decaps": {"key": v.seed, "msg": v.ct}}[case.op]
    if case.kind == "pqsig":  # verify's signature: the library's own deterministic one (measure)
        d = pqvectors.dsa_vectors(case.alg)[0]
        return {"key": d.seed} if case.op == "keygen" else {"key": d.seed, "pub": d.pk, "msg": SIG_MESSAGE}
    return {"key": raw["key"], "msg": PKE_MESSAGE}


# post-quantum: the operation whose output size is a metric, and how many trailing bytes are not part of it
PQ_SIZE_OF = {("kem", "keygen"): ("public_key_bytes", 0), ("kem", "encaps"): ("ciphertext_bytes", 32),
              ("pqsig", "keygen"): ("public_key_bytes", 0), ("pqsig", "sign"): ("signature_bytes", 0)}

# Memory passes per round on the host for the kinds with keys: a host run
# draws its keys fresh and the library's own generator feeds every nonce,
# blinding value and key pair, so a bignum's size, and with it the heap and
# the allocations of an operation and of its set-up, depend on the key and on
# the values drawn. The first pass uses the run's key, the others one
# further key set each (drawn with the run, stored with its keys): the run
# measures the spread that compare then allows between two host runs
# (docs/method.md, "How compare decides"). Firmware material is seeded: one
# pass, exact.
HOST_MEMORY_PASSES = 8
KEYED_KINDS = ("kex", "sig", "pke")


def _pq_output(case: Case, ctx: Context, op: str) -> bytes:
    """One untimed run of op with the case's inputs: its output (sizes, verify's signature)."""
    fields = bench_fields(Case(case.library, case.kind, case.alg, op, None), ctx.keys)
    res = agent.call(ctx.info.path, [encode_request("compute", kind=case.kind, alg=case.alg, op=op, **fields)],
                     ctx.plan.method.timeout_s, f"{case.name} ({op} output)")
    resp = res.responses[0]
    out = resp.of_type("out")
    if resp.status != "ok" or not out:
        raise AgentError(f"{case.name}: {op} gave no output ({resp.status}: {resp.message})")
    return bytes(out[0]["data"])


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


def _further_memory(case: Case, ctx: Context) -> list:
    """The memory passes of the further key sets (HOST_MEMORY_PASSES): each in
    a fresh agent whose heap has the history of the case's own: when that
    follows the reference workload (paced), a `hello` first, which leaves the
    set-up's blocks where the reference does (the same held set-up heap in
    all 4 libraries x 4 cases tried; with no request first, Mbed TLS's
    X25519 set-up held 32 B more) at none of its cost. The operation is timed
    once (its figures not kept)."""
    spread = ctx.keys.get("spread", []) if case.kind in KEYED_KINDS else []
    before = ["hello"] if ctx.paced else []
    out = []
    for i, other in enumerate(spread):
        request = encode_request("bench", kind=case.kind, alg=case.alg, op=case.op, warmup=0, repeats=1, min_ns=0,
                                 **bench_fields(case, other))
        res = agent.call(ctx.info.path, [*before, request], ctx.plan.method.timeout_s, f"{case.name} (key set {i + 2})")
        out.append(res.responses[-1])
    return out


class PrimitiveFamily:
    name = "primitive"
    kinds = KINDS
    needs_checks = True
    timed = True
    placed = True
    plan_kinds = KINDS
    default_kinds = DEFAULT_KINDS
    plan_section = plan_keys.SECTION
    views = (KIND_CHARTS,)
    kind_titles = {"hash": "Hashes", "mac": "MACs", "aead": "Record protection (AEAD, CBC + HMAC)",
                   "kex": "Key exchange", "sig": "Signatures", "pke": "RSA encryption"}
    sized_kinds = SIZED_KINDS

    def expand(self, plan: Plan) -> list[Case]:
        cases = []
        for kind in (k for k in plan.kinds if k in ALGORITHMS):
            for alg in ALGORITHMS[kind]:
                if plan.algorithms and alg not in plan.algorithms:
                    continue
                for op in BENCH_OPS[kind]:
                    if plan.ops and op not in plan.ops:
                        continue
                    for size in plan.sizes if kind in SIZED_KINDS else [None]:
                        for lib in plan.libraries:
                            cases.append(Case(lib, kind, alg, op, size))
        return cases

    def metrics(self) -> tuple[metrics.Metric, ...]:
        return (*metrics.COUNTERS, *metrics.MEMORY, *metrics.PRIMITIVE_DERIVED, *metrics.PQ_SIZES)

    def prepare(self, plan: Plan, keys: dict, now: datetime.datetime | None) -> None:
        """Its keys are the run's own (engine keys); material drawn fresh (no
        seed: the host) gets HOST_MEMORY_PASSES - 1 further key sets for the
        memory passes of the kinds with keys."""
        if "seed" not in keys and "spread" not in keys and set(plan.kinds) & set(KEYED_KINDS):
            keys["spread"] = [keys_mod.generate() for _ in range(HOST_MEMORY_PASSES - 1)]

    def check(self, agents: dict[str, Path], support: dict[str, set[tuple[str, str, str]]], keys: dict,
              cases: Iterable[Case], timeout: float) -> list[CheckResult]:
        selected = {(c.kind, c.alg) for c in cases if c.kind in self.kinds}
        if not selected:  # nothing of this family to measure: no agent started to check nothing
            return []
        return run_checks(agents, support, keys, selected, timeout)

    def measure(self, case: Case, ctx: Context, rnd: int) -> Measured:
        """One round: the agent's batches (warm-ups apart), indexed after those
        of the earlier rounds, and one untimed memory pass; placed where
        ctx.place says, and after the reference workload if ctx.paced (its
        time in round_info["reference_ns"], None if it failed)."""
        m = ctx.plan.method
        per_round = split_repeats(m.repeats, m.rounds)
        repeats = per_round[rnd]
        first = sum(per_round[:rnd])
        fields = bench_fields(case, ctx.keys)
        size_sample = None
        try:
            if (case.kind, case.op) == ("pqsig", "verify"):
                fields["sig"] = _pq_output(case, ctx, "sign")
            if (case.kind, case.op) in PQ_SIZE_OF:
                metric, tail = PQ_SIZE_OF[(case.kind, case.op)]
                size_sample = Sample.one(rnd, metric, len(_pq_output(case, ctx, case.op)) - tail)
        except (AgentError, SetupError) as e:  # SetupError: the vectors' pinned source is missing
            return Measured.not_run("failed", str(e), "")
        request = encode_request(
            "bench", kind=case.kind, alg=case.alg, op=case.op, warmup=m.warmup, repeats=repeats,
            min_ns=int(m.min_sample_ms * 1e6), **fields,
            **(ctx.place.fields() if ctx.place else {}),
        )
        # paced: the reference workload before and after, so a phase that changes during the round shows
        requests = [pacing.REQUEST, request, pacing.REQUEST] if ctx.paced else [request]
        try:
            res = agent.call(ctx.info.path, requests, m.timeout_s, case.name)
        except agent.AgentCallError as e:
            p = e.partial
            return Measured.not_run("failed", str(e), p.stdout + ("\n--- stderr ---\n" + p.stderr if p.stderr else ""))
        reference = after = None
        if ctx.paced:
            reference, after = (pacing.answered(res.responses, i, case.name) for i in (0, 2))
        resp = res.responses[1] if ctx.paced else res.responses[-1]
        if resp.status == "unsupported":
            return Measured.not_run("unsupported", resp.message or "not supported", res.stdout)
        if resp.status != "ok":
            return Measured.not_run("failed", f"{resp.status}: {resp.message}", res.stdout)
        try:
            further = _further_memory(case, ctx)
        except agent.AgentCallError as e:
            return Measured.not_run("failed", f"a further key set's memory pass: {e}", e.partial.stdout)
        failed = next((r for r in further if r.status != "ok"), None)
        if failed is not None:
            return Measured.not_run("failed", f"a further key set's memory pass: {failed.status}: {failed.message}",
                                    res.stdout)
        batches = resp.of_type("sample")
        warm = resp.of_type("warmup")
        counters = [c for c in ctx.info.counters if c in metrics.COUNTER_NAMES]
        try:
            _validate_batches(batches, repeats, counters, case)
        except AgentError as e:
            return Measured.not_run("failed", str(e), res.stdout)
        samples = [
            Sample(offset + int(rec["i"]), is_warm, int(rec["iters"]), c, int(rec[c]))
            for is_warm, recs, offset in ((True, warm, rnd * m.warmup), (False, batches, first))
            for rec in recs
            for c in counters
        ]
        # the memory passes: one value each (the run's key first), stored as one-operation samples
        memory = [rec for r in (resp, *further) for rec in r.of_type("memory")]
        passes = 1 + len(further)
        for j, rec in enumerate(memory):
            for field_name, metric in metrics.MEMORY_FIELDS.items():
                if field_name in rec.fields:
                    samples.append(Sample.one(rnd * passes + j, metric, int(rec[field_name])))
        if size_sample is not None:
            samples.append(size_sample)
        measured = Measured("ok", "", int(batches[0]["iters"]), res.stdout, samples, [])
        calib = resp.of_type("calib")
        info: dict = {"reference_ns": reference, "reference_after_ns": after} if ctx.paced else {}
        if ctx.place is not None and calib:  # where the frame really landed, as the agent saw it
            info.update(stack_at=int(calib[0].get("stack_at", ctx.place.stack_at)),
                        heap_shift=int(calib[0].get("heap_shift", ctx.place.heap_shift)))
        measured.round_info = info or None
        return measured
