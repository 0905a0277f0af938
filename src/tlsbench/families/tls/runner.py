"""TLS cases of a plan: the matrix they expand to, the material they use
(certificate chains, client certificates, a PSK: one seeded test PKI, stored
with the run), and one round of measurement over memory, TCP, or against a server
nobody here wrote."""

from __future__ import annotations

import functools
import json
import subprocess
from dataclasses import replace
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import serialization

from tlsbench import paths
from tlsbench.engine import agent, pacing
from tlsbench.engine.case import Case, Measured, Sample, split_repeats
from tlsbench.engine.protocol import Record
from tlsbench.errors import AgentError, SetupError
from tlsbench.families.primitive import keys as keys_mod
from tlsbench.families.primitive.randomness import MATERIAL_SEED, Source
from tlsbench.families.tls import callgrind as tls_callgrind
from tlsbench.families.tls import catalog as tls_catalog
from tlsbench.families.tls import certs
from tlsbench.families.tls.cases import TlsCase, handshake_request
from tlsbench.families.tls.certs import Chain, Issued
from tlsbench.families.tls.names import BASELINE, BASELINE_OP, TlsVariant
from tlsbench.plans.model import Plan

PEM = serialization.Encoding.PEM

# record field -> metric (engine.metrics says what each is). In memory: both sides in one record.
MEMORY_METRICS = {
    "wall_ns": "exchange_wall_ns", "client_cpu_ns": "client_cpu_ns",
    "server_cpu_ns": "server_cpu_ns", "client_instructions": "client_instructions",
    "server_instructions": "server_instructions", "c2s_bytes": "c2s_bytes",
    "s2c_bytes": "s2c_bytes", "c2s_records": "c2s_records",
    "s2c_records": "s2c_records", "flights": "flights",
    "round_trips": "round_trips", "app_client_cpu_ns": "app_client_cpu_ns",
    "app_server_cpu_ns": "app_server_cpu_ns", "total_c2s_bytes": "total_c2s_bytes",
    "total_s2c_bytes": "total_s2c_bytes",
    "bulk_wall_ns": "bulk_wall_ns", "bulk_client_cpu_ns": "bulk_client_cpu_ns",
    "bulk_server_cpu_ns": "bulk_server_cpu_ns",
    "app_client_instructions": "app_client_instructions",
    "app_server_instructions": "app_server_instructions",
    "bulk_client_instructions": "bulk_client_instructions",
    "bulk_server_instructions": "bulk_server_instructions",
    # a board profile's cycle model (targets/cyclemodel.py): a model's figures, not measured cycles
    **{f"{p}{s}_model_cycles": f"{p}{s}_model_cycles" for p in ("", "app_", "bulk_") for s in ("client", "server")},
}
# With [tls] batch > 1 a record's timed figures are sums over that many connections (its "batch"
# field), stored as one sample of that many operations; every other field is one connection's.
BATCH_SUMMED = frozenset({"wall_ns", "client_cpu_ns", "server_cpu_ns", "client_instructions",
                          "server_instructions", "app_client_cpu_ns", "app_server_cpu_ns",
                          "app_client_instructions", "app_server_instructions",
                          *(f"{p}{s}_model_cycles" for p in ("", "app_") for s in ("client", "server"))})
# Over TCP each connection reports itself; with a batch, runs of that many consecutive connections
# become one sample: these fields summed (stored as that many operations), the others the first's.
TCP_SUMMED = frozenset({"connect_ns", "handshake_ns", "transaction_ns", "cpu_ns", "instructions", "app_cpu_ns"})
# the memory pass: counted connections per round (the timed ones count nothing). On the host a
# handshake's own draws move its heap by tens of bytes: with one counted connection a round, a 3-round
# run's range did not hold the next run's median, and compare called such rows "changed" (scripts/drawn-counts
# on 24 draws of 240 cases: 6.33 false calls in 2,200 rows with 3 draws a run, 0.44 with 6, none with 12).
# Where the target's counts are exact (firmware: the generator restarted) one is all there is.
HOST_MEMORY_PASSES = 4
HEAP_METRICS = {
    "client_heap_peak": "client_heap_peak_bytes", "server_heap_peak": "server_heap_peak_bytes",
    "client_heap_held": "client_heap_held_bytes", "server_heap_held": "server_heap_held_bytes",
}
STACK_METRICS = {"client_stack": "client_stack_bytes", "server_stack": "server_stack_bytes"}
# Over TCP each side reports its own record.
TCP_CLIENT_METRICS = {
    "connect_ns": "connect_wall_ns", "handshake_ns": "handshake_wall_ns",
    "transaction_ns": "transaction_wall_ns", "cpu_ns": "client_cpu_ns",
    "instructions": "client_instructions",
    "sent_bytes": "c2s_bytes", "recv_bytes": "s2c_bytes",
    "sent_records": "c2s_records", "recv_records": "s2c_records",
    "round_trips": "round_trips", "flights": "flights", "app_cpu_ns": "app_client_cpu_ns",
    "total_sent_bytes": "total_c2s_bytes", "total_recv_bytes": "total_s2c_bytes",
    "heap_peak": "client_heap_peak_bytes", "heap_held": "client_heap_held_bytes",
    "bulk_wall_ns": "bulk_wall_ns", "bulk_cpu_ns": "bulk_client_cpu_ns",
}
TCP_SERVER_METRICS = {
    "cpu_ns": "server_cpu_ns", "instructions": "server_instructions",
    "app_cpu_ns": "app_server_cpu_ns",
    "heap_peak": "server_heap_peak_bytes", "heap_held": "server_heap_held_bytes",
    "bulk_cpu_ns": "bulk_server_cpu_ns",
}
# against a foreign client only the server side is ours to measure
FOREIGN_CLIENT_METRICS = {**TCP_SERVER_METRICS, "sent_bytes": "s2c_bytes",
                          "recv_bytes": "c2s_bytes", "sent_records": "s2c_records",
                          "recv_records": "c2s_records",
                          "handshake_ns": "server_handshake_wall_ns"}
# no TLS: no library CPU, records or round trips to speak of (never a 0 standing for "none")
BASELINE_METRICS = {k: TCP_CLIENT_METRICS[k] for k in ("connect_ns", "transaction_ns", "total_sent_bytes",
                                                       "total_recv_bytes")}


def expand_tls(plan: Plan, kind: str = "tls") -> list[Case]:
    """The plan's handshake matrix as cases of this kind (the TLS family's,
    or another family measuring the same handshakes otherwise)."""
    t = plan.tls
    cases: list[Case] = []
    for suite in t.suites:
        for group in tls_catalog.groups_for(suite):
            if group is not None and group not in t.groups:
                continue
            for cred in tls_catalog.certs_for(suite):
                if cred in tls_catalog.KEY_TYPES and cred not in t.certs:
                    continue
                for chain in t.chains if cred in tls_catalog.KEY_TYPES else ["none"]:
                    for auth in t.auth:
                        if auth == "mutual" and cred not in tls_catalog.KEY_TYPES:
                            continue  # PSK and anonymous suites have no certificates to present
                        for hs in t.handshakes:
                            if not tls_catalog.handshake_fits(hs, suite, group):
                                continue
                            base = TlsVariant(group, cred, chain, auth, hs,
                                              verify=t.verify_peer or cred not in tls_catalog.KEY_TYPES)
                            for b in _hrr_shares(t, base):
                                for v in _transports(t, b):
                                    for lib in plan.libraries:
                                        cases.append(Case(lib, kind, suite, v.op(suite), None))
    if t.baseline and "tcp" in t.transports and kind == "tls":
        cases += [Case(lib, "tls", BASELINE, BASELINE_OP, None) for lib in plan.libraries]
    return cases


def _hrr_shares(t, base: TlsVariant) -> list[TlsVariant]:
    """A HelloRetryRequest case once per first key share the plan names
    ([tls] hrr_shares; a share that is the case's own group would need no
    retry: skipped), or once with the catalog's guess."""
    if base.handshake != "hrr" or not t.hrr_shares:
        return [base]
    return [replace(base, share=s) for s in t.hrr_shares if s != base.group]


def _transports(t, base: TlsVariant) -> list[TlsVariant]:
    out = []
    if "memory" in t.transports:
        out += [replace(base, device=t.device_side, max_frag=mf) for mf in t.max_fragment]
    if "tcp" in t.transports:
        out += [replace(base, transport="tcp", server=s) for s in t.servers]
        out += [replace(base, transport="tcp", client=c) for c in t.clients]
        if base.handshake == "full" and base.auth == "server":
            out += [replace(base, transport="tcp", capacity=n) for n in t.capacity_clients]
    return out


# ---- material: one seeded test PKI, stored with each run's keys ----

# Every TLS run sends the same certificates: its chains and PSK derive from one seed (the emulated
# runs' seed, named in their keys; MATERIAL_SEED for a host run, whose primitive keys are fresh), so
# the bytes a handshake sends and the heap its certificates take repeat from run to run on any target.
# What a handshake draws itself (its shares, nonces, an ECDSA signature's length) still varies, within
# each run's own spread. Deriving RSA keys takes seconds: the seeded chains are cached.
CHAIN_CACHE = "tls-chains.json"


def _pem_chain(ch: Chain) -> str:
    return b"".join(c.public_bytes(PEM) for c in ch.sent).decode()


def _pem_key(issued: Issued) -> str:
    return issued.key.private_bytes(PEM, serialization.PrivateFormat.PKCS8,
                                    serialization.NoEncryption()).decode()


def _make_chains(cred: str, chain: str, seed: str) -> dict[str, str]:
    src = Source(seed)
    ch = certs.make_chain(cred, chain, "server", src=src)
    client = certs.client_chain_for(ch, src=src)
    return {"chain": _pem_chain(ch), "key": _pem_key(ch.leaf), "trust": ch.root.cert.public_bytes(PEM).decode(),
            "client_chain": _pem_chain(client), "client_key": _pem_key(client.leaf)}


def _seeded_chains(cred: str, chain: str, seed: str, cache: Path) -> dict[str, str]:
    """The chains of this key type derived from ``seed``, read from ``cache`` when it holds that seed's
    (private keys: written 0600, atomically; a cache of another seed is replaced)."""
    name = f"{cred}-{chain}"
    try:
        held = json.loads(cache.read_text())
        if held.get("seed") == seed and name in held.get("chains", {}):
            return held["chains"][name]
        chains = held["chains"] if held.get("seed") == seed else {}
    except (OSError, ValueError, AttributeError, KeyError, TypeError):
        chains = {}  # missing or unreadable: made anew
    made = _make_chains(cred, chain, seed)
    keys_mod.save_reusable(cache, {"seed": seed, "chains": {**chains, name: made}})
    return made


def material(keys: dict, cred: str, chain: str) -> dict[str, str]:
    """The run's chain for this key type, with a client certificate under the
    same root, from the seeded test PKI (stored with the run's keys on first use)."""
    store = keys.setdefault("tls", {})
    seed = keys.get("seed", MATERIAL_SEED)
    if cred == tls_catalog.PSK_CRED:
        if "psk" not in store:
            store["psk"] = {"psk": Source(seed).bytes("tls/psk", 32).hex()}  # a test key, never a real one
        return store["psk"]
    name = f"{cred}-{chain}"
    if name not in store or "client_chain" not in store[name]:
        store[name] = _seeded_chains(cred, chain, seed, paths.data_dir() / CHAIN_CACHE)
    return store[name]


def prepare_material(plan: Plan, keys: dict) -> None:
    for case in expand_tls(plan):
        if case.alg != BASELINE:
            v = TlsVariant.parse(case.op)
            if v.cred != tls_catalog.ANON_CRED:
                material(keys, v.cred, v.chain)


# Parsed once per process: loading an RSA-2048 key checks it, about 38 ms, and every round of every RSA
# case asked for it again. The chains are never modified.
@functools.cache
def _chain_from_pem(cred: str, kind: str, chain_pem: str, key_pem: str, trust_pem: str, role: str) -> Chain:
    sent = x509.load_pem_x509_certificates(chain_pem.encode())
    key = serialization.load_pem_private_key(key_pem.encode(), None)
    root = Issued(None, x509.load_pem_x509_certificate(trust_pem.encode()))
    inter = Issued(None, sent[1]) if len(sent) > 1 else None
    return Chain(cred, kind, role, root, inter, Issued(key, sent[0]))


def tls_case(suite: str, v: TlsVariant, keys: dict, bulk: int) -> TlsCase:
    version = tls_catalog.version_of(suite)
    chain = client = None
    psk = None
    if v.cred == tls_catalog.PSK_CRED:
        psk = bytes.fromhex(material(keys, v.cred, v.chain)["psk"])
    elif v.cred != tls_catalog.ANON_CRED:
        m = material(keys, v.cred, v.chain)
        chain = _chain_from_pem(v.cred, v.chain, m["chain"], m["key"], m["trust"], "server")
        if v.auth == "mutual":
            client = _chain_from_pem(v.cred, v.chain, m["client_chain"], m["client_key"], m["trust"], "client")
    resume = {"resume-id": "session-id", "resume-ticket": "ticket", "resume-psk-only": "psk-only",
              "0rtt": "ticket"}.get(v.handshake, "none")
    return TlsCase(version, suite, v.group, chain, client_chain=client,
                   client_share=(v.share or tls_catalog.hrr_first_share(v.group)) if v.handshake == "hrr" and v.group
                   else None,
                   resume=resume, early=v.handshake == "0rtt", psk=psk, bulk=bulk, max_frag=v.max_frag,
                   verify_peer=v.verify)


# ---- one round ----

def _samples(records: list[Record], table: dict, first: int) -> list[Sample]:
    """In-memory handshakes' samples, indexed from `first` by the record's i."""
    out = []
    for r in records:
        idx = first + int(r["i"])
        batch = int(r.get("batch", 1))
        for name, metric in table.items():
            if name in r.fields:
                iters = batch if name in BATCH_SUMMED else 1
                out.append(Sample(idx, False, iters, metric, int(r[name])))
        if "bulk_bytes" in r.fields and int(r.get("bulk_wall_ns", 0)) > 0:
            rate = int(r["bulk_bytes"]) * 1_000_000_000 // int(r["bulk_wall_ns"])
            out.append(Sample.one(idx, "bulk_throughput_per_s", rate))
    return out


def _grouped(records: list[Record | None], table: dict, first: int, batch: int,
             throughput: bool = True) -> list[Sample]:
    """TCP connections in the order they ran, `batch` consecutive ones per
    sample (numbered from `first`): TCP_SUMMED fields summed over the group,
    the rest (bytes, records, bulk) the group's first connection's. A missing
    record (None: a side that did not report) leaves its group out."""
    out = []
    for k in range(0, len(records), batch):
        group = records[k:k + batch]
        if any(r is None for r in group):
            continue
        head = group[0]
        assert head is not None
        for name, metric in table.items():
            if name not in head.fields:
                continue
            if name in TCP_SUMMED:
                out.append(Sample(first + k // batch, False, len(group), metric,
                                  sum(int(r[name]) for r in group)))  # type: ignore[index]
            else:
                out.append(Sample.one(first + k // batch, metric, int(head[name])))
        if throughput and "bulk_bytes" in head.fields and int(head.get("bulk_wall_ns", 0)) > 0:
            rate = int(head["bulk_bytes"]) * 1_000_000_000 // int(head["bulk_wall_ns"])
            out.append(Sample.one(first + k // batch, "bulk_throughput_per_s", rate))
    return out


def _failed(status: str, message: str, transcript: str = "") -> Measured:
    if status == "unsupported":
        return Measured("unsupported", message or "not supported", None, transcript, [], [])
    # a handshake that fails is a result too: recorded with its reason
    return Measured("failed", f"handshake failed: {message}", None, transcript, [], [])


def _server_path(v: TlsVariant, client_lib: str) -> Path | str:
    if v.server in tls_catalog.EXTERNAL_SERVERS:
        return v.server
    return paths.agent_path(client_lib if v.server == "same" else v.server)


def paces_itself(case: Case) -> bool:
    """Whether a paced round of this case times the reference workload in the agent that measures it (in
    memory: one process, the reference just before and just after its handshakes); the others (TCP, a
    device side) are paced by the reference in an agent of its own."""
    return case.alg != BASELINE and TlsVariant.parse(case.op).transport == "memory"


def measure_tls(client: Path, case: Case, keys: dict, plan: Plan, rnd: int,
                place: dict[str, int] | None = None, paced: bool = False, memory_passes: int = 1) -> Measured:
    """One round of a TLS case: each repeat a fresh connection (after the full
    handshake it resumes, for resumed kinds). In memory the timed connections
    are placed as ``place`` says (engine.layout); over TCP they are not (two
    processes and the kernel in the path). ``paced`` (in memory only,
    paces_itself): the reference workload runs in the same agent just before
    and after the handshakes, stored in the round's info. ``memory_passes``: counted connections in
    memory per round (HOST_MEMORY_PASSES where the target's counts are drawn)."""
    from tlsbench.families.tls import net as tls_net  # sockets are only needed for tcp cases

    m = plan.method
    per_round = split_repeats(m.repeats, m.rounds)
    first, n = sum(per_round[:rnd]), per_round[rnd]
    bulk = plan.tls.bulk_kib * 1024
    batch = plan.tls.batch
    if case.alg == BASELINE:
        dummy = TlsCase(13, BASELINE, None, None)
        r = tls_net.run_over_tcp(client, client, dummy, repeats=n * batch, warmup=m.warmup, timeout=m.timeout_s,
                                 plain=True)
        if r.status != "ok":
            return _failed(r.status, r.message)
        return Measured("ok", "", batch, "", _grouped(list(r.client), BASELINE_METRICS, first, batch), [])
    v = TlsVariant.parse(case.op)
    tc = tls_case(case.alg, v, keys, bulk)
    batch = plan.tls.batch_for(tc.resume != "none")
    if v.transport == "memory":
        measured = _measure_memory(client, case, tc, n, first, m.warmup, m.timeout_s, rnd, place, batch, paced,
                                   memory_passes)
        if plan.tls.callgrind and measured.status == "ok":
            try:
                measured.samples += _callgrind_samples(client, tc, rnd, m.timeout_s)
            except (AgentError, SetupError, subprocess.SubprocessError) as e:
                return Measured("failed", f"callgrind count: {e}", None, measured.transcript, [], [])
        return measured
    if v.client != "same":  # a tool nobody here wrote against this library's server: server side only
        # one process a connection: batches average the tool's own turns on the CPU, as for our agents
        r = tls_net.run_external_client(client, v.client, tc, repeats=n * batch, warmup=m.warmup,
                                        timeout=m.timeout_s)
        if r.status != "ok":
            return _failed(r.status, r.message)
        if len(r.server) != n * batch:
            return Measured("failed", f"the server reported {len(r.server)} connections, {n * batch} were asked for",
                            None, "", [], [])
        samples = _grouped([r.server[i] for i in sorted(r.server)], FOREIGN_CLIENT_METRICS, first, batch, False)
        return Measured("ok", "", batch, "", samples + _tcp_memory(r, rnd), [])
    server = _server_path(v, case.library)
    if v.capacity:
        if isinstance(server, str):
            return Measured("unsupported", "capacity is measured against tlsbench server agents", None, "", [], [])
        window_ms = plan.tls.capacity_window_ms
        r = tls_net.run_capacity(client, server, tc, v.capacity, plan.tls.capacity_seconds, m.timeout_s,
                                 window_ms=window_ms)
        if r.status != "ok" or r.capacity is None:
            return _failed(r.status, r.message)
        cap = r.capacity
        reason = f"{cap['failures']} failed transactions: {cap.get('error', '')}" if cap["failures"] else ""
        if window_ms:
            fastest = tls_net.fastest_window_rate(r.windows)
            if fastest is None:
                return Measured("failed", f"no {window_ms} ms window was whole in every client: a transaction "
                                "took longer, raise [tls] capacity_seconds and capacity_window_ms", None,
                                r.transcript, [], [])
            rate = int(fastest)
        else:
            rate = int(cap["transactions"]) * 1_000_000_000 // max(1, int(cap["wall_ns"]))
        # numbered as the round's first batch, so compare sees which round (agent processes) it came from
        return Measured("ok", reason, 1, r.transcript, [Sample.one(first, "transactions_per_s", rate)], [])
    r = tls_net.run_over_tcp(client, server, tc, repeats=n * batch, warmup=m.warmup, timeout=m.timeout_s)
    if r.status != "ok":
        return _failed(r.status, r.message)
    if len(r.client) != n * batch:
        return Measured("failed", f"client reported {len(r.client)} connections, {n * batch} were asked for",
                        None, "", [], [])
    # connection numbers count warm-ups and priming handshakes: samples are numbered by position
    pairs = r.pairs()
    samples = _grouped([c for c, _s in pairs], TCP_CLIENT_METRICS, first, batch)
    samples += _grouped([s for _c, s in pairs], TCP_SERVER_METRICS, first, batch, False)
    return Measured("ok", "", batch, "", samples + _tcp_memory(r, rnd), [])


# measured handshakes per round under callgrind (its counts are exact: more would only cost time)
CALLGRIND_HANDSHAKES = 2


def _callgrind_samples(client: Path, tc: TlsCase, rnd: int, timeout: float) -> list[Sample]:
    """Each side's handshake instructions under callgrind: one sample per round over its handshakes."""
    c = tls_callgrind.count(client, tc, CALLGRIND_HANDSHAKES, timeout * 10)  # valgrind runs ~50x slower
    return [Sample(rnd, False, c.handshakes, "client_callgrind_instructions", c.client),
            Sample(rnd, False, c.handshakes, "server_callgrind_instructions", c.server)]


def _tcp_memory(r, rnd: int) -> list[Sample]:
    """Each side's heap from its memory pass: one counted connection per round."""
    out = []
    for rec, table in ((r.client_memory, TCP_CLIENT_METRICS), (r.server_memory, TCP_SERVER_METRICS)):
        if rec is not None:
            out += [Sample.one(rnd, table[f], int(rec[f])) for f in ("heap_peak", "heap_held") if f in rec.fields]
    return out


def _measure_memory(client: Path, case: Case, tc: TlsCase, n: int, first: int, warmup: int, timeout: float,
                    rnd: int, place: dict[str, int] | None = None, batch: int = 1, paced: bool = False,
                    memory_passes: int = 1) -> Measured:
    request = handshake_request(tc, repeats=n, warmup=warmup, place=place, batch=batch, memory_passes=memory_passes)
    try:
        res = agent.call(client, [pacing.REQUEST, request, pacing.REQUEST] if paced else [request], timeout,
                         case.name)
    except agent.AgentCallError as e:
        return Measured("failed", str(e), None, e.partial.stdout, [], [])
    resp = res.responses[1 if paced else 0]
    if resp.status != "ok":
        return _failed(resp.status, resp.message, res.stdout)
    handshakes = resp.of_type("tls")
    if len(handshakes) != n:
        return Measured("failed", f"agent sent {len(handshakes)} handshakes, {n} were asked for",
                        None, res.stdout, [], [])
    if any(int(r.get("batch", 1)) != batch for r in handshakes):
        return Measured("failed", f"agent summed other than the {batch} connections per sample asked for",
                        None, res.stdout, [], [])
    samples = _samples(handshakes, MEMORY_METRICS, first)
    for rec in resp.of_type("tls_stack"):  # one untimed pass per round
        samples += [Sample.one(rnd, metric, int(rec[f])) for f, metric in STACK_METRICS.items()]
    counted = resp.of_type("tls_memory")  # and the counted, untimed connections
    if len(counted) != memory_passes:
        return Measured("failed", f"agent sent {len(counted)} memory passes, {memory_passes} were asked for",
                        None, res.stdout, [], [])
    for k, rec in enumerate(counted):  # numbered across the rounds, memory_passes a round
        at = rnd * memory_passes + k
        samples += [Sample.one(at, metric, int(rec[f])) for f, metric in HEAP_METRICS.items() if f in rec.fields]
        if "max_frag" in rec.fields:  # mfl=<n>: what the client sends at most once the handshake is done
            samples.append(Sample.one(at, "negotiated_max_frag_bytes", int(rec["max_frag"])))
    measured = Measured("ok", "", batch, res.stdout, samples, [])
    placed = resp.of_type("tls_place")  # where the timed connections' frame really landed
    if placed:
        measured.round_info = {"stack_at": int(placed[0]["stack_at"]), "heap_shift": int(placed[0]["heap_shift"])}
    if paced:
        measured.round_info = {**(measured.round_info or {}),
                               "reference_ns": pacing.answered(res.responses, 0, case.name),
                               "reference_after_ns": pacing.answered(res.responses, 2, case.name)}
    return measured


__all__ = ["expand_tls", "measure_tls", "prepare_material", "tls_case"]
