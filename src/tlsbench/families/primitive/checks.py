"""Correctness before timing (SUPERCOP's "try"): known answers and
cross-library agreement, per library and algorithm.

Phase 1 asks each library for known answers (vectors.py), for ECDH/FFDHE
public keys and shared secrets from the run's keys (all must equal the
reference, hence each other), and for signatures and RSA ciphertexts of its
own. Phase 2 has every library verify every other library's signatures and
decrypt every other's ciphertexts; pyca/cryptography arbitrates who is wrong.
A (library, algorithm) that fails any item is "fail" and is not timed.
The post-quantum kinds' items are pqchecks.py's, run in the same two phases.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, x448, x25519
from cryptography.hazmat.primitives.asymmetric import padding as apad

from tlsbench import versions
from tlsbench.engine import agent as agent_mod
from tlsbench.engine.protocol import NO_ROOM, encode_request, ran_out_of_room
from tlsbench.errors import AgentError
from tlsbench.families.primitive import pqchecks
from tlsbench.families.primitive.catalog import ALGORITHMS
from tlsbench.families.primitive.vectors import cbc_hmac_seal, ecdh_reference, ffdhe_reference, standard_vectors

CBC_IV = bytes(range(16))
TLS_AAD = bytes.fromhex("00000000000000011703030064")  # seq 1, type 23, TLS 1.2, length 100
CHECK_MESSAGE = b"tlsbench cross-library check message, 48 bytes!"
PKE_MESSAGE = bytes(range(1, 49))  # 48 bytes, the TLS 1.2 premaster size


@dataclass
class CheckItem:
    kind: str
    alg: str
    op: str
    fields: dict[str, bytes]
    judge: Callable[[str, bytes], str | None]  # (status, output) -> failure text or None
    label: str
    keep: str | None = None  # "sig" / "ct": remember the output for phase 2


@dataclass
class CheckResult:
    library: str
    kind: str
    alg: str
    status: str  # pass | fail | unsupported
    detail: str
    no_room: bool = False  # failed because the agent ran out of memory (its end or fault record says so)


def _expect(value: bytes) -> Callable[[str, bytes], str | None]:
    def judge(status: str, out: bytes) -> str | None:
        if status != "ok":
            return f"status {status}"
        if out != value:
            return f"got {out.hex()[:32]}..., expected {value.hex()[:32]}..."
        return None

    return judge


def _expect_status(want: str) -> Callable[[str, bytes], str | None]:
    return lambda status, out: None if status == want else f"status {status}, expected {want}"


def _ok_any(status: str, out: bytes) -> str | None:
    return None if status == "ok" and out else f"status {status}"


def _flip(b: bytes, i: int = -1) -> bytes:
    ba = bytearray(b)
    ba[i] ^= 1
    return bytes(ba)


# ---------- reference signing / verification (pyca/cryptography) ----------

def _load_private(alg: str, key: dict) -> object:
    raw = bytes.fromhex(key["key"])
    if alg.startswith("rsa"):
        return serialization.load_der_private_key(raw, None)
    if alg == "ed25519":
        return ed25519.Ed25519PrivateKey.from_private_bytes(raw)
    curve = ec.SECP256R1() if "p256" in alg else ec.SECP384R1()
    return ec.derive_private_key(int.from_bytes(raw, "big"), curve)


def _hash_of(alg: str) -> hashes.HashAlgorithm:
    return hashes.SHA384() if alg.endswith("sha384") else hashes.SHA256()


def _pss(alg: str) -> apad.PSS:
    return apad.PSS(mgf=apad.MGF1(_hash_of(alg)), salt_length=_hash_of(alg).digest_size)


def ref_sign(alg: str, key: dict, msg: bytes) -> bytes:
    k = _load_private(alg, key)
    if alg == "ed25519":
        return k.sign(msg)
    if alg.startswith("ecdsa"):
        return k.sign(msg, ec.ECDSA(_hash_of(alg)))
    pad = _pss(alg) if "pss" in alg else apad.PKCS1v15()
    return k.sign(msg, pad, _hash_of(alg))


def ref_verify(alg: str, key: dict, msg: bytes, sig: bytes) -> bool:
    pub = _load_private(alg, key).public_key()
    try:
        if alg == "ed25519":
            pub.verify(sig, msg)
        elif alg.startswith("ecdsa"):
            pub.verify(sig, msg, ec.ECDSA(_hash_of(alg)))
        else:
            pub.verify(sig, msg, _pss(alg) if "pss" in alg else apad.PKCS1v15(), _hash_of(alg))
    except InvalidSignature:
        return False
    return True


def _montgomery_reference(alg: str, priv: bytes, peer: bytes) -> tuple[bytes, bytes]:
    cls, pcls = (
        (x25519.X25519PrivateKey, x25519.X25519PublicKey)
        if alg == "x25519"
        else (x448.X448PrivateKey, x448.X448PublicKey)
    )
    k = cls.from_private_bytes(priv)
    pub = k.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return pub, k.exchange(pcls.from_public_bytes(peer))


def kex_reference(alg: str, priv: bytes, peer: bytes) -> tuple[bytes, bytes]:
    if alg in ("x25519", "x448"):
        return _montgomery_reference(alg, priv, peer)
    if alg.startswith("ffdhe"):
        return ffdhe_reference(alg, priv, peer)
    return ecdh_reference(alg, priv, peer)


# ---------- the items ----------

def phase1_items(keys: dict, selected: set[tuple[str, str]]) -> list[CheckItem]:
    items: list[CheckItem] = []
    for v in standard_vectors():
        if (v.kind, v.alg) in selected:
            items.append(CheckItem(v.kind, v.alg, v.op, v.fields, _expect(v.expected), f"KAT {v.source}"))
            if v.kind == "aead" and v.op == "decrypt":
                items.append(CheckItem(v.kind, v.alg, "decrypt", {**v.fields, "msg": _flip(v.fields["msg"])},
                                       _expect_status("reject"), "tampered tag is rejected"))
    for alg in ("aes-128-cbc-hmac-sha1", "aes-128-cbc-hmac-sha256"):
        if ("aead", alg) not in selected:
            continue
        key = bytes.fromhex(keys["aead"][alg]["key"])
        msg = bytes(range(100))
        ct = cbc_hmac_seal(alg, key, CBC_IV, TLS_AAD, msg)
        f = {"key": key, "nonce": CBC_IV, "aad": TLS_AAD}
        items += [
            CheckItem("aead", alg, "encrypt", {**f, "msg": msg}, _expect(ct), "MtE record vs reference"),
            CheckItem("aead", alg, "decrypt", {**f, "msg": ct}, _expect(msg), "MtE record vs reference"),
            CheckItem("aead", alg, "decrypt", {**f, "msg": _flip(ct, -20)}, _expect_status("reject"),
                      "tampered record is rejected"),
        ]
    for alg, k in keys["kex"].items():
        if ("kex", alg) not in selected:
            continue
        priv, peer = bytes.fromhex(k["key"]), bytes.fromhex(k["peer"])
        pub, shared = kex_reference(alg, priv, peer)
        items += [
            CheckItem("kex", alg, "public", {"key": priv}, _expect(pub), "public key from the run's key"),
            CheckItem("kex", alg, "derive", {"key": priv, "peer": peer}, _expect(shared),
                      "shared secret equals the reference (so all libraries agree)"),
        ]
    for alg, k in keys["sig"].items():
        if ("sig", alg) not in selected:
            continue
        f = {"key": bytes.fromhex(k["key"]), "msg": CHECK_MESSAGE}
        if "pub" in k:
            f["pub"] = bytes.fromhex(k["pub"])
        deterministic = alg == "ed25519" or "pkcs1" in alg
        ref = ref_sign(alg, k, CHECK_MESSAGE)
        items += [
            CheckItem("sig", alg, "sign", f, _expect(ref) if deterministic else _ok_any,
                      "signature (kept for cross-verification)", keep="sig"),
            CheckItem("sig", alg, "verify", {**f, "sig": ref}, _expect_status("ok"),
                      "verifies a pyca/cryptography signature"),
            CheckItem("sig", alg, "verify", {**f, "sig": _flip(ref, 10)}, _expect_status("reject"),
                      "rejects a tampered signature"),
        ]
    for alg, k in keys["pke"].items():
        if ("pke", alg) not in selected:
            continue
        key = bytes.fromhex(k["key"])
        pub = serialization.load_der_private_key(key, None).public_key()
        ref_ct = pub.encrypt(PKE_MESSAGE, apad.PKCS1v15())
        items += [
            CheckItem("pke", alg, "encrypt", {"key": key, "msg": PKE_MESSAGE}, _ok_any,
                      "ciphertext (kept for cross-decryption)", keep="ct"),
            CheckItem("pke", alg, "decrypt", {"key": key, "msg": ref_ct}, _expect(PKE_MESSAGE),
                      "decrypts a pyca/cryptography ciphertext"),
        ]
    if any(kind in pqchecks.KINDS for kind, _ in selected):
        items += pqchecks.phase1_items(selected, CheckItem, _expect, _expect_status, _ok_any, CHECK_MESSAGE)
    return items


def unsupported_reason(lib: str, kind: str) -> str:
    """Why a library lacks a kind, naming the versions that have it where the kind is version-bound."""
    having = versions.having(kind)
    if having and lib not in having:
        v = versions.version_of(lib)
        why = f" ({v.lacks_why})" if v.lacks_why else ""
        return f"{v.library} {v.label} has no {kind} algorithms{why}; versions with them: {', '.join(having)}"
    return "not supported by this library build"


def request_for(item: CheckItem) -> str:
    return encode_request("compute", kind=item.kind, alg=item.alg, op=item.op, **item.fields)


class _Tally:
    def __init__(self) -> None:
        self.failures: dict[tuple[str, str, str], str] = {}
        self.passed: dict[tuple[str, str, str], int] = {}
        self.no_room: set[tuple[str, str, str]] = set()  # whose (first) failure ran out of the agent's memory

    def record(self, lib: str, kind: str, alg: str, failure: str | None, label: str, no_room: bool = False) -> None:
        key = (lib, kind, alg)
        if failure is None:
            self.passed[key] = self.passed.get(key, 0) + 1
        elif key not in self.failures:
            self.failures[key] = f"{label}: {failure}"
            if no_room:
                self.no_room.add(key)


def run_checks(
    agents: dict[str, Path],
    support: dict[str, set[tuple[str, str, str]]],
    keys: dict,
    selected: set[tuple[str, str]],
    timeout: float,
) -> list[CheckResult]:
    tally = _Tally()
    # post-quantum items only where some library has the algorithm (their vectors come from a pinned source)
    selected_items = {(kind, alg) for kind, alg in selected if kind not in pqchecks.KINDS or any(
        (kind, alg, op) in support[lib] for lib in agents for op in ALGORITHMS[kind][alg])}
    items = phase1_items(keys, selected_items)
    made: dict[tuple[str, str, str], dict[str, bytes]] = {}  # (kind, alg, what) -> lib -> bytes
    broken: dict[str, str] = {}
    broken_no_room: set[str] = set()  # agents that crashed out of memory (a stack overflow's fault record)
    for lib, path in agents.items():
        mine = [it for it in items if (it.kind, it.alg, it.op) in support[lib]]
        try:
            res = agent_mod.call(path, [request_for(it) for it in mine], timeout, f"{lib} checks")
        except AgentError as e:
            broken[lib] = str(e)
            if isinstance(e, agent_mod.AgentCallError) and ran_out_of_room(e.partial.stdout):
                broken_no_room.add(lib)
            continue
        for it, resp in zip(mine, res.responses, strict=True):
            out = resp.of_type("out")
            data = bytes(out[0]["data"]) if out else b""
            failure = it.judge(resp.status, data)
            if failure and resp.message:
                failure += f" ({resp.message})"
            tally.record(lib, it.kind, it.alg, failure, f"{it.op}: {it.label}", resp.status == NO_ROOM)
            if failure is None and it.keep:
                made.setdefault((it.kind, it.alg, it.keep), {})[lib] = data

    # Phase 2: cross-verification and cross-decryption, arbitrated by the reference.
    cross: dict[str, list[tuple[CheckItem, str]]] = {lib: [] for lib in agents}
    for (kind, alg, what), by_lib in made.items():
        k = keys.get(kind, {}).get(alg, {})
        for maker, blob in by_lib.items():
            if kind in pqchecks.KINDS:
                problem = pqchecks.reference_problem(kind, alg, blob, CHECK_MESSAGE)
                if problem:
                    tally.record(maker, kind, alg, problem, "encaps" if kind == "kem" else "sign")
                    continue
                item = pqchecks.cross_item(kind, alg, maker, blob, CheckItem, _expect, _expect_status, CHECK_MESSAGE)
            elif what == "sig":
                if not ref_verify(alg, k, CHECK_MESSAGE, blob):
                    tally.record(maker, kind, alg, "pyca/cryptography rejects its signature", "sign")
                    continue
                f = {"key": bytes.fromhex(k["key"]), "msg": CHECK_MESSAGE, "sig": blob}
                if "pub" in k:
                    f["pub"] = bytes.fromhex(k["pub"])
                item = CheckItem(kind, alg, "verify", f, _expect_status("ok"), f"verifies {maker}'s signature")
            else:
                priv = serialization.load_der_private_key(bytes.fromhex(k["key"]), None)
                if priv.decrypt(blob, apad.PKCS1v15()) != PKE_MESSAGE:
                    tally.record(maker, kind, alg, "pyca/cryptography cannot decrypt it", "encrypt")
                    continue
                f = {"key": bytes.fromhex(k["key"]), "msg": blob}
                item = CheckItem(kind, alg, "decrypt", f, _expect(PKE_MESSAGE), f"decrypts {maker}'s ciphertext")
            for lib in agents:
                if lib != maker and lib not in broken and (kind, alg, item.op) in support[lib]:
                    cross[lib].append((item, maker))
    for lib, pairs in cross.items():
        if not pairs:
            continue
        try:
            res = agent_mod.call(agents[lib], [request_for(it) for it, _ in pairs], timeout, f"{lib} cross-checks")
        except AgentError as e:
            broken[lib] = str(e)
            if isinstance(e, agent_mod.AgentCallError) and ran_out_of_room(e.partial.stdout):
                broken_no_room.add(lib)
            continue
        for (it, _maker), resp in zip(pairs, res.responses, strict=True):
            out = resp.of_type("out")
            failure = it.judge(resp.status, bytes(out[0]["data"]) if out else b"")
            tally.record(lib, it.kind, it.alg, failure, f"{it.op}: {it.label}", resp.status == NO_ROOM)

    results = []
    for lib in agents:
        for kind, alg in sorted(selected):
            key = (lib, kind, alg)
            if lib in broken:
                results.append(CheckResult(lib, kind, alg, "fail", f"agent failed during checks: {broken[lib]}",
                                           lib in broken_no_room))
            elif not any((kind, alg, op) in support[lib] for op in ALGORITHMS[kind][alg]):
                results.append(CheckResult(lib, kind, alg, "unsupported", unsupported_reason(lib, kind)))
            elif key in tally.failures:
                results.append(CheckResult(lib, kind, alg, "fail", tally.failures[key], key in tally.no_room))
            elif tally.passed.get(key, 0) == 0:
                results.append(CheckResult(lib, kind, alg, "fail", "no check could be run"))
            else:
                results.append(CheckResult(lib, kind, alg, "pass", f"{tally.passed[key]} checks passed"))
    return results
