"""The minimum-RAM family (kind "min-ram"): for each handshake of the plan's
[tls] matrix, the least heap each side completes it with. Heap peak is not
that figure: under a cap a library may fall back to smaller buffers, or fail.

One round of a case: an uncapped counted connection (each side's peak, what
its configuration holds, the negotiated fragment length), then for the
client and the server in turn (the other side uncapped) the search of
families.minram.search over agent probes: a probe is a request whose counted
connection runs with that side's heap capped (agent/core/heap_account.c) and
passes only if the handshake completes and the request and response arrive
intact. Every probe runs each side on its painted stack (where the platform
has them), so the stack at the limit found is measured by the probe that
confirms it, and every probe's allocator layout is the same.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Iterable
from pathlib import Path

from tlsbench.engine import agent, metrics
from tlsbench.engine.case import Case, Measured, Sample
from tlsbench.engine.protocol import Record, encode_request
from tlsbench.families.base import FITS, Context
from tlsbench.families.minram import KIND, SIDES, cells, fits, search
from tlsbench.families.primitive import keys
from tlsbench.families.primitive.checks import CheckResult
from tlsbench.families.tls import catalog as tls_catalog
from tlsbench.families.tls import device as tls_device
from tlsbench.families.tls import plan as tls_plan
from tlsbench.families.tls import runner as tls_runner
from tlsbench.families.tls.cases import TlsCase, case_fields
from tlsbench.families.tls.names import TlsVariant
from tlsbench.plans.model import Plan
from tlsbench.targets import target as targets
from tlsbench.targets.bridge import clock_request

UNCAPPED = 1 << 40  # a cap nothing reaches: the same counted path as every probe


class MinRamFamily:
    name = "min-ram"
    kinds = (KIND,)
    needs_checks = False
    timed = False  # counted passes only: instructions, bytes and heap, no clock
    placed = False
    plan_kinds = (KIND,)
    default_kinds = ()
    plan_section = tls_plan.SECTION  # the TLS family's [tls] table: the same handshakes
    views = (FITS,)  # tables only, no chart
    case_cell = staticmethod(cells.case_cell)  # a search's cell in the cases table
    fits_view = fits  # the FITS view: which RAM sizes and boards each side's least RAM fits (tlsbench fits)
    kind_titles: dict[str, str] = {}
    sized_kinds = ()

    def expand(self, plan: Plan) -> list[Case]:
        if KIND not in plan.kinds:
            return []
        return [c for c in tls_runner.expand_tls(plan, KIND) if TlsVariant.parse(c.op).transport == "memory"]

    def metrics(self) -> tuple[metrics.Metric, ...]:
        """Its own; it also stores the TLS family's per-side stack_bytes."""
        return metrics.MIN_RAM

    def prepare(self, plan: Plan, keys: dict, now: datetime.datetime | None) -> None:
        """The chains and PSK of its handshakes (the TLS family's material)."""
        if KIND in plan.kinds:
            for case in self.expand(plan):
                v = TlsVariant.parse(case.op)
                if v.cred != tls_catalog.ANON_CRED:
                    tls_runner.material(keys, v.cred, v.chain)

    def check(self, agents: dict[str, Path], support: dict[str, set[tuple[str, str, str]]], keys: dict,
              cases: Iterable[Case], timeout: float) -> list[CheckResult]:
        return []

    def measure(self, case: Case, ctx: Context, rnd: int) -> Measured:
        v = TlsVariant.parse(case.op)
        tc = tls_runner.tls_case(case.alg, v, ctx.keys, 0)
        if v.device:  # the device's side on the firmware, its peer the library's host agent (never capped)
            if v.transport != "memory":
                return Measured.not_run("unsupported", "one side on the device is for handshakes relayed by the "
                                        "host, not tcp")
            return measure_device_min_ram(ctx.target, case.library, tc, v.device, rnd, ctx.plan.method.timeout_s)
        return measure_min_ram(ctx.info.path, case.name, case_fields(tc), rnd, ctx.plan.method.timeout_s)


def fixed_env() -> tuple[str, ...]:
    """The agent's randomness from a fixed test stream and its clock frozen
    (a host agent's; a firmware's are already): every probe then does the
    same work, signatures of the same length included, so the limit where
    it starts to pass is the same in every run."""
    return ("env", "TLSBENCH_FIXED_SEED=1", f"{keys.HOST_CLOCK_ENV}={clock_request().removeprefix('clock unix=')}")


class _Prober:
    """Probes of one case through its agent, each the first and only
    request of a fresh process (its random stream starts over: the same work
    at every limit); a probe that crashes the agent failed (and is counted)."""

    def __init__(self, path: Path, what: str, fields: dict[str, object], timeout: float):
        self.path, self.what, self.fields, self.timeout = path, what, fields, timeout
        self.wrapper = fixed_env()
        self.crashes: list[str] = []
        self.transcript: list[str] = []
        self.last: dict[int, list[Record]] = {}  # limit -> the records of its last probe

    def request(self, side: str, limit: int) -> str:
        return encode_request("handshake", **self.fields, repeats=0, warmup=0, heap_limit=limit,
                              heap_limit_side=side)

    def probe_one(self, side: str, limit: int) -> agent.Response | None:
        """One probe's answer (None: the agent crashed; noted in crashes)."""
        try:
            res = agent.call(self.path, [self.request(side, limit)], self.timeout, self.what, self.wrapper)
        except agent.AgentCallError as e:  # a library that crashes under the cap: that limit failed
            self.crashes.append(f"{side} at {limit} B: {e}")
            self.transcript.append(e.partial.stdout)
            return None
        self.transcript.append(res.stdout)
        return res.responses[0]

    def run(self, side: str, limits: list[int]) -> list[agent.Response | None]:
        out: list[agent.Response | None] = []
        for n in limits:
            out.append(self.probe_one(side, n))
            self.last[n] = out[-1].records if out[-1] is not None else []
        return out

    def passes(self, side: str) -> search.Probe:
        """A probe of this side: passed, with the bound its tls_cap record proves."""
        def probe(limits: list[int]) -> list[search.Outcome]:
            out = []
            for r in self.run(side, limits):
                cap = _one(r.records, "tls_cap") if r is not None else None
                ok = r is not None and r.status == "ok"
                bound = None
                if cap is not None and ok:
                    bound = int(cap[f"{side}_heap_peak"])
                elif cap is not None and int(cap["refusals"]) == 1:
                    # one refusal, then failure: any cap below its need refuses that block alone, and admits
                    # all the rest, so the run is the same. After a second refusal a library that went on
                    # past the first may take another path under a larger cap: no bound.
                    bound = int(cap["first_need"])
                out.append(search.Outcome(ok, bound))
            return out
        return probe


class _DeviceProber(_Prober):
    """Probes of the device's side of a handshake: each a fresh boot of the
    board's firmware (its random stream and allocator start over) and a fresh
    host peer of the same library, uncapped, drawing from the fixed stream
    (families.tls.device); only the device's side is searched."""

    def __init__(self, run_probe: Callable[[int], tls_device.DeviceResult], what: str):
        super().__init__(Path(), what, {}, 0)
        self.run_probe = run_probe

    def probe_one(self, side: str, limit: int) -> agent.Response | None:
        r = self.run_probe(limit)
        self.transcript.append(r.transcript + "\n")
        if not r.records or r.records[-1].type != "end":  # the firmware crashed or hung: that limit failed
            self.crashes.append(f"{side} at {limit} B: {r.message}")
            return None
        # the firmware's own end, unless the host peer failed after it
        end = Record("end", {**r.records[-1].fields, "status": r.status, "msg": r.message})
        return agent.Response(r.records[:-1], end)


def measure_device_min_ram(target: targets.Target, library: str, tc: TlsCase, side: str, rnd: int,
                           timeout: float) -> Measured:
    """The least heap of the device's side of a handshake against the host
    agent of its library, stored under the side's own metric names (the
    other side's figures are the host's: not stored)."""
    if not target.fresh_per_launch:  # the same work at every limit needs the random stream and allocator to start over
        return Measured.not_run("unsupported", "unsupported over a serial port: each probe needs a fresh boot and "
                                "the firmware has no reset request (search on qemu:BOARD)")

    def run_probe(limit: int) -> tls_device.DeviceResult:
        return tls_device.run(target, library, tc, side, repeats=0, warmup=0, timeout=timeout, heap_limit=limit)

    return _search(_DeviceProber(run_probe, f"{library} {side} on {target.name}"), (side,), rnd)


def _one(records: list[Record], rtype: str) -> Record | None:
    found = [r for r in records if r.type == rtype]
    return found[0] if found else None


def measure_min_ram(path: Path, what: str, fields: dict[str, object], rnd: int, timeout: float) -> Measured:
    return _search(_Prober(path, what, fields, timeout), SIDES, rnd)


def _search(p: _Prober, sides: tuple[str, ...], rnd: int) -> Measured:
    """The uncapped pass, then each side's search and its confirmation."""
    first = p.run(sides[0], [UNCAPPED])[0]
    if first is None or first.status != "ok":
        status = first.status if first is not None else "failed"
        msg = first.message if first is not None else "; ".join(p.crashes)
        if status == "unsupported":
            return Measured.not_run("unsupported", msg or "not supported", "".join(p.transcript))
        return Measured.not_run("failed", f"handshake failed without a cap: {msg}", "".join(p.transcript))
    mem = _one(first.records, "tls_cap")
    endpoint = _one(first.records, "tls_endpoint")
    if mem is None or endpoint is None or f"{sides[0]}_heap_peak" not in mem.fields:
        return Measured.not_run("unsupported", "this agent counts no heap (no tls_cap record)",
                                "".join(p.transcript))
    samples = []
    for side in sides:
        samples.append(Sample.one(rnd, f"{side}_conn_heap_peak_bytes", int(mem[f"{side}_heap_peak"])))
        samples.append(Sample.one(rnd, f"{side}_endpoint_heap_bytes", int(endpoint[f"{side}_heap_held"])))
    harness = _one(first.records, "tls_harness")  # one side on a device: the harness's heap beside it
    if harness is not None:
        samples.append(Sample.one(rnd, "device_harness_heap_bytes", int(harness["rx_line"]) + int(harness["upload"])))
    if "max_frag" in mem.fields:
        samples.append(Sample.one(rnd, "negotiated_max_frag_bytes", int(mem["max_frag"])))
    for side in sides:
        try:
            found = search.min_limit(p.passes(side), int(mem[f"{side}_heap_peak"]))
        except search.SearchError as e:
            return Measured.not_run("failed", f"{side}: {e}", "".join(p.transcript))
        stack = _one(p.last[found.limit], "tls_stack")
        samples.append(Sample.one(rnd, f"{side}_min_heap_bytes", found.limit))
        if stack is not None:
            samples.append(Sample.one(rnd, f"{side}_stack_bytes", int(stack[f"{side}_stack"])))
    reason = f"{len(p.crashes)} probes crashed the agent: {'; '.join(p.crashes)[:300]}" if p.crashes else ""
    return Measured("ok", reason, 1, "".join(p.transcript)[-20000:], samples, [])
