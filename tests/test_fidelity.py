"""Fidelity: OpenSSL AES-128-GCM, ChaCha20-Poly1305 and SHA-256 throughput at
16 KiB against `openssl speed -evp ALG -bytes 16384` measured in the same
session (with -aead for an AEAD: complete seals, like ours).

AES-128-GCM and SHA-256 must agree within 10%; for AES-128-GCM our side sets
the key before every seal, as the command does (rekey=1). ChaCha20-Poly1305
sits 6-13% below `openssl speed -evp`: the command streams updates of one
message where we seal (11% more instructions natively, scripts/native-counts
aead; docs/method.md); its bound is 15%. Our own minimal loop doing complete
seals keyed once (tests/reference/aead_loop.c) gets the agent's figure,
within 10%, and that is checked below.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from tlsbench import fidelity


def test_openssl_figures_match_openssl_speed(agents) -> None:
    def outside(rows: list[fidelity.Comparison]) -> list[fidelity.Comparison]:
        return [r for r in rows if not r.within]

    missed = outside(fidelity.compare())
    for _ in range(2):
        # a pair that missed is measured again (twice at most): a busy moment on a
        # shared machine should not fail CI, a systematic difference still does
        if not missed:
            break
        again = {r.alg: r for r in fidelity.compare()}
        missed = outside([again[r.alg] for r in missed])
    assert missed == [], fidelity.render(missed)


def test_agent_matches_an_independent_loop_of_the_same_operation(agents, tmp_path: Path) -> None:
    """The same complete AEAD seal timed by a minimal program of its own."""
    exe = tmp_path / "aead_loop"
    src = Path(__file__).parent / "reference" / "aead_loop.c"
    subprocess.run([shutil.which("cc") or "cc", "-O2", str(src), "-o", str(exe), "-lcrypto"], check=True)

    def loop_bps(alg: str) -> float:
        out = subprocess.run([str(exe), alg, "16384", "1"], capture_output=True, text=True, check=True).stdout
        return float(out)

    def ratio(alg: str, rounds: int = 5) -> float:
        # the two alternate round by round, and each keeps its best round: a busy
        # moment slows one round of one tool, not a whole block of rounds of one
        ours, loop = [], []
        for _ in range(rounds):
            ours.append(fidelity.ours_bps("aead", alg, "encrypt"))
            loop.append(loop_bps(alg))
        return max(ours) / max(loop)

    for alg in ("aes-128-gcm", "chacha20-poly1305"):
        results = [ratio(alg)]
        if abs(results[0] - 1) > 0.10:
            results += [ratio(alg), ratio(alg)]  # re-measured on a miss: noise passes, a real gap does not
        assert min(abs(r - 1) for r in results) <= 0.10, (alg, results)


def test_openssl_speed_times_complete_seals_like_ours(monkeypatch) -> None:
    assert fidelity.speed_args("aes-128-gcm", True) == ["speed", "-mr", "-seconds", "1", "-aead", "-evp",
                                                        "aes-128-gcm", "-bytes", "16384"]
    assert "-aead" not in fidelity.speed_args("sha256", False)
    asked: list[tuple[str, bool]] = []

    def speed(evp: str, seconds: int = 1, aead: bool = False) -> float:
        asked.append((evp, aead))
        return 1.0

    rekeyed: list[tuple[str, bool]] = []

    def ours(kind: str, alg: str, op: str, rekey: bool = False) -> float:
        rekeyed.append((alg, rekey))
        return 1.0

    monkeypatch.setattr(fidelity, "speed_bps", speed)
    monkeypatch.setattr(fidelity, "ours_bps", ours)
    fidelity.compare(rounds=1)
    assert asked == [("aes-128-gcm", True), ("chacha20-poly1305", True), ("sha256", False)]
    # the command sets the AES-GCM key before every operation (it streams ChaCha20-Poly1305):
    # so does our side of the comparison
    assert rekeyed == [("aes-128-gcm", True), ("chacha20-poly1305", False), ("sha256", False)]
