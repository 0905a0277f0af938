"""Fidelity beyond `openssl speed`: each embedded library's own benchmark
program against tlsbench, on the same library build.

Mbed TLS's programs/test/benchmark.c and wolfCrypt's
wolfcrypt/benchmark/benchmark.c are compiled from the pinned sources in
third_party/src against the very libraries and configuration headers our
agents link (agent/adapters/mbedtls/library.cmake, agent/adapters/wolfssl/
library.cmake: targets peer-mbedtls-benchmark and peer-wolfssl-benchmark,
built only when asked for). The two tools run alternately, ``rounds`` times;
each keeps its best round (on a shared machine noise only slows a round
down). Both sides count CPU time, not wall time, so the other processes of
a busy machine do not count against either: wolfCrypt's program is built
with its own LINUX_RUSAGE_UTIME (user time from getrusage), Mbed TLS's ends
its windows on a user CPU time timer (agent/peers/cpu_alarm.c), ours reads
the thread CPU clock. What each side times differs a little, and the table
says how:

* symmetric, 1 KiB: both process one 1024-byte buffer per operation; ours
  also sets the nonce and 13 bytes of AAD per AEAD operation (Mbed TLS's
  GCM passes no AAD, wolfCrypt's 13 bytes). A hash is a complete one (init,
  1 KiB, padding, final) on both sides: Mbed TLS's mbedtls_sha256() is one,
  and wolfCrypt's program is asked for them with -dgst_full (by default it
  streams many 1 KiB updates into one final, 16 compressions per KiB where
  a complete hash of 1 KiB takes 17);
* ECDSA P-256: ours hashes a 32-byte message first (SHA-256), theirs sign
  a ready digest;
* RSA-2048: ours is PKCS#1 v1.5 sign / verify of a message (hash, padding,
  the private or public operation); Mbed TLS's is the raw private / public
  operation, and its PKCS#1 sign (ours) also runs the public operation on
  the signature it made (a fault countermeasure in rsa.c), about 3% of a
  private one; wolfCrypt's -rsa_sign is a sign / verify like ours;
* X25519 / P-256 ECDH: the shared secret from a fixed key pair (Mbed TLS's
  "static handshake", wolfCrypt's "agree").
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tlsbench import paths
from tlsbench.engine import agent
from tlsbench.engine.case import Case
from tlsbench.engine.protocol import encode_request
from tlsbench.errors import SetupError
from tlsbench.targets import build

SIZE = 1024  # the block size both peer programs use for symmetric algorithms


@dataclass(frozen=True)
class Pair:
    kind: str
    alg: str
    op: str
    peer_key: tuple[str, str]  # (title, operation or unit) as the peer program prints it
    note: str = ""

    @property
    def sized(self) -> bool:
        return self.kind in ("hash", "aead")

    @property
    def label(self) -> str:
        return f"{self.alg} {self.op}" + (f" {SIZE} B" if self.sized else "")


@dataclass(frozen=True)
class Peer:
    library: str
    target: str  # the CMake target (and executable) in the host build folder
    args: tuple[str, ...]
    parse: Callable[[str], dict[tuple[str, str], float]]  # key -> B/s (sized) or op/s
    pairs: tuple[Pair, ...]


def parse_mbedtls(out: str) -> dict[tuple[str, str], float]:
    """Lines `  SHA-256      :  115323 KiB/s,  31 cycles/byte` (symmetric,
    as B/s) and `  ECDSA-secp256r1   :  1234 sign/s` (op/s)."""
    found: dict[tuple[str, str], float] = {}
    for line in out.splitlines():
        m = re.match(r"^\s+(\S.*?)\s+:\s+(\d+) KiB/s", line)
        if m:
            found[(m.group(1), "KiB/s")] = int(m.group(2)) * 1024.0
            continue
        m = re.match(r"^\s+(\S.*?)\s+:\s+(\d+)\s+(\S.*?)/s", line)
        if m:
            found[(m.group(1), m.group(3).strip())] = float(m.group(2))
    return found


def parse_wolfssl(out: str) -> dict[tuple[str, str], float]:
    """-csv lines: `AES-128-GCM-enc,2178.30,1.14,` (MB/s of 2^20 bytes, as
    B/s) and `ECDSA [      SECP256R1],256,sign,0.089,11184.299,` (op/s)."""
    found: dict[tuple[str, str], float] = {}
    for line in out.splitlines():
        cells = [c.strip() for c in line.strip().rstrip(",").split(",")]
        name = re.sub(r"\[\s+", "[", cells[0]) if cells else ""
        try:
            if len(cells) == 3:
                found[(name, "MB/s")] = float(cells[1]) * 1024 * 1024
            elif len(cells) == 5:
                found[(f"{name} {cells[1]}", cells[2])] = float(cells[4])
        except ValueError:
            continue  # a header line
    return found


_HASHES = "ours hashes the message"


def _sign_verify(alg: str, title: str, ops: tuple[str, str] = ("sign", "verify"),
                 notes: tuple[str, str] = ("", "")) -> tuple[Pair, Pair]:
    """A signature's sign and verify as a peer program prints them: two operations under one title."""
    return (Pair("sig", alg, "sign", (title, ops[0]), notes[0]), Pair("sig", alg, "verify", (title, ops[1]), notes[1]))


PEERS: dict[str, Peer] = {
    "mbedtls": Peer("mbedtls", "peer-mbedtls-benchmark", ("sha256", "aes_gcm", "ecdsa", "ecdh", "rsa"),
                    parse_mbedtls, (
                        Pair("hash", "sha256", "hash", ("SHA-256", "KiB/s")),
                        Pair("aead", "aes-128-gcm", "encrypt", ("AES-GCM-128", "KiB/s"), "ours adds 13 B of AAD"),
                        *_sign_verify("ecdsa-p256-sha256", "ECDSA-secp256r1", notes=(_HASHES, _HASHES)),
                        Pair("kex", "x25519", "derive", ("ECDH-x25519", "static handshake")),
                        Pair("kex", "p256", "derive", ("ECDH-secp256r1", "static handshake")),
                        *_sign_verify("rsa2048-pkcs1-sha256", "RSA-2048", ("private", "public"),
                                      ("theirs: the raw private operation; ours checks it with a public one",
                                       "theirs: the raw public operation")),
                    )),
    "wolfssl": Peer("wolfssl", "peer-wolfssl-benchmark",
                    ("-csv", "-dgst_full", "-sha256", "-aes-gcm", "-ecc", "-p256", "-x25519", "-rsa", "-rsa_sign",
                     str(SIZE)),
                    parse_wolfssl, (
                        Pair("hash", "sha256", "hash", ("SHA-256", "MB/s")),
                        Pair("aead", "aes-128-gcm", "encrypt", ("AES-128-GCM-enc", "MB/s")),
                        *_sign_verify("ecdsa-p256-sha256", "ECDSA [SECP256R1] 256", notes=(_HASHES, _HASHES)),
                        Pair("kex", "p256", "derive", ("ECDHE [SECP256R1] 256", "agree")),
                        Pair("kex", "x25519", "derive", ("CURVE 25519", "agree")),
                        *_sign_verify("rsa2048-pkcs1-sha256", "RSA 2048"),
                    )),
}


@dataclass
class Row:
    library: str
    label: str
    unit: str  # B/s or op/s
    ours_rounds: list[float]  # each round's figure, in the order measured
    peer_rounds: list[float]
    note: str

    @property
    def ours(self) -> float:
        return max(self.ours_rounds)  # noise only slows a round down: the best round

    @property
    def peer(self) -> float:
        return max(self.peer_rounds)

    @property
    def ratio(self) -> float:
        return self.ours / self.peer


def build_peer(peer: Peer) -> str:
    """Builds the peer program in the host build folder (`tlsbench build`
    configured it); returns its path."""
    return build_peer_target(peer.target)


def build_peer_target(target: str) -> str:
    """Builds one peer program (a CMake target of the host build); returns its path."""
    folder = paths.build_dir("host")
    if not (folder / "CMakeCache.txt").exists():
        raise SetupError("the host agents are not configured (run: tlsbench build)")
    with build.building(folder):  # another process may be building the host agents there
        r = subprocess.run(["cmake", "--build", str(folder), "--target", target, "-j", "2"],
                           capture_output=True, text=True)
    if r.returncode != 0:
        tail = (r.stdout + r.stderr).strip().splitlines()[-3:]
        raise SetupError(f"building {target} failed: {' | '.join(tail)}")
    return str(folder / target)


def run_peer(exe: str, peer: Peer, timeout: float = 600) -> dict[tuple[str, str], float]:
    r = subprocess.run([exe, *peer.args], capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        raise SetupError(f"{peer.target} exited with {r.returncode}: {r.stderr.strip()[-200:]}")
    found = peer.parse(r.stdout)
    missing = [p.peer_key for p in peer.pairs if p.peer_key not in found]
    if missing:
        raise SetupError(f"{peer.target} printed no figure for {', '.join(' '.join(k) for k in missing)}")
    return found


def ours(library: str, pair: Pair, keys: dict, executable: Path | None = None) -> float:
    """Our figure over about one second of samples: B/s for sized kinds,
    op/s otherwise (total work over total thread CPU time, like the peer
    programs, which count their process's user CPU time)."""
    from tlsbench.families.primitive.family import bench_fields

    case = Case(library, pair.kind, pair.alg, pair.op, SIZE if pair.sized else None)
    req = encode_request("bench", kind=pair.kind, alg=pair.alg, op=pair.op, warmup=2, repeats=50,
                         min_ns=20_000_000, **bench_fields(case, keys))
    exe = executable or paths.agent_path(library)
    resp = agent.call(exe, [req], 300, f"fidelity {case.name}").responses[0]
    if resp.status != "ok":
        raise SetupError(f"fidelity {case.name}: {resp.status} {resp.message}")
    samples = resp.of_type("sample")
    ops = sum(int(s["iters"]) for s in samples)
    ns = sum(int(s["cpu_ns"]) for s in samples)
    return ops * 1e9 / ns * (SIZE if pair.sized else 1)


def compare(libraries: tuple[str, ...] = ("mbedtls", "wolfssl"), rounds: int = 3) -> list[Row]:
    from tlsbench.families.primitive import keys as keys_mod

    keys = keys_mod.generate()
    rows = []
    for lib in libraries:
        peer = PEERS[lib]
        exe = build_peer(peer)
        peer_rounds: dict[tuple[str, str], list[float]] = {p.peer_key: [] for p in peer.pairs}
        ours_rounds: dict[str, list[float]] = {p.label: [] for p in peer.pairs}
        for _ in range(rounds):  # alternately: the peer program, then ours for every pair
            found = run_peer(exe, peer)
            for k in peer_rounds:
                peer_rounds[k].append(found[k])
            for p in peer.pairs:
                ours_rounds[p.label].append(ours(lib, p, keys))
        for p in peer.pairs:
            rows.append(Row(lib, p.label, "B/s" if p.sized else "op/s", ours_rounds[p.label],
                            peer_rounds[p.peer_key], p.note))
    return rows


def _figure(unit: str, v: float) -> str:
    return f"{v / 1e6:,.1f} MB/s" if unit == "B/s" else f"{v:,.0f} op/s"


def render(rows: list[Row], rounds: bool = False) -> str:
    """The table of best rounds; with `rounds`, each round's figures after it
    (a round of one side in a slow phase shows there)."""
    lines = [f"{'library':8} {'case':32} {'tlsbench':>14} {'own benchmark':>14} {'ratio':>6}  note"]
    for r in rows:
        lines.append(f"{r.library:8} {r.label:32} {_figure(r.unit, r.ours):>14} {_figure(r.unit, r.peer):>14} "
                     f"{r.ratio:6.3f}  {r.note}")
    if rounds:
        lines += ["", "each round, tlsbench / own benchmark:"]
        for r in rows:
            pairs = zip(r.ours_rounds, r.peer_rounds, strict=True)
            cells = [f"{_figure(r.unit, o)} / {_figure(r.unit, p)}" for o, p in pairs]
            lines.append(f"{r.library:8} {r.label:32} " + "; ".join(cells))
    return "\n".join(lines) + "\n"
