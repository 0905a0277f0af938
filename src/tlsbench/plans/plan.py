"""Benchmark plans: TOML files (or presets, or command-line flags).

A plan has two tables:

  [select]  libraries, kinds, algorithms, ops, sizes   (what to measure)
  [method]  warmup, repeats, outliers, min_sample_ms, timeout_s   (how)

and an optional top-level ``name`` and ``description``. Every mistake is an
error naming the file, the line and the allowed values.
"""

from __future__ import annotations

import difflib
import math
import re
import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path

from tlsbench import paths, versions
from tlsbench.engine.stats import POLICY_HELP, parse_policy
from tlsbench.errors import PlanError
from tlsbench.families.primitive.catalog import ALGORITHMS, BENCH_OPS, DEFAULT_KINDS, DEFAULT_SIZES, KINDS, LIBRARIES
from tlsbench.families.tls import catalog as tls_catalog
from tlsbench.plans.where import TARGET_KINDS

MAX_SIZE = 1 << 20


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
    # in memory: each round also counts each side's handshake instructions under callgrind (exact,
    # without hardware counters; valgrind's CPU, not the host's: families/tls/callgrind.py)
    callgrind: bool = False
    baseline: bool = False  # tcp: the same request and response over plain TCP, per library
    capacity_clients: list[int] = field(default_factory=list)  # tcp transactions/s with N clients
    capacity_seconds: float = 2.0
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


PLAN_KINDS = (*KINDS, "tls", "min-ram")


@dataclass
class Plan:
    name: str = "custom"
    description: str = ""
    libraries: list[str] = field(default_factory=lambda: list(LIBRARIES))
    kinds: list[str] = field(default_factory=lambda: list(DEFAULT_KINDS))
    algorithms: list[str] = field(default_factory=list)  # empty: every algorithm of the kinds
    ops: list[str] = field(default_factory=list)  # empty: the default ops of each kind
    sizes: list[int] = field(default_factory=lambda: list(DEFAULT_SIZES))
    method: Method = field(default_factory=Method)
    tls: TlsSelect = field(default_factory=TlsSelect)
    # where it runs (plans.where): "host", "firmware"; with why not the other, and the preset that runs there
    targets: list[str] = field(default_factory=lambda: list(TARGET_KINDS))
    target_note: str = ""
    target_instead: str = ""

    @property
    def device_side(self) -> str:
        """The side its handshakes put on a firmware device ("" none)."""
        return self.tls.device_side if {"tls", "min-ram"} & set(self.kinds) else ""

    def to_dict(self) -> dict:
        return asdict(self)

    @staticmethod
    def from_dict(d: dict) -> Plan:
        d = dict(d)
        d["method"] = Method(**d.get("method", {}))
        d["tls"] = TlsSelect(**d.get("tls", {}))
        return Plan(**d)


_SELECT_KEYS = {
    "libraries": "list of library names",
    "kinds": "list of kinds",
    "algorithms": "list of algorithm names",
    "ops": "list of operations",
    "sizes": "list of message sizes in bytes",
}
_METHOD_KEYS = {
    "warmup": "integer 0..1000",
    "repeats": "integer 1..100000",
    "outliers": POLICY_HELP,
    "min_sample_ms": "number > 0 and <= 60000 (milliseconds one sample lasts at least)",
    "timeout_s": "number > 0 and <= 86400 (seconds before a hanging case is killed)",
    "rounds": "integer 1..repeats, at most 1000 (passes over the plan that share a case's repeats)",
    "env": "table of environment variables (NAME = \"value\") for every process the run starts",
    "allow_loader_env": "boolean: let env set LD_* and PATH (they change which code is measured)",
}
# [method] numbers, for plan files and command-line flags alike:
# name -> (integer, lowest, lowest itself allowed, highest)
METHOD_BOUNDS: dict[str, tuple[bool, float, bool, float]] = {
    "warmup": (True, 0, True, 1000),
    "repeats": (True, 1, True, 100_000),
    "rounds": (True, 1, True, 1000),
    "min_sample_ms": (False, 0, False, 60_000),
    "timeout_s": (False, 0, False, 86_400),
}
# variables that change which code runs, like LD_PRELOAD: the dynamic loader's, an interpreter's
# module path, OpenSSL's configuration and module folders (they load providers and engines),
# glibc's character-set and locale modules, a shell's start-up file. Tunables that keep the code
# (OPENSSL_ia32cap, GNUTLS_CPUID_OVERRIDE: the presets use them) stay allowed.
LOADER_ENV = re.compile(r"LD_[A-Za-z0-9_]*|PATH|PYTHON(PATH|HOME|STARTUP|USERBASE|EXECUTABLE)|OPENSSL_CONF"
                        r"|OPENSSL_CONF_INCLUDE|OPENSSL_MODULES|OPENSSL_ENGINES|GNUTLS_SYSTEM_PRIORITY_FILE"
                        r"|GCONV_PATH|LOCPATH|NLSPATH|BASH_ENV|ENV|PERL5LIB|PERL5OPT|RUBYLIB|RUBYOPT|NODE_OPTIONS"
                        r"|NODE_PATH|QEMU_LD_PREFIX")
ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
DEVICE_SIDES = ("client", "server")
_TLS_KEYS = {
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
    "callgrind": "boolean (in memory: also count each side's handshake instructions under callgrind)",
    "baseline": "boolean (tcp: plain TCP baseline)",
    "capacity_clients": "list of client counts (tcp transactions per second)",
    "capacity_seconds": "number > 0 and <= 3600 (seconds per capacity measurement)",
    "device_side": "\"client\" or \"server\" (firmware: only this side on the device, its peer on the host)",
    "max_fragment": "list of maximum fragment lengths the client asks for: 0 (none), "
                    + ", ".join(str(n) for n in tls_catalog.MAX_FRAGMENTS),
    "verify_peer": "boolean (false: clients skip verifying the server's chain; cases named noverify)",
    "hrr_shares": "list of key-exchange groups: an hrr case's first client key share (the server accepts only "
                  "the case's group), one case per share",
}
_TOP_KEYS = {"name": "string", "description": "string", "select": "table", "method": "table", "tls": "table",
             "targets": "list of where the plan runs: host, firmware",
             "target_note": "string (why the plan does not run on the other kind of target)",
             "target_instead": "string (the preset that runs on the other kind of target)"}


def all_algorithm_names() -> list[str]:
    return [a for algs in ALGORITHMS.values() for a in algs]


def all_ops() -> list[str]:
    return sorted({op for ops in BENCH_OPS.values() for op in ops})


class _Locator:
    """Finds the line of a key in a TOML text, for error messages."""

    def __init__(self, source: str, text: str):
        self.source = source
        self.lines = text.splitlines()

    def line_of(self, table: str | None, key: str | None) -> int:
        current = None
        header_line = 0
        for i, raw in enumerate(self.lines, 1):
            line = raw.strip()
            m = re.match(r"\[\s*([A-Za-z0-9_.\-\"]+)\s*\]", line)
            if m:
                current = m.group(1).strip('"')
                if current == table:
                    header_line = i
                continue
            if key and current == table and re.match(rf"\"?{re.escape(key)}\"?\s*=", line):
                return i
        return header_line or 1

    def error(self, table: str | None, key: str | None, message: str) -> PlanError:
        line = self.line_of(table, key)
        where = f"[{table}] " if table else ""
        what = f"{where}{key}" if key else where.strip()
        return PlanError(f"{self.source}:{line}: {what}: {message}")


def _names_error(loc: _Locator, table: str | None, key: str, bad: str, allowed: list[str]) -> PlanError:
    near = difflib.get_close_matches(bad, allowed, n=3, cutoff=0.5)
    hint = f" (did you mean {', '.join(near)}?)" if near else ""
    return loc.error(table, key, f"unknown value {bad!r}{hint}; allowed: {', '.join(allowed)}")


def _check_list(loc: _Locator, table: str | None, key: str, value: object, allowed: list[str]) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise loc.error(table, key, f"must be a list of strings; allowed: {', '.join(allowed)}")
    for v in value:
        if v not in allowed:
            raise _names_error(loc, table, key, v, allowed)
    if len(set(value)) != len(value):
        raise loc.error(table, key, "lists a value twice")
    return list(value)


def _check_libraries(loc: _Locator, table: str, key: str, value: object) -> list[str]:
    """Library identifiers: a bare name (its default version) or name@version."""
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise loc.error(table, key, f"must be a list of strings; allowed: {', '.join(versions.identifiers())}")
    for v in value:
        if versions.base(v) not in versions.VERSIONS:  # the nearest library names, then every version allowed
            near = difflib.get_close_matches(v, list(versions.VERSIONS), n=3, cutoff=0.5)
            hint = f" (did you mean {', '.join(near)}?)" if near else ""
            raise loc.error(table, key, f"unknown value {v!r}{hint}; allowed: {', '.join(versions.identifiers())}")
        if versions.problem(v):
            raise loc.error(table, key, versions.problem(v))
    chosen = [versions.canonical(v) for v in value]
    if len(set(chosen)) != len(chosen):
        raise loc.error(table, key, "lists a library version twice")
    return chosen


def _canonical_servers(value: object) -> object:
    """A server named by any version name ("openssl@3.0", also while 3.0 is
    the default) as its identifier; anything else as given, for the checks."""
    if not isinstance(value, list):
        return value
    return [versions.canonical(v) if isinstance(v, str) and "@" in v and not versions.problem(v) else v
            for v in value]


def _check_sizes(loc: _Locator, table: str, value: object) -> list[int]:
    if (
        not isinstance(value, list)
        or not value
        or not all(isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= MAX_SIZE for v in value)
    ):
        raise loc.error(table, "sizes", f"must be a non-empty list of integers 1..{MAX_SIZE}")
    return sorted(set(value))


def _check_unknown(loc: _Locator, table: str | None, got: dict, allowed: dict[str, str]) -> None:
    for key in got:
        if key not in allowed:
            listing = ", ".join(f"{k} ({v})" for k, v in allowed.items())
            raise loc.error(table, key, f"unknown key; allowed keys: {listing}")


def _number(loc: _Locator, key: str, value: object, integer: bool, minimum: float, strict: bool,
            table: str = "tls") -> float:
    ok_type = isinstance(value, int) if integer else isinstance(value, (int, float))
    if (isinstance(value, bool) or not ok_type or not math.isfinite(value)  # type: ignore[arg-type]
            or value < minimum or (strict and value == minimum)):  # type: ignore[operator]
        what = _TLS_KEYS[key]
        raise loc.error(table, key, f"must be {what}, got {value!r}")
    return value


def parse_plan(text: str, source: str = "<plan>") -> Plan:
    loc = _Locator(source, text)
    try:
        data = tomllib.loads(text)
    except ValueError as e:  # TOMLDecodeError, and dates out of range
        raise PlanError(f"{source}: not valid TOML: {e}") from e
    except RecursionError:
        raise PlanError(f"{source}: not a plan: arrays or tables nested too deeply") from None
    _check_unknown(loc, None, data, _TOP_KEYS)
    plan = Plan()
    for key in ("name", "description", "target_note", "target_instead"):
        if key in data:
            if not isinstance(data[key], str):
                raise loc.error(None, key, "must be a string")
            setattr(plan, key, data[key])
    if "targets" in data:
        plan.targets = _check_list(loc, None, "targets", data["targets"], list(TARGET_KINDS))
        if not plan.targets:
            raise loc.error(None, "targets", f"must name at least one of: {', '.join(TARGET_KINDS)}")
    select = data.get("select", {})
    method = data.get("method", {})
    tls = data.get("tls", {})
    for table, value in (("select", select), ("method", method), ("tls", tls)):
        if not isinstance(value, dict):
            raise loc.error(None, table, "must be a table")
    _check_unknown(loc, "select", select, _SELECT_KEYS)
    _check_unknown(loc, "method", method, _METHOD_KEYS)
    _check_unknown(loc, "tls", tls, _TLS_KEYS)
    for key, allowed in (("suites", tls_catalog.SUITES), ("groups", tls_catalog.GROUPS),
                         ("certs", tls_catalog.KEY_TYPES), ("chains", tls_catalog.CHAIN_KINDS),
                         ("auth", tls_catalog.AUTHS), ("handshakes", tuple(tls_catalog.HANDSHAKES)),
                         ("transports", tls_catalog.TRANSPORTS),
                         ("servers", ("same", *versions.identifiers(), *tls_catalog.EXTERNAL_SERVERS)),
                         ("clients", tls_catalog.EXTERNAL_CLIENTS), ("hrr_shares", tls_catalog.GROUPS)):
        if key in tls:
            value = _canonical_servers(tls[key]) if key == "servers" else tls[key]
            setattr(plan.tls, key, _check_list(loc, "tls", key, value, list(allowed)))
    _parse_tls_numbers(loc, tls, plan.tls)
    if plan.tls.hrr_shares and "hrr" not in plan.tls.handshakes:
        raise loc.error("tls", "hrr_shares", 'names first key shares of hrr cases: needs "hrr" in handshakes')
    if "libraries" in select:
        plan.libraries = _check_libraries(loc, "select", "libraries", select["libraries"])
    if "kinds" in select:
        plan.kinds = _check_list(loc, "select", "kinds", select["kinds"], list(PLAN_KINDS))
    if "algorithms" in select:
        plan.algorithms = _check_list(loc, "select", "algorithms", select["algorithms"], all_algorithm_names())
    if "ops" in select:
        plan.ops = _check_list(loc, "select", "ops", select["ops"], all_ops())
    if "sizes" in select:
        plan.sizes = _check_sizes(loc, "select", select["sizes"])
    m = plan.method
    for key in METHOD_BOUNDS:
        if key in method:
            problem = method_value_problem(key, method[key])
            if problem:
                raise loc.error("method", key, problem)
            setattr(m, key, method[key] if METHOD_BOUNDS[key][0] else float(method[key]))
    if "allow_loader_env" in method:
        if not isinstance(method["allow_loader_env"], bool):
            raise loc.error("method", "allow_loader_env", "must be true or false")
        m.allow_loader_env = method["allow_loader_env"]
    if "outliers" in method:
        if not isinstance(method["outliers"], str):
            raise loc.error("method", "outliers", f"must be a string: {POLICY_HELP}")
        try:
            parse_policy(method["outliers"])
        except PlanError as e:
            raise loc.error("method", "outliers", str(e)) from None
        m.outliers = method["outliers"]
    if "env" in method:
        try:
            m.env = check_env(method["env"], m.allow_loader_env)
        except PlanError as e:
            raise loc.error("method", "env", str(e)) from None
    validate(plan, loc)
    return plan


def method_value_problem(key: str, value: object) -> str | None:
    """Why a [method] number is not allowed (None when it is)."""
    integer, lowest, lowest_ok, highest = METHOD_BOUNDS[key]
    ok_type = isinstance(value, int) if integer else isinstance(value, (int, float))
    if (isinstance(value, bool) or not ok_type or not math.isfinite(value)  # type: ignore[arg-type]
            or not lowest <= value <= highest or (value == lowest and not lowest_ok)):  # type: ignore[operator]
        return f"must be {_METHOD_KEYS[key]}, got {value!r}"
    return None


def check_env(value: object, allow_loader: bool = False) -> dict[str, str]:
    """An environment for the run's processes: names as in a shell, string values."""
    if not isinstance(value, dict):
        raise PlanError('must be a table of NAME = "value"')
    for name, v in value.items():
        if not ENV_NAME.fullmatch(name):
            raise PlanError(f"{name!r} is not a valid environment variable name")
        if not isinstance(v, str):
            raise PlanError(f"{name}: the value must be a string, got {v!r}")
        if "\0" in v:
            raise PlanError(f"{name}: the value contains a NUL character")
        if name.startswith("TLSBENCH_"):
            raise PlanError(f"{name}: tlsbench's own settings cannot be set by a plan")
        if LOADER_ENV.fullmatch(name) and not allow_loader:
            raise PlanError(f"{name} changes which code runs and is measured: refused unless allowed "
                            "([method] allow_loader_env = true, or --allow-loader-env)")
    return dict(value)


def _parse_tls_numbers(loc: _Locator, tls: dict, t: TlsSelect) -> None:
    if "bulk_kib" in tls:
        t.bulk_kib = int(_number(loc, "bulk_kib", tls["bulk_kib"], True, 0, False, "tls"))
        if t.bulk_kib > 65536:
            raise loc.error("tls", "bulk_kib", "must be at most 65536 (64 MiB)")
    if "batch" in tls:
        t.batch = int(_number(loc, "batch", tls["batch"], True, 1, False, "tls"))
        if t.batch > 1000:
            raise loc.error("tls", "batch", f"must be {_TLS_KEYS['batch']}, got {t.batch}")
    if "baseline" in tls:
        if not isinstance(tls["baseline"], bool):
            raise loc.error("tls", "baseline", "must be true or false")
        t.baseline = tls["baseline"]
    if "callgrind" in tls:
        if not isinstance(tls["callgrind"], bool):
            raise loc.error("tls", "callgrind", "must be true or false")
        t.callgrind = tls["callgrind"]
    if "verify_peer" in tls:
        if not isinstance(tls["verify_peer"], bool):
            raise loc.error("tls", "verify_peer", "must be true or false")
        t.verify_peer = tls["verify_peer"]
    if "capacity_clients" in tls:
        v = tls["capacity_clients"]
        if not isinstance(v, list) or not all(isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= 64
                                              for n in v):
            raise loc.error("tls", "capacity_clients", "must be a list of integers 1..64")
        t.capacity_clients = sorted(set(v))
    if "device_side" in tls:
        if tls["device_side"] not in DEVICE_SIDES:
            raise loc.error("tls", "device_side", "must be one of: " + ", ".join(f'"{x}"' for x in DEVICE_SIDES))
        t.device_side = tls["device_side"]
    if "max_fragment" in tls:
        v = tls["max_fragment"]
        allowed = (0, *tls_catalog.MAX_FRAGMENTS)
        if (not isinstance(v, list) or not v
                or not all(isinstance(n, int) and not isinstance(n, bool) and n in allowed for n in v)):
            raise loc.error("tls", "max_fragment", f"must be a non-empty list of: {', '.join(map(str, allowed))}")
        t.max_fragment = sorted(set(v))
    if "capacity_seconds" in tls:
        t.capacity_seconds = float(_number(loc, "capacity_seconds", tls["capacity_seconds"], False, 0, True, "tls"))
        if t.capacity_seconds > 3600:
            raise loc.error("tls", "capacity_seconds", "must be at most 3600")


def validate(plan: Plan, loc: _Locator | None = None) -> None:
    """Cross-field checks, shared by plan files and command-line flags."""
    loc = loc or _Locator("<command line>", "")
    for key in METHOD_BOUNDS:
        problem = method_value_problem(key, getattr(plan.method, key))
        if problem:
            raise loc.error("method", key, problem)
    if not plan.libraries:
        raise loc.error("select", "libraries",
                        f"must name at least one library; allowed: {', '.join(versions.identifiers())}")
    if not plan.kinds:
        raise loc.error("select", "kinds", f"must name at least one kind; allowed: {', '.join(PLAN_KINDS)}")
    if not plan.sizes or not all(1 <= n <= MAX_SIZE for n in plan.sizes):
        raise loc.error("select", "sizes", f"must be a non-empty list of integers 1..{MAX_SIZE}")
    primitive_kinds = [k for k in plan.kinds if k in KINDS]
    for alg in plan.algorithms:
        if not any(alg in ALGORITHMS[k] for k in primitive_kinds):
            raise loc.error("select", "algorithms", f"{alg!r} is not of the selected kinds ({', '.join(plan.kinds)})")
    if plan.method.rounds > plan.method.repeats:
        raise loc.error("method", "rounds", f"must be at most repeats ({plan.method.repeats}): "
                        "every round measures at least one batch")
    if plan.ops and not any(op in BENCH_OPS[k] for k in primitive_kinds for op in plan.ops):
        raise loc.error("select", "ops", "no selected kind has any of these operations")


def load_plan(path: Path) -> Plan:
    try:
        data = path.read_bytes()
    except OSError as e:
        raise PlanError(f"cannot read plan {path}: {e}") from e
    return parse_plan(decode_plan(data, str(path)), str(path))


def decode_plan(data: bytes, source: str) -> str:
    """A plan file's text: TOML is UTF-8."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise PlanError(f"{source}:{line}: not UTF-8 text (byte 0x{data[e.start]:02x}); "
                        "a plan is a UTF-8 TOML file") from None


def presets() -> dict[str, Path]:
    return {p.stem: p for p in sorted(paths.presets_dir().glob("*.toml"))}


def load_preset(name: str) -> tuple[Plan, str]:
    known = presets()
    if name not in known:
        near = difflib.get_close_matches(name, list(known), n=2)
        hint = f" (did you mean {', '.join(near)}?)" if near else ""
        raise PlanError(f"unknown preset {name!r}{hint}; presets: {', '.join(known)}")
    text = known[name].read_text()
    return parse_plan(text, f"preset {name}"), text
