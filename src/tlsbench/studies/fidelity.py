"""Fidelity of the instrument: our OpenSSL throughput against `openssl speed`
(a peer tool measuring the same library) at 16 KiB, in the same session. The
tool is the system's OpenSSL (3.0), so ours is the agent of that version
(versions.system_identifier), whichever OpenSSL is the default.

We time whole AEAD operations (IV set-up, 13 bytes of AAD, the message, the
tag), and `openssl speed` is asked for the same with ``-aead``. For AES-GCM
the command (OpenSSL 3.0.19) then runs, per operation: EVP_CIPHER_CTX_ctrl
(the nonce length), EVP_CipherInit_ex with the key and the nonce (a fresh
key schedule and GHASH key every time), 13 bytes of AAD, the message, the
final block; tlsbench's own cases key once (as TLS keys a connection once),
so for the comparison the agent sets the key before every seal too
(rekey=1) and both time the same work. For ChaCha20-Poly1305 the command
streams EVP_EncryptUpdate calls on one message, -aead or not (no nonce, AAD
or tag per operation), which tlsbench cannot do; that row keeps a wider
bound. Seen natively, call by call, by scripts/native-counts aead
(docs/method.md). Hashes are complete on both sides.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass

from tlsbench import paths, versions
from tlsbench.engine import agent
from tlsbench.engine.protocol import encode_request
from tlsbench.errors import SetupError

SIZE = 16384
# largest |ratio - 1| accepted per algorithm: for ChaCha20-Poly1305 the command
# streams updates of one message where we time complete seals (a nonce, a
# Poly1305 key, AAD, the lengths block and the tag every time: counted by
# scripts/native-counts aead, docs/method.md), so it gets a wider bound
BOUNDS = {"aes-128-gcm": 0.10, "sha256": 0.10, "chacha20-poly1305": 0.15}
# where `openssl speed -aead` sets the key again before every operation (its
# AEAD loop; it streams plain updates for ChaCha20-Poly1305): our side of the
# comparison does the same there (rekey=1)
REKEYED = {"aes-128-gcm"}
# our (kind, alg, op) -> openssl speed -evp name
PAIRS = {
    ("aead", "aes-128-gcm", "encrypt"): "aes-128-gcm",
    ("aead", "chacha20-poly1305", "encrypt"): "chacha20-poly1305",
    ("hash", "sha256", "hash"): "sha256",
}
KEYS = {"aes-128-gcm": bytes(16), "chacha20-poly1305": bytes(32)}


@dataclass
class Comparison:
    alg: str
    ours_bps: float
    speed_bps: float

    @property
    def ratio(self) -> float:
        return self.ours_bps / self.speed_bps

    @property
    def bound(self) -> float:
        return BOUNDS[self.alg]

    @property
    def within(self) -> bool:
        return abs(self.ratio - 1) <= self.bound


def speed_args(evp: str, aead: bool, seconds: int = 1) -> list[str]:
    """The `openssl speed` arguments for one algorithm: an AEAD as complete
    seals (-aead), like ours."""
    return ["speed", "-mr", "-seconds", str(seconds), *(["-aead"] if aead else []), "-evp", evp,
            "-bytes", str(SIZE)]


def speed_bps(evp: str, seconds: int = 1, aead: bool = False) -> float:
    exe = shutil.which("openssl")
    if exe is None:
        raise SetupError("the openssl command is not installed (apt-get install openssl)")
    out = subprocess.run([exe, *speed_args(evp, aead, seconds)], capture_output=True, text=True, timeout=120).stdout
    m = re.search(r"^\+F:\d+:[^:]+:([0-9.]+)$", out, re.M)
    if not m:
        raise SetupError(f"could not read `openssl speed -evp {evp}` output")
    return float(m.group(1))


def ours_bps(kind: str, alg: str, op: str, repeats: int = 50, rekey: bool = False) -> float:
    """Bytes over CPU time across all samples (about 1 s, like `openssl speed
    -seconds 1`): the same estimator over the same window length. rekey: an
    AEAD's key is set again before every seal, as `openssl speed` does."""
    fields: dict[str, object] = {"size": SIZE}
    if kind == "aead":
        fields |= {"key": KEYS[alg], "nonce": bytes(12), "aad": bytes(13), "rekey": int(rekey)}
    req = encode_request("bench", kind=kind, alg=alg, op=op, warmup=2, repeats=repeats, min_ns=20_000_000,
                         **fields)
    res = agent.call(paths.agent_path(versions.system_identifier("openssl")), [req], 120, f"fidelity {alg}")
    resp = res.responses[0]
    if resp.status != "ok":
        raise SetupError(f"fidelity {alg}: {resp.status} {resp.message}")
    samples = resp.of_type("sample")
    total_ops = sum(int(r["iters"]) for r in samples)
    # CPU time, as `openssl speed` counts by default (user time unless -elapsed): on a
    # busy machine wall time also counts the other processes' share
    total_ns = sum(int(r["cpu_ns"]) for r in samples)
    return SIZE * total_ops * 1e9 / total_ns


def compare(rounds: int = 7) -> list[Comparison]:
    """Alternates the two tools `rounds` times per algorithm and keeps each
    tool's best round: on a shared machine noise only ever slows a round
    down, so the best round is the least disturbed one, for both tools alike
    (rounds of the same length, about one second each)."""
    out = []
    for (kind, alg, op), evp in PAIRS.items():
        ours, theirs = [], []
        for _ in range(rounds):
            ours.append(ours_bps(kind, alg, op, rekey=alg in REKEYED))
            theirs.append(speed_bps(evp, aead=kind == "aead"))
        out.append(Comparison(alg, max(ours), max(theirs)))
    return out


def render(rows: list[Comparison]) -> str:
    lines = [f"{'algorithm (16384 B)':22} {'tlsbench MB/s':>14} {'openssl speed MB/s':>19} {'ratio':>7}"]
    for r in rows:
        lines.append(f"{r.alg:22} {r.ours_bps / 1e6:14,.1f} {r.speed_bps / 1e6:19,.1f} {r.ratio:7.3f}")
    return "\n".join(lines)
