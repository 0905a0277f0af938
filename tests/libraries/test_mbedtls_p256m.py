"""The Mbed TLS "p256m" profile measures p256-m: on the emulated Cortex-M4 its
P-256 ECDH and ECDSA primitives go through PSA to the p256-m driver (the
image holds p256-m's functions, ours does not), give the reference's answers,
sign what the built-in verifier of our image accepts, and count exact
instructions that differ from our image's and repeat run after run.

Builds one image of its own (Mbed TLS with the p256m profile): no other
test's image has the driver (155 build steps: 16 s of CPU without a compiler
cache, measured on the development machine). Our image is the shared
Cortex-M4 fixture's."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import images
import pytest
from conftest import builds_in_set_up, needs_tools
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec

from tlsbench.engine import agent
from tlsbench.engine.protocol import encode_request
from tlsbench.targets import board as boards
from tlsbench.targets import target as targets

pytestmark = [needs_tools("qemu-system-arm", "arm-none-eabi-gcc", "arm-none-eabi-nm"), builds_in_set_up]

P256M = targets.parse("qemu:mps2-an386", profiles="mbedtls=p256m")
X962 = (serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
PRIVATE = 0x1234567890ABCDEF1234567890ABCDEF1234567890ABCDEF1234567890ABCDEF
KEY, PEER = ec.derive_private_key(PRIVATE, ec.SECP256R1()), ec.derive_private_key(0xC0FFEE, ec.SECP256R1())
PEER_PUB = PEER.public_key().public_bytes(*X962)
MSG = b"tlsbench p256m: a message to sign"
# the measured P-256 operations: (kind, alg, op, fields)
MEASURED = [
    ("kex", "p256", "derive", {"key": PRIVATE.to_bytes(32, "big"), "peer": PEER_PUB}),
    ("sig", "ecdsa-p256-sha256", "sign", {"key": PRIVATE.to_bytes(32, "big"), "msg": MSG}),
    ("sig", "ecdsa-p256-sha256", "verify", {"key": PRIVATE.to_bytes(32, "big"), "msg": MSG}),
]
P256M_FUNCTIONS = {"p256_ecdh_shared_secret", "p256_gen_keypair", "p256_ecdsa_sign", "p256_ecdsa_verify"}


@pytest.fixture(scope="module")
def launchers(firmware_images) -> dict[str, Path]:
    """Ours (the shared Cortex-M4 images) and the p256m profile's Mbed TLS image."""
    ours = firmware_images(images.M4)
    p256m = firmware_images(P256M, ["mbedtls"])
    return {"ours": targets.write_launcher(ours, "mbedtls"), "p256m": targets.write_launcher(p256m, "mbedtls")}


def _compute(launcher: Path, requests: list[str]) -> list[tuple[str, str, bytes]]:
    """(status, message, output) of each compute request."""
    out = agent.call(launcher, requests, 300, "p256m compute").responses
    return [(r.status, r.message, bytes(r.of_type("out")[0]["data"]) if r.of_type("out") else b"") for r in out]


def _instructions(launcher: Path) -> list[int]:
    """The exact instructions of one operation of each MEASURED case."""
    reqs = [encode_request("bench", kind=kind, alg=alg, op=op, warmup=0, repeats=1, min_ns=0, **fields)
            for kind, alg, op, fields in MEASURED]
    out = agent.call(launcher, reqs, 300, "p256m bench").responses
    return [int(r.of_type("sample")[0]["instructions"]) for r in out]


def _symbols(target: targets.Target) -> dict[str, int]:
    """The image's functions and their addresses."""
    nm = shutil.which("arm-none-eabi-nm")
    assert nm is not None
    listing = subprocess.run([nm, str(target.firmware_path("mbedtls"))], capture_output=True, text=True,
                             check=True, timeout=60).stdout
    return {f[2]: int(f[0], 16) & ~1 for f in (line.split() for line in listing.splitlines()) if len(f) == 3}


def _entered(target: targets.Target, functions: set[str], requests: list[str], log: Path) -> set[str]:
    """Which of these functions the image entered while it answered the requests: QEMU's execution
    log (-d exec), filtered to each function's first instruction."""
    where = {name: a for name, a in _symbols(target).items() if name in functions}
    assert target.board is not None and where
    cmd = [*boards.qemu_command(target.board, target.firmware_path("mbedtls")), "-d", "nochain,exec",
           "-dfilter", ",".join(f"0x{a:x}+2" for a in where.values()), "-D", str(log)]
    lines = "".join(f"{r}\n" for r in requests) + "exit\n"  # the firmware's own exit: QEMU ends
    subprocess.run(cmd, input=lines, capture_output=True, text=True, check=True, timeout=300)
    text = log.read_text()
    return {name for name, a in where.items() if f"/{a:08x}/" in text}


def _config(launcher: Path) -> str:
    return str(agent.call(launcher, ["hello"], 60, "p256m hello").responses[0].of_type("hello")[0]["config"])


def test_only_the_p256m_image_holds_p256m_and_says_so(launchers) -> None:
    assert P256M_FUNCTIONS <= _symbols(P256M).keys()
    assert not P256M_FUNCTIONS & _symbols(images.M4).keys()
    assert "(p256, ecdsa-p256-sha256) through PSA" in _config(launchers["p256m"])
    assert "no p256-m/Everest)" in _config(launchers["ours"])  # our image's text as before


def test_the_p256m_image_runs_p256m_where_ours_runs_ecp(launchers, tmp_path: Path) -> None:
    key = PRIVATE.to_bytes(32, "big")
    reqs = [encode_request("compute", kind="kex", alg="p256", op="derive", key=key, peer=PEER_PUB),
            encode_request("compute", kind="sig", alg="ecdsa-p256-sha256", op="sign", key=key, msg=MSG),
            encode_request("compute", kind="sig", alg="ecdsa-p256-sha256", op="verify", key=key, msg=MSG,
                           sig=KEY.sign(MSG, ec.ECDSA(hashes.SHA256())))]
    p256m = {"p256_ecdh_shared_secret", "p256_ecdsa_sign", "p256_ecdsa_verify"}
    ecp = {"mbedtls_ecp_mul_restartable", "mbedtls_ecp_muladd_restartable"}  # ecp.c's scalar multiplications
    assert _entered(P256M, p256m | ecp, reqs, tmp_path / "p256m.log") == p256m
    assert _entered(images.M4, ecp, reqs, tmp_path / "ours.log") == ecp


def test_p256m_gives_the_references_answers(launchers) -> None:
    key = PRIVATE.to_bytes(32, "big")
    reqs = [encode_request("compute", kind="kex", alg="p256", op="public", key=key),
            encode_request("compute", kind="kex", alg="p256", op="derive", key=key, peer=PEER_PUB),
            encode_request("compute", kind="kex", alg="p256", op="derive", key=key, peer=b"\x04" + bytes(64)),
            encode_request("compute", kind="kex", alg="p256", op="keygen")]
    public, derive, off_curve, (status, _, generated) = _compute(launchers["p256m"], reqs)
    assert public == ("ok", "", KEY.public_key().public_bytes(*X962))
    assert derive == ("ok", "", KEY.exchange(ec.ECDH(), PEER.public_key()))
    assert off_curve == ("bad_input", "psa_raw_key_agreement (peer): -135 PSA_ERROR_INVALID_ARGUMENT", b"")
    assert status == "ok"
    ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), generated)  # a point of the curve, or raises


def test_a_p256m_signature_verifies_with_the_builtin_code_and_back(launchers) -> None:
    key = PRIVATE.to_bytes(32, "big")
    sign = encode_request("compute", kind="sig", alg="ecdsa-p256-sha256", op="sign", key=key, msg=MSG)

    def verify(sig: bytes, msg: bytes = MSG) -> str:
        return encode_request("compute", kind="sig", alg="ecdsa-p256-sha256", op="verify", key=key, msg=msg, sig=sig)

    (_, _, by_ours), = _compute(launchers["ours"], [sign])
    # p256-m accepts ecdsa.c's signature and rejects it for a changed message
    signed, *verified = _compute(launchers["p256m"], [sign, verify(by_ours), verify(by_ours, MSG + b"!")])
    assert verified == [("ok", "", b""), ("reject", "psa_verify_hash: -149 PSA_ERROR_INVALID_SIGNATURE", b"")]
    status, _, by_p256m = signed
    assert status == "ok"
    KEY.public_key().verify(by_p256m, MSG, ec.ECDSA(hashes.SHA256()))  # raises if wrong
    # and our image's ecdsa.c accepts p256-m's
    assert [s for s, _, _ in _compute(launchers["ours"], [verify(by_p256m)])] == ["ok"]


def test_p256m_counts_are_exact_and_not_the_builtin_codes(launchers) -> None:
    p256m = _instructions(launchers["p256m"])
    assert _instructions(launchers["p256m"]) == p256m  # identical run after run
    ours = _instructions(launchers["ours"])
    assert all(a != b for a, b in zip(p256m, ours, strict=True)), (p256m, ours)
