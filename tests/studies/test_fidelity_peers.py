"""The embedded libraries' own benchmark programs, built from the pinned
sources like our agents: their output is read right (exact text captured
from them), and each program builds and answers for a quick algorithm."""

from __future__ import annotations

import subprocess

import pytest

from tlsbench.studies import fidelity_peers as fp

MBEDTLS_OUT = """
  SHA-256                  :     115323 KiB/s,         31 cycles/byte
  AES-GCM-128              :     166239 KiB/s,          6 cycles/byte
  ECDSA-secp256r1          :    1234 sign/s
  ECDSA-secp256r1          :     456 verify/s
  ECDH-x25519              :    2345 static handshake/s
  ECDH-secp256r1           :    1111 static handshake/s
  RSA-2048                 :   12345  public/s
  RSA-2048                 :     321 private/s
"""
WOLFSSL_OUT = """Algorithm,MB/s,Cycles per byte,
AES-128-GCM-enc,2178.303622,1.138288,
SHA-256,499.223011,4.966790,
Algorithm,key size,operation,avg ms,ops/sec,
ECDHE [      SECP256R1],256,agree,0.156,6402.489,
ECDSA [      SECP256R1],256,sign,0.089,11184.299,
ECDSA [      SECP256R1],256,verify,0.129,7741.868,
CURVE,25519,agree,0.095,10484.041,
RSA,2048,sign,2.277,439.269,
RSA,2048,verify,0.036,27765.222,
"""


def test_mbedtls_output_is_read_right() -> None:
    found = fp.parse_mbedtls(MBEDTLS_OUT)
    assert found[("SHA-256", "KiB/s")] == 115323 * 1024
    assert found[("RSA-2048", "public")] == 12345 and found[("RSA-2048", "private")] == 321
    assert found[("ECDH-x25519", "static handshake")] == 2345
    assert all(p.peer_key in found for p in fp.PEERS["mbedtls"].pairs)


def test_wolfssl_output_is_read_right() -> None:
    found = fp.parse_wolfssl(WOLFSSL_OUT)
    assert found[("AES-128-GCM-enc", "MB/s")] == 2178.303622 * 1024 * 1024
    assert found[("ECDSA [SECP256R1] 256", "verify")] == 7741.868
    assert found[("CURVE 25519", "agree")] == 10484.041
    assert all(p.peer_key in found for p in fp.PEERS["wolfssl"].pairs)


@pytest.mark.parametrize("library, args, key", [
    ("mbedtls", ("sha256",), ("SHA-256", "KiB/s")),
    ("wolfssl", ("-csv", "-dgst_full", "-sha256", "1024"), ("SHA-256", "MB/s")),
])
def test_each_peer_program_builds_like_the_agent_and_answers(agents, library: str, args: tuple, key: tuple) -> None:
    peer = fp.PEERS[library]
    exe = fp.build_peer(peer)
    out = subprocess.run([exe, *args], capture_output=True, text=True, timeout=120, check=True).stdout
    assert peer.parse(out)[key] > 0


def _symbols(exe: str) -> list[tuple[str, str]]:
    """(type, name without its version) of each symbol nm lists."""
    out = subprocess.run(["nm", exe], capture_output=True, text=True, check=True).stdout
    return [(cells[-2], cells[-1].split("@")[0]) for cells in (line.split() for line in out.splitlines())
            if len(cells) >= 2]


def test_both_peer_programs_count_cpu_time_like_ours(agents) -> None:
    """A busy machine's other processes count against neither side: wolfCrypt's
    program reads getrusage (its LINUX_RUSAGE_UTIME); in Mbed TLS's every
    alarm() is the wrapped one (a user CPU time timer), none the C library's."""
    wolf = _symbols(fp.build_peer(fp.PEERS["wolfssl"]))
    assert ("U", "getrusage") in wolf
    mbed = _symbols(fp.build_peer(fp.PEERS["mbedtls"]))
    assert ("T", "__wrap_alarm") in mbed
    assert not [s for s in mbed if s[1] == "alarm"]


def test_the_table_keeps_the_best_round_and_shows_every_round_on_request() -> None:
    rows = [fp.Row("mbedtls", "sha256 hash 1024 B", "B/s", [290e6, 292e6, 276e6], [274e6, 293e6, 291e6], ""),
            fp.Row("wolfssl", "ecdsa-p256-sha256 verify", "op/s", [18_600.0, 18_700.0], [18_800.0, 18_700.0],
                   "ours hashes the message")]
    assert rows[0].ours == 292e6 and rows[0].peer == 293e6 and rows[1].ratio == 18_700 / 18_800
    table = fp.render(rows)
    assert "each round" not in table
    assert table.splitlines()[1].split()[-3:] == ["293.0", "MB/s", "0.997"]
    shown = fp.render(rows, rounds=True).splitlines()
    assert shown[4] == "each round, tlsbench / own benchmark:"
    assert shown[5].endswith("290.0 MB/s / 274.0 MB/s; 292.0 MB/s / 293.0 MB/s; 276.0 MB/s / 291.0 MB/s")
    assert shown[6].endswith("18,600 op/s / 18,800 op/s; 18,700 op/s / 18,700 op/s")
