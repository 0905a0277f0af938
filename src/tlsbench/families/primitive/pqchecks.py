"""The checks of the post-quantum primitives (kinds kem and pqsig), part of
checks.run_checks: known answers from published vectors (pqvectors.py),
then cross-library agreement, arbitrated by pyca/cryptography where it has
the parameter set (ML-KEM-768/1024, ML-DSA-44/65/87; for ML-KEM-512 the
known answers are the arbiter).

kem    keygen, encaps and decaps of each vector; a tampered ciphertext gives
       another secret (implicit rejection), not an error; a ciphertext from
       pyca/cryptography decapsulates; phase 2: every library decapsulates
       every other's ciphertext (pyca/cryptography checks each first).
pqsig  keygen of each vector; ML-DSA: deterministic sign of each ACVP
       sigGen answer of the agent's interface (from its encoded private key,
       which those vectors give instead of a seed); verifies a
       pyca/cryptography signature, rejects a tampered one; phase 2:
       pyca/cryptography verifies each library's signature, then every other
       library does.
       SLH-DSA: pyca/cryptography 50 has no SLH-DSA, so the arbiter is the
       ACVP answers (keygen, deterministic sign, verify of the answer's
       signature, a tampered one rejected), then every other library
       verifies each library's signature (cross-library only).
"""

from __future__ import annotations

from collections.abc import Callable

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric import mldsa, mlkem

from tlsbench.families.primitive import pqvectors

KINDS = ("kem", "pqsig")
# the encapsulation randomness of the kept ciphertext (not a vector's m: a fresh case)
CROSS_M = bytes(range(32))

_PYCA_KEM = {"ml-kem-768": mlkem.MLKEM768PrivateKey, "ml-kem-1024": mlkem.MLKEM1024PrivateKey}
_PYCA_DSA = {"ml-dsa-44": mldsa.MLDSA44PrivateKey, "ml-dsa-65": mldsa.MLDSA65PrivateKey,
             "ml-dsa-87": mldsa.MLDSA87PrivateKey}


def _flip(b: bytes, i: int) -> bytes:
    ba = bytearray(b)
    ba[i] ^= 1
    return bytes(ba)


def _other_secret(right: bytes) -> Callable[[str, bytes], str | None]:
    def judge(status: str, out: bytes) -> str | None:
        if status != "ok":
            return f"status {status} (implicit rejection returns a secret)"
        if len(out) != 32 or out == right:
            return f"got {out.hex()[:32]}..., expected a 32-byte secret other than the right one"
        return None

    return judge


def phase1_items(selected: set[tuple[str, str]], item, expect, expect_status, ok_any, message: bytes) -> list:
    """checks.CheckItem values (built by item(kind, alg, op, fields, judge, label, keep))."""
    out = []
    for alg in pqvectors.KEMS:
        if ("kem", alg) not in selected:
            continue
        vecs = pqvectors.kem_vectors(alg)
        for v in vecs:
            out += [
                item("kem", alg, "keygen", {"key": v.seed}, expect(v.ek), f"KAT {v.source}"),
                item("kem", alg, "encaps", {"pub": v.ek, "nonce": v.m}, expect(v.ct + v.ss), f"KAT {v.source}"),
                item("kem", alg, "decaps", {"key": v.seed, "msg": v.ct}, expect(v.ss), f"KAT {v.source}"),
            ]
        v = vecs[0]
        out += [
            item("kem", alg, "decaps", {"key": v.seed, "msg": _flip(v.ct, 5)}, _other_secret(v.ss),
                 "a tampered ciphertext gives another secret (implicit rejection)"),
            item("kem", alg, "encaps", {"pub": v.ek, "nonce": CROSS_M}, ok_any,
                 "ciphertext (kept for cross-decapsulation)", "kem"),
        ]
        if alg in _PYCA_KEM:
            ss, ct = _PYCA_KEM[alg].from_seed_bytes(v.seed).public_key().encapsulate()
            out.append(item("kem", alg, "decaps", {"key": v.seed, "msg": ct}, expect(ss),
                            "decapsulates a pyca/cryptography ciphertext"))
    for alg in pqvectors.SLHS:
        if ("pqsig", alg) not in selected:
            continue
        out += [item("pqsig", alg, "keygen", {"key": v.seed}, expect(v.pk), f"KAT {v.source}")
                for v in pqvectors.dsa_vectors(alg)]
        for s in pqvectors.sign_vectors(alg):
            out += [
                item("pqsig", alg, "sign", {"key": s.seed, "msg": s.msg}, expect(s.sig), f"KAT {s.source}"),
                item("pqsig", alg, "verify", {"pub": s.pk, "msg": s.msg, "sig": s.sig}, expect_status("ok"),
                     f"verifies the KAT signature {s.source}"),
                item("pqsig", alg, "verify", {"pub": s.pk, "msg": s.msg, "sig": _flip(s.sig, 10)},
                     expect_status("reject"), "rejects a tampered KAT signature"),
            ]
        v = pqvectors.dsa_vectors(alg)[0]
        out.append(item("pqsig", alg, "sign", {"key": v.seed, "msg": message}, ok_any,
                        "signature (kept for cross-verification)", "pqsig"))
    for alg in pqvectors.DSAS:
        if ("pqsig", alg) not in selected:
            continue
        vecs = pqvectors.dsa_vectors(alg)
        out += [item("pqsig", alg, "keygen", {"key": v.seed}, expect(v.pk), f"KAT {v.source}") for v in vecs]
        out += [item("pqsig", alg, "sign", {"key": s.seed, "msg": s.msg}, expect(s.sig), f"KAT {s.source}")
                for s in pqvectors.sign_vectors(alg)]
        v = vecs[0]
        ref = _PYCA_DSA[alg].from_seed_bytes(v.seed).sign(message)
        out += [
            item("pqsig", alg, "sign", {"key": v.seed, "msg": message}, ok_any,
                 "signature (kept for cross-verification)", "pqsig"),
            item("pqsig", alg, "verify", {"pub": v.pk, "msg": message, "sig": ref}, expect_status("ok"),
                 "verifies a pyca/cryptography signature"),
            item("pqsig", alg, "verify", {"pub": v.pk, "msg": message, "sig": _flip(ref, 10)},
                 expect_status("reject"), "rejects a tampered signature"),
        ]
    return out


def reference_problem(kind: str, alg: str, blob: bytes, message: bytes) -> str | None:
    """pyca/cryptography's verdict on a library's kept output (None: fine or no reference)."""
    if kind == "kem":
        ct, ss = blob[:-32], blob[-32:]
        if alg not in _PYCA_KEM:
            return None
        try:
            got = _PYCA_KEM[alg].from_seed_bytes(pqvectors.kem_vectors(alg)[0].seed).decapsulate(ct)
        except ValueError as e:
            return f"pyca/cryptography cannot decapsulate its ciphertext: {e}"
        return None if got == ss else "pyca/cryptography decapsulates its ciphertext to another secret"
    if alg not in _PYCA_DSA:  # SLH-DSA: no reference in pyca/cryptography (cross-library only)
        return None
    try:
        _PYCA_DSA[alg].from_seed_bytes(pqvectors.dsa_vectors(alg)[0].seed).public_key().verify(blob, message)
    except InvalidSignature:
        return "pyca/cryptography rejects its signature"
    return None


def cross_item(kind: str, alg: str, maker: str, blob: bytes, item, expect, expect_status, message: bytes):
    """The item every other library runs on maker's kept output."""
    if kind == "kem":
        v = pqvectors.kem_vectors(alg)[0]
        return item(kind, alg, "decaps", {"key": v.seed, "msg": blob[:-32]}, expect(blob[-32:]),
                    f"decapsulates {maker}'s ciphertext")
    v = pqvectors.dsa_vectors(alg)[0]
    return item(kind, alg, "verify", {"pub": v.pk, "msg": message, "sig": blob}, expect_status("ok"),
                f"verifies {maker}'s signature")
