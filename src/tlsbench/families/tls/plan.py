"""The [tls] table of a plan: the handshake matrix, read by the TLS family
and by the min-ram family (the same handshakes, counted); from a plan file or
`tlsbench run` flags (--suites, --groups, --certs, --handshakes, --device-side,
--callgrind)."""

from __future__ import annotations

import argparse
import copy
from dataclasses import asdict, dataclass, field
from typing import Any

from tlsbench import versions
from tlsbench.families.tls import catalog as tls_catalog
from tlsbench.plans.checks import Locator, check_bool, check_list, check_number
from tlsbench.plans.flags import choose
from tlsbench.plans.model import Plan

TABLE = "tls"
KIND = "tls"  # the TLS family's kind: what a plan selects when it sets the matrix by flags
# the case kinds whose cases come from this table (the TLS family's, the min-ram family's)
USED_BY = (KIND, "min-ram")
DEVICE_SIDES = ("client", "server")


@dataclass
class TlsSelect:
    """The handshake matrix (kind "tls"): empty lists mean "all that fit"."""

    suites: list[str] = field(default_factory=lambda: ["TLS_AES_128_GCM_SHA256",
                                                       "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
                                                       "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"])
    groups: list[str] = field(default_factory=lambda: ["x25519", "p256"])
    certs: list[str] = field(default_factory=lambda: ["ecdsa-p256", "rsa2048"])
    chains: list[str] = field(default_factory=lambda: ["full"])
    auth: list[str] = field(default_factory=lambda: ["server"])
    handshakes: list[str] = field(default_factory=lambda: ["full"])
    transports: list[str] = field(default_factory=lambda: ["memory"])
    # tcp only: the server side; "same" is the client's own library
    servers: list[str] = field(default_factory=lambda: ["same"])
    # tcp only: client tools nobody here wrote, against each library's server
    clients: list[str] = field(default_factory=list)
    bulk_kib: int = 0  # client -> server after the response (throughput); 0: none
    # host handshakes (in memory and over TCP): connections per stored sample, their times summed and
    # divided by it (one handshake is 0.1-6 ms: a sample of several spans more of the machine's phases)
    batch: int = 1
    # the same for resumed handshakes (0: batch): one is 0.05-0.3 ms, so a sample of `batch` of them is
    # still shorter than the phases of a shared machine (docs/method.md, "Resumed handshakes in larger batches")
    resumed_batch: int = 0
    # in memory: each round also counts each side's handshake instructions under callgrind (exact,
    # without hardware counters; valgrind's CPU, not the host's: families/tls/callgrind.py)
    callgrind: bool = False
    baseline: bool = False  # tcp: the same request and response over plain TCP, per library
    capacity_clients: list[int] = field(default_factory=list)  # tcp transactions/s with N clients
    capacity_seconds: float = 2.0
    # a round's transactions/s is that of its fastest window this long, summed over the clients (a shared
    # machine's slow phases last seconds; docs/method.md, "Capacity: the fastest window"); 0: the whole round
    capacity_window_ms: int = 100
    # firmware targets: the device runs only this side of the handshake ("client" or "server"), its peer
    # is the host agent of the same library; "" both sides in the device's memory
    device_side: str = ""
    # the maximum fragment lengths the client asks for, 0 for none asked (each a case option, mfl=<n>)
    max_fragment: list[int] = field(default_factory=lambda: [0])
    # False: clients do not verify the server's chain or name (as peer benchmark tools that load
    # no trust anchor do); cases are then named with "noverify" (certificate suites only)
    verify_peer: bool = True
    # hrr cases: the client's first key share, one case per share (share=<group>); the server and the
    # client's second ClientHello use the case's group. Empty: the catalog's guess (hrr_first_share)
    hrr_shares: list[str] = field(default_factory=list)

    def batch_for(self, resumed: bool) -> int:
        """Connections per stored sample for a case that resumes or not."""
        return (self.resumed_batch or self.batch) if resumed else self.batch


KEYS = {
    "suites": "list of IANA suite names",
    "groups": "list of key-exchange groups",
    "certs": "list of certificate key types",
    "chains": "list of chain kinds (full, leaf)",
    "auth": "list of server, mutual",
    "handshakes": "list of handshake kinds",
    "transports": "list of memory, tcp",
    "servers": "list of server sides for tcp: same, a library, or an external server",
    "clients": "list of external client tools for tcp (against each library's server)",
    "bulk_kib": "integer 0..65536 (KiB sent after the response, for throughput)",
    "batch": "integer 1..1000 (host handshakes per stored sample, their times divided by it)",
    "resumed_batch": "integer 0..1000 (the same for resumed handshakes; 0: batch)",
    "callgrind": "boolean (in memory: also count each side's handshake instructions under callgrind)",
    "baseline": "boolean (tcp: plain TCP baseline)",
    "capacity_clients": "list of client counts (tcp transactions per second)",
    "capacity_seconds": "number > 0 and <= 3600 (seconds per capacity measurement)",
    "capacity_window_ms": "integer 0 or 10..60000, at most a third of capacity_seconds (transactions/s of a "
                          "round's fastest window this long; 0: of the whole round)",
    "device_side": "\"client\" or \"server\" (firmware: only this side on the device, its peer on the host)",
    "max_fragment": "list of maximum fragment lengths the client asks for: 0 (none), "
                    + ", ".join(str(n) for n in tls_catalog.MAX_FRAGMENTS),
    "verify_peer": "boolean (false: clients skip verifying the server's chain; cases named noverify)",
    "hrr_shares": "list of key-exchange groups: an hrr case's first client key share (the server accepts only "
                  "the case's group), one case per share",
}


def _name_lists() -> tuple[tuple[str, tuple[str, ...]], ...]:
    return (("suites", tls_catalog.SUITES), ("groups", tls_catalog.GROUPS),
            ("certs", tls_catalog.KEY_TYPES), ("chains", tls_catalog.CHAIN_KINDS),
            ("auth", tls_catalog.AUTHS), ("handshakes", tuple(tls_catalog.HANDSHAKES)),
            ("transports", tls_catalog.TRANSPORTS),
            ("servers", ("same", *versions.identifiers(), *tls_catalog.EXTERNAL_SERVERS)),
            ("clients", tls_catalog.EXTERNAL_CLIENTS), ("hrr_shares", tls_catalog.GROUPS))


# run flags that set the matrix: name, what one value is, allowed values, where to see them
MATRIX_FLAGS = (
    ("suites", "suite", tls_catalog.SUITES, "tlsbench list suites"),
    ("groups", "group", tls_catalog.GROUPS, "tlsbench run --help"),
    ("certs", "certificate key type", tls_catalog.KEY_TYPES, "tlsbench run --help"),
    ("handshakes", "handshake kind", tuple(tls_catalog.HANDSHAKES), "tlsbench run --help"),
)


def _canonical_servers(value: object) -> object:
    """A server named by any version name ("openssl@3.0", also while 3.0 is
    the default) as its identifier; anything else as given, for the checks."""
    if not isinstance(value, list):
        return value
    return [versions.canonical(v) if isinstance(v, str) and "@" in v and not versions.problem(v) else v
            for v in value]


def _parse_numbers(loc: Locator, tls: dict, t: TlsSelect) -> None:
    if "bulk_kib" in tls:
        t.bulk_kib = int(check_number(loc, TABLE, "bulk_kib", KEYS["bulk_kib"], tls["bulk_kib"], True, 0, False))
        if t.bulk_kib > 65536:
            raise loc.error(TABLE, "bulk_kib", "must be at most 65536 (64 MiB)")
    if "batch" in tls:
        t.batch = int(check_number(loc, TABLE, "batch", KEYS["batch"], tls["batch"], True, 1, False))
        if t.batch > 1000:
            raise loc.error(TABLE, "batch", f"must be {KEYS['batch']}, got {t.batch}")
    if "resumed_batch" in tls:
        t.resumed_batch = int(check_number(loc, TABLE, "resumed_batch", KEYS["resumed_batch"], tls["resumed_batch"],
                                           True, 0, False))
        if t.resumed_batch > 1000:
            raise loc.error(TABLE, "resumed_batch", f"must be {KEYS['resumed_batch']}, got {t.resumed_batch}")
    if "baseline" in tls:
        t.baseline = check_bool(loc, TABLE, "baseline", tls["baseline"])
    if "callgrind" in tls:
        t.callgrind = check_bool(loc, TABLE, "callgrind", tls["callgrind"])
    if "verify_peer" in tls:
        t.verify_peer = check_bool(loc, TABLE, "verify_peer", tls["verify_peer"])
    if "capacity_clients" in tls:
        v = tls["capacity_clients"]
        if not isinstance(v, list) or not all(isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= 64
                                              for n in v):
            raise loc.error(TABLE, "capacity_clients", "must be a list of integers 1..64")
        t.capacity_clients = sorted(set(v))
    if "device_side" in tls:
        if tls["device_side"] not in DEVICE_SIDES:
            raise loc.error(TABLE, "device_side", "must be one of: " + ", ".join(f'"{x}"' for x in DEVICE_SIDES))
        t.device_side = tls["device_side"]
    if "max_fragment" in tls:
        v = tls["max_fragment"]
        allowed = (0, *tls_catalog.MAX_FRAGMENTS)
        if (not isinstance(v, list) or not v
                or not all(isinstance(n, int) and not isinstance(n, bool) and n in allowed for n in v)):
            raise loc.error(TABLE, "max_fragment", f"must be a non-empty list of: {', '.join(map(str, allowed))}")
        t.max_fragment = sorted(set(v))
    if "capacity_seconds" in tls:
        t.capacity_seconds = float(check_number(loc, TABLE, "capacity_seconds", KEYS["capacity_seconds"],
                                                tls["capacity_seconds"], False, 0, True))
        if t.capacity_seconds > 3600:
            raise loc.error(TABLE, "capacity_seconds", "must be at most 3600")
    if "capacity_window_ms" in tls:
        t.capacity_window_ms = int(check_number(loc, TABLE, "capacity_window_ms", KEYS["capacity_window_ms"],
                                                tls["capacity_window_ms"], True, 0, False))
    # the first window is cut short by the start and not used, so a round needs room for two more
    if t.capacity_window_ms and not (10 <= t.capacity_window_ms <= 60000
                                     and 3 * t.capacity_window_ms <= t.capacity_seconds * 1000):
        raise loc.error(TABLE, "capacity_window_ms", f"must be {KEYS['capacity_window_ms']}, got "
                        f"{t.capacity_window_ms} with capacity_seconds = {t.capacity_seconds:g}")


def figure_settings(plan: dict) -> dict[str, str]:
    """What a stored run's [tls] settings make of its figures that its case names do not say: handshakes
    per sample, and the stretch of time a transactions/s figure is the rate of (runs stored before
    capacity_window_ms took the whole round)."""
    tls = plan.get("tls") or {}
    if "tls" not in plan.get("kinds", []) or not tls:
        return {}
    batch = tls.get("batch", 1)
    out = {"tls handshakes per sample": f"{batch} (resumed {tls.get('resumed_batch') or batch})"}
    if tls.get("capacity_clients"):
        window = tls.get("capacity_window_ms", 0)
        out["tls capacity figure"] = f"fastest {window} ms window" if window else "whole round"
    return out


class TlsSection:
    """The [tls] table, as plan.tls (a TlsSelect)."""

    table = TABLE
    keys = KEYS

    def defaults(self) -> dict[str, Any]:
        return {"tls": TlsSelect()}

    def parse(self, loc: Locator, given: dict, plan: Plan) -> None:
        t = plan.tls  # type: ignore[attr-defined]
        for key, allowed in _name_lists():
            if key in given:
                value = _canonical_servers(given[key]) if key == "servers" else given[key]
                setattr(t, key, check_list(loc, TABLE, key, value, list(allowed)))
        _parse_numbers(loc, given, t)
        if t.hrr_shares and "hrr" not in t.handshakes:
            raise loc.error(TABLE, "hrr_shares", 'names first key shares of hrr cases: needs "hrr" in handshakes')

    def validate(self, plan: Plan, loc: Locator) -> None:
        """Its values are checked as they are read."""

    def load(self, stored: dict) -> dict[str, Any]:
        return {"tls": TlsSelect(**stored.get(TABLE, {}))}

    def dump(self, plan: Plan) -> dict[str, Any]:
        return {"tls": asdict(plan.tls)}  # type: ignore[attr-defined]

    def long_lists(self, plan: Plan) -> dict[str, int]:
        return {"capacity_clients": len(plan.tls.capacity_clients)}  # type: ignore[attr-defined]

    def cut(self, plan: Plan, keep: dict[str, int]) -> None:
        t = copy.copy(plan.tls)  # type: ignore[attr-defined]
        t.capacity_clients = t.capacity_clients[:keep.get("capacity_clients", 1)]
        plan.tls = t  # type: ignore[attr-defined]

    def device_side(self, plan: Plan) -> str:
        return plan.tls.device_side if set(USED_BY) & set(plan.kinds) else ""  # type: ignore[attr-defined]

    def firmware_problem(self, plan: Plan, target_name: str, what: str) -> str | None:
        if KIND in plan.kinds and "tcp" in plan.tls.transports:  # type: ignore[attr-defined]
            return (f"{what} {plan.name}: [tls] transports names tcp, not on {target_name}: a firmware target"
                    " runs handshakes in memory (transports = [\"memory\"]), or one side against the host"
                    " (--device-side client or server)")
        return None

    def add_select_flags(self, p: argparse.ArgumentParser) -> None:
        for name, what, allowed, _see in MATRIX_FLAGS:
            shown = ", ".join(allowed) if len(allowed) < 12 else f"{len(allowed)} IANA names (tlsbench list suites)"
            p.add_argument(f"--{name}", dest=f"tls_{name}", metavar=name.upper(),
                           help=f"TLS cases: comma-separated {what}s, of: {shown} (default: the plan's;"
                                " sets the plan to TLS unless --kinds says more)")

    def add_target_flags(self, p: argparse.ArgumentParser) -> None:
        p.add_argument("--device-side", dest="device_side", choices=DEVICE_SIDES,
                       help="firmware: only this side of each handshake on the device, its peer the host agent of"
                            " the same library (the case name says device=SIDE)")
        p.add_argument("--callgrind", action="store_true",
                       help="host TLS in memory: each round also counts each side's handshake instructions under"
                            " callgrind (exact, for regression checks; valgrind's CPU, not the host's: docs/method.md)")

    def apply_flags(self, a: argparse.Namespace, plan: Plan, kinds_given: bool) -> list[str]:
        t = plan.tls  # type: ignore[attr-defined]
        flags = []
        if a.device_side:
            t.device_side = a.device_side
            flags.append(f"--device-side {a.device_side}")
        if a.callgrind:  # as [tls] callgrind = true
            t.callgrind = True
            flags.append("--callgrind")
        for name, what, allowed, see in MATRIX_FLAGS:  # as the [tls] table would set them
            text = getattr(a, f"tls_{name}")
            if text:
                setattr(t, name, choose(what, text, list(allowed), see))
                if KIND not in plan.kinds:
                    plan.kinds = [*plan.kinds, KIND] if kinds_given else [KIND]
                flags.append(f"--{name} {text}")
        return flags


SECTION = TlsSection()
