"""The fidelity pairs counted natively: instructions per operation of each
library's own tool and of tlsbench, on the real CPU (tlsbench.studies.stepcount).

callgrind (scripts/fidelity-counts) counts the code valgrind's CPU can run;
a library that chooses AVX-512 (OpenSSL's AES-GCM and ChaCha20-Poly1305) or
ADX (wolfSSL's SP maths) by CPUID runs other code natively. Here each side
is started as usual, stopped at the function that delimits its operations,
and single-stepped through a few of them:

* openssl AES-128-GCM and ChaCha20-Poly1305, 16 KiB seals: ``openssl speed
  -aead -evp`` against the agent, one turn of each loop (from one
  EVP_EncryptInit_ex to the next), with the EVP calls' own counts;
* wolfSSL ECDSA P-256 verify: wolfCrypt's benchmark against the agent, one
  wc_ecc_verify_hash call each;
* Mbed TLS RSA-2048 public operation: Mbed TLS's benchmark (three runs of
  it) against the agent's verify, one mbedtls_rsa_public call each.

A benchmark's end-of-window alarm is held back while counting (it would end
the loop being counted); the processes are killed afterwards.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from tlsbench import paths
from tlsbench.engine.protocol import encode_request
from tlsbench.errors import SetupError
from tlsbench.studies import stepcount
from tlsbench.studies.pairs import pair_of


@dataclass(frozen=True)
class Side:
    label: str
    argv: Callable[[], list[str]]  # the command (built when measured: it may need a build)
    request: str | None  # a request line written to its input (the agent), or None
    file: str  # the mapped file (suffix) holding `entry`
    entry: str  # the function whose entries delimit operations
    loop: bool  # True: entry to next entry (a loop's turn); False: one call, entry to return
    watched: tuple[tuple[str, str], ...] = ()  # (file suffix, function): inclusive counts reported
    skip: int = 1  # operations counted first and dropped (first-use costs)


@dataclass
class Counted:
    side: Side
    ops: list[stepcount.Op]
    mix: dict[str, int] = field(default_factory=dict)  # one operation's instructions by vector width
    hot: list[tuple[str, int, int]] = field(default_factory=list)  # its top functions (name, count, address)
    icache: tuple[int, int] = (0, 0)  # modelled L1I misses in a loop of it, most lines in one set
    lines: int = 0  # distinct 64-byte code lines it runs

    @property
    def per_op(self) -> float:
        return statistics.median(op.instructions for op in self.ops)

    def call(self, name: str) -> float:
        return statistics.median(op.calls.get(name, 0) for op in self.ops)


def measure(side: Side, ops: int = 3, settle: float = 0.3) -> Counted:
    proc = subprocess.Popen(side.argv(), stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    tracee = None
    try:
        if side.request is not None:
            assert proc.stdin is not None
            proc.stdin.write((side.request + "\n").encode())
            proc.stdin.flush()
        stepcount.wait_mapped(proc.pid, side.file)
        time.sleep(settle)  # past the loader and the program's set-up
        tracee = stepcount.Tracee(proc.pid)
        entry = tracee.address(tracee.mapped(side.file), side.entry)
        watched = {tracee.address(tracee.mapped(f), n): n for f, n in side.watched}
        count = stepcount.count_loop if side.loop else stepcount.count_calls
        counted = count(tracee, entry, watched, ops + side.skip)[side.skip:]
        mid = counted[len(counted) // 2]
        found = Counted(side, counted, stepcount.vector_mix(tracee, mid), stepcount.by_function(tracee, mid),
                        stepcount.icache_misses(mid.lines), len(set(mid.lines)))
        for op in counted:
            op.at.clear()  # the addresses and lines served the figures above; they are large
            op.lines.clear()
        return found
    finally:
        if tracee is not None:
            tracee.kill()
        else:
            proc.kill()
        proc.wait()
        if proc.stdin is not None:
            try:
                proc.stdin.close()
            except BrokenPipeError:
                pass


def _agent(library: str) -> Callable[[], list[str]]:
    return lambda: [str(paths.agent_path(library))]


def _peer(target: str) -> Callable[[], list[str]]:
    def argv() -> list[str]:
        from tlsbench.studies.fidelity_peers import build_peer_target
        return [build_peer_target(target)]
    return argv


def _bench(case_kind: str, alg: str, op: str, size: int | None, library: str, rekey: int = 0) -> str:
    """A request that keeps the agent in its timed loop while it is stepped:
    batches that would last hours natively, so every counted turn is one
    operation of the loop, not a batch boundary."""
    from tlsbench.engine.case import Case
    from tlsbench.families.primitive import keys as keys_mod
    from tlsbench.families.primitive.family import bench_fields

    case = Case(library, case_kind, alg, op, size)
    return encode_request("bench", kind=case_kind, alg=alg, op=op, warmup=0, repeats=1000,
                          min_ns=10**13, max_iters=10**9, **bench_fields(case, keys_mod.generate()),
                          **({"rekey": 1} if rekey else {}))


EVP_ENC = tuple(("libcrypto.so.3", n) for n in ("EVP_CIPHER_CTX_ctrl", "EVP_CipherInit_ex", "EVP_EncryptInit_ex",
                                               "EVP_EncryptUpdate", "EVP_EncryptFinal_ex", "EVP_CIPHER_CTX_get_params"))


def _openssl() -> str:
    exe = shutil.which("openssl")
    if exe is None:
        raise SetupError("the openssl command is not installed (apt-get install openssl)")
    return exe


def _aead(alg: str) -> list[tuple[str, Side, Side]]:
    """One turn of each loop. `openssl speed -aead` runs its AEAD loop (the
    nonce length, the key and the nonce, 13 bytes of AAD, the message, the
    final block) for AES-GCM, but streams plain updates of one message for
    ChaCha20-Poly1305; so a turn runs from one EVP_EncryptFinal_ex to the
    next, or from one EVP_EncryptUpdate to the next where the loop makes
    only those. Ours also with rekey=1 where the command re-keys."""
    streams = alg == "chacha20-poly1305"
    tool = Side("openssl speed -aead", lambda: [_openssl(), "speed", "-seconds", "1", "-aead", "-evp", alg,
                                                  "-bytes", "16384"], None,
                "libcrypto.so.3", "EVP_EncryptUpdate" if streams else "EVP_EncryptFinal_ex", True, EVP_ENC)
    ours = Side("tlsbench", _agent("openssl"), _bench("aead", alg, "encrypt", 16384, "openssl"),
                "libcrypto.so.3", "EVP_EncryptFinal_ex", True, EVP_ENC, skip=2)
    name = f"openssl {alg} seal 16384 B"
    if streams:
        return [(name, tool, ours)]
    rekeyed = Side("tlsbench rekey=1", _agent("openssl"), _bench("aead", alg, "encrypt", 16384, "openssl", 1),
                   "libcrypto.so.3", "EVP_EncryptFinal_ex", True, EVP_ENC, skip=2)
    return [(name, tool, ours), (f"{name}, ours rekeyed", tool, rekeyed)]


def _rsa(runs: int = 3) -> list[tuple[str, Side, Side]]:
    """Several runs of Mbed TLS's benchmark against one of ours: whether its
    work or where its arrays land changes from run to run (its keys come
    from rand(), never seeded: the same in every run)."""
    ours = Side("tlsbench", _agent("mbedtls"), _bench("sig", "rsa2048-pkcs1-sha256", "verify", None, "mbedtls"),
                "tlsbench-agent-mbedtls", "mbedtls_rsa_public", False,
                (("tlsbench-agent-mbedtls", "mbedtls_mpi_core_montmul"),), skip=2)
    return [(f"mbedtls RSA-2048 public operation (mbedtls_rsa_public), tool run {i + 1}",
             Side("Mbed TLS benchmark", lambda: [*_peer("peer-mbedtls-benchmark")(), "rsa"], None,
                  "peer-mbedtls-benchmark", "mbedtls_rsa_public", False,
                  (("peer-mbedtls-benchmark", "mbedtls_mpi_core_montmul"),)), ours) for i in range(runs)]


PAIRS: dict[str, Callable[[], list[tuple[str, Side, Side]]]] = {
    "aead": lambda: [row for a in ("aes-128-gcm", "chacha20-poly1305") for row in _aead(a)],
    "ecdsa-verify": lambda: [(
        "wolfssl ECDSA P-256 verify (wc_ecc_verify_hash)",
        Side("wolfCrypt benchmark", lambda: [*_peer("peer-wolfssl-benchmark")(), "-csv", "-ecc", "-p256"], None,
             "peer-wolfssl-benchmark", "wc_ecc_verify_hash", False),
        Side("tlsbench", _agent("wolfssl"), _bench("sig", "ecdsa-p256-sha256", "verify", None, "wolfssl"),
             "tlsbench-agent-wolfssl", "wc_ecc_verify_hash", False))],
    "rsa-verify": lambda: _rsa(),
}


@dataclass
class Row:
    pair: str
    tool: Counted
    ours: Counted

    @property
    def ratio(self) -> float:
        return self.ours.per_op / self.tool.per_op


def collect(names: list[str], ops: int = 3) -> list[Row]:
    rows = []
    done: dict[int, Counted] = {}  # a side shared by several rows is counted once

    def counted(side: Side) -> Counted:
        if id(side) not in done:
            done[id(side)] = measure(side, ops)
        return done[id(side)]

    for n in names:
        for pair, tool, ours in PAIRS[n]():
            rows.append(Row(pair, counted(tool), counted(ours)))
    return rows


def _mix(c: Counted) -> str:
    total = sum(c.mix.values()) or 1
    return " ".join(f"{w} {100 * c.mix.get(w, 0) / total:.1f}%" for w in ("zmm", "ymm", "xmm", "none"))


def render(rows: list[Row]) -> str:
    lines = []
    for r in rows:
        lines.append(f"{r.pair}: tlsbench / tool = {r.ratio:.3f}")
        for c in (r.tool, r.ours):
            spread = f"{min(o.instructions for o in c.ops):,}-{max(o.instructions for o in c.ops):,}"
            lines.append(f"  {c.side.label:22} {c.per_op:12,.0f} instructions per operation "
                         f"(median of {len(c.ops)}: {spread}; signals held back {sum(o.signals for o in c.ops)})")
            for _, name in c.side.watched:
                lines.append(f"    {name:28} {c.call(name):12,.0f}")
            files = sum((o.by_file for o in c.ops), Counter())
            lines.append("    by file: " + ", ".join(f"{k} {v // len(c.ops):,}" for k, v in files.most_common(4)))
            lines.append(f"    by vector register: {_mix(c)}")
            lines.append(f"    code: {c.lines:,} lines of 64 B; modelled L1I (32 KiB, 8 ways) misses per operation "
                         f"in a loop: {c.icache[0]:,} (most lines in one set: {c.icache[1]})")
            for name, n, addr in c.hot:
                lines.append(f"    {name:40} {n:10,}  at {addr:#x} (mod 64: {addr % 64})")
            for name, args in c.ops[0].args.items():
                low = " ".join(f"{a % 4096:#05x}" for a in args)
                lines.append(f"    {name} first call, arguments mod 4096: {low}")
    return "\n".join(lines) + "\n"


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("native-counts", help="instructions per operation, tool against tlsbench, by single-stepping"
                       " on the real CPU (the AVX-512 / ADX paths valgrind hides)", description=__doc__.splitlines()[0])
    p.add_argument("pairs", nargs="*", metavar="PAIR", type=pair_of(PAIRS),
                   help=f"which pairs: {', '.join(PAIRS)} (default: all)")
    p.add_argument("--ops", type=int, default=3, help="operations counted per side (default 3)")
    p.set_defaults(func=command)


def command(a: argparse.Namespace) -> int:
    print(render(collect(a.pairs or list(PAIRS), a.ops)), end="")
    return 0
