"""Known answers every library must reproduce before it is timed.

Where a standard publishes a vector it is used literally, with its source.
Where none fits the exact parameters (a 16-byte CCM tag, the TLS 1.2 CBC +
HMAC record shape, ECDH with the run's keys), the expected value comes from
an independent reference: pyca/cryptography, or plain Python arithmetic
(FFDHE), never from a library under test. The FFDHE primes are computed from
their definition in RFC 7919 (digits of e and the published constant X) and
checked to be safe primes by the test suite.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes


@dataclass(frozen=True)
class Vector:
    kind: str
    alg: str
    op: str
    fields: dict[str, bytes]
    expected: bytes
    source: str


def _h(s: str) -> bytes:
    return bytes.fromhex(s.replace(" ", ""))


_ABC_DIGESTS = {  # FIPS 180-4 / FIPS 202 example "abc"
    "md5": "900150983cd24fb0d6963f7d28e17f72",  # RFC 1321 A.5
    "sha1": "a9993e364706816aba3e25717850c26c9cd0d89d",
    "sha224": "23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7",
    "sha256": "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    "sha384": "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed"
              "8086072ba1e7cc2358baeca134c825a7",
    "sha512": "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
              "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
    "sha3-256": "3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532",
    "sha3-384": "ec01498288516fc926459f58e2c6ad8df9b473cb0fc08c2596da7cf0e49be4b2"
                "98d88cea927ac7f539f1edf228376d25",
    "sha3-512": "b751850b1a57168a5693cd924b6b096e08f621827444f70d884f5d0240d2712e"
                "10e116e9192af3c91a7ec57647e3934057340b4cf408d5a56592f8274eec53f0",
}

_GCM_P = _h("d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
            "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39")
_GCM_A = _h("feedfacedeadbeeffeedfacedeadbeefabaddad2")
_GCM_IV = _h("cafebabefacedbaddecaf888")

_CHACHA_PT = (b"Ladies and Gentlemen of the class of '99: If I could offer you only one tip "
              b"for the future, sunscreen would be it.")

X25519 = {  # RFC 7748 section 6.1
    "a_priv": _h("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a"),
    "a_pub": _h("8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a"),
    "b_pub": _h("de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f"),
    "shared": _h("4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742"),
}
X448 = {  # RFC 7748 section 6.2
    "a_priv": _h("9a8f4925d1519f5775cf46b04b5800d4ee9ee8bae8bc5565d498c28dd9c9baf5"
                 "74a9419744897391006382a6f127ab1d9ac2d8c0a598726b"),
    "a_pub": _h("9b08f7cc31b7e3e67d22d5aea121074a273bd2b83de09c63faa73d2c22c5d9bb"
                "c836647241d953d40c5b12da88120d53177f80e532c41fa0"),
    "b_pub": _h("3eb7a829b0cd20f5bcfc0b599b6feccf6da4627107bdb0d4f345b43027d8b972"
                "fc3e34fb4232a13ca706dcb57aec3dae07bdc1c67bf33609"),
    "shared": _h("07fff4181ac6cc95ec1c16a94a0f74d12da232ce40a77552281d282bb60c0b56"
                 "fd2464c335543936521c24403085d59a449a5037514a879d"),
}
ED25519 = {  # RFC 8032 section 7.1, TEST 2
    "key": _h("4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb"),
    "pub": _h("3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c"),
    "msg": _h("72"),
    "sig": _h("92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da"
              "085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"),
}


def _e_bits(bits: int) -> int:
    """floor(2^bits * e), from the series sum 1/k!, with guard bits."""
    guard = bits + 64
    total, term, k = 0, 1 << guard, 0
    while term:
        total += term
        k += 1
        term //= k
    return total >> 64


def _rfc7919_prime(bits: int, x: int) -> int:
    # p = 2^b - 2^{b-64} + {[2^{b-130} e] + X} * 2^64 - 1   (RFC 7919 appendix A)
    return 2**bits - 2 ** (bits - 64) + (_e_bits(bits - 130) + x) * 2**64 - 1


FFDHE_PRIMES = {"ffdhe2048": _rfc7919_prime(2048, 560316), "ffdhe3072": _rfc7919_prime(3072, 2625351)}


def standard_vectors() -> list[Vector]:
    """Fixed vectors from the standards (and the one CCM vector, see below)."""
    v = [
        Vector("hash", alg, "hash", {"msg": b"abc"}, _h(d), "FIPS 180-4 / FIPS 202 / RFC 1321 'abc'")
        for alg, d in _ABC_DIGESTS.items()
    ]
    v.append(Vector("mac", "hmac-sha256", "mac", {"key": b"Jefe", "msg": b"what do ya want for nothing?"},
                    _h("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
                    "RFC 4231 test case 2"))
    gcm128 = _h("42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e"
                "21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091"
                "5bc94fbc3221a5db94fae95ae7121a47")
    gcm256 = _h("522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa"
                "8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662"
                "76fc6ece0f4e1768cddf8853bb2d551b")
    k128 = _h("feffe9928665731c6d6a8f9467308308")
    chacha = _h("d31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee62d6"
                "3dbea45e8ca9671282fafb69da92728b1a71de0a9e060b2905d6a5b67ecd3b36"
                "92ddbd7f2d778b8c9803aee328091b58fab324e4fad675945585808b4831d7bc"
                "3ff4def08e4b7a9de576d26586cec64b6116"
                "1ae10b594f09e26a7e902ecbd0600691")
    ccm = _h("e3b201a9f5b71a7a9b1ceaeccd97e70b6176aad9a4428aa5c87ae488918de93f17dd3e4934347f44")
    aeads = [
        ("aes-128-gcm", {"key": k128, "nonce": _GCM_IV, "aad": _GCM_A}, _GCM_P, gcm128,
         "GCM specification test case 4"),
        ("aes-256-gcm", {"key": k128 * 2, "nonce": _GCM_IV, "aad": _GCM_A}, _GCM_P, gcm256,
         "GCM specification test case 16"),
        ("chacha20-poly1305",
         {"key": bytes(range(0x80, 0xa0)), "nonce": _h("070000004041424344454647"),
          "aad": _h("50515253c0c1c2c3c4c5c6c7")}, _CHACHA_PT, chacha, "RFC 8439 section 2.8.2"),
        ("aes-128-ccm",
         {"key": _h("404142434445464748494a4b4c4d4e4f"), "nonce": _h("101112131415161718191a1b"),
          "aad": _h("000102030405060708090a0b0c0d0e0f10111213")},
         _h("202122232425262728292a2b2c2d2e2f3031323334353637"), ccm,
         "SP 800-38C example 3 inputs with a 16-byte tag (TLS's), expected value from pyca/cryptography"),
    ]
    for alg, f, pt, ct, src in aeads:
        v.append(Vector("aead", alg, "encrypt", {**f, "msg": pt}, ct, src))
        v.append(Vector("aead", alg, "decrypt", {**f, "msg": ct}, pt, src))
    for alg, d in (("x25519", X25519), ("x448", X448)):
        v.append(Vector("kex", alg, "public", {"key": d["a_priv"]}, d["a_pub"], "RFC 7748 section 6"))
        v.append(Vector("kex", alg, "derive", {"key": d["a_priv"], "peer": d["b_pub"]}, d["shared"],
                        "RFC 7748 section 6"))
    v.append(Vector("sig", "ed25519", "sign", {"key": ED25519["key"], "pub": ED25519["pub"],
                                               "msg": ED25519["msg"]}, ED25519["sig"], "RFC 8032 TEST 2"))
    return v


def cbc_hmac_seal(alg: str, key: bytes, iv: bytes, aad: bytes, msg: bytes) -> bytes:
    """Reference TLS 1.2 MAC-then-encrypt record (see agent/include/tb/adapter.h)."""
    md = hashes.SHA1() if alg.endswith("sha1") else hashes.SHA256()
    enc_key, mac_key = key[:16], key[16:]
    tag = hmac.new(mac_key, aad + msg, md.name).digest()
    body = msg + tag
    pad = 16 - len(body) % 16
    body += bytes([pad - 1]) * pad
    enc = Cipher(algorithms.AES(enc_key), modes.CBC(iv)).encryptor()
    return enc.update(body) + enc.finalize()


def ecdh_reference(alg: str, priv: bytes, peer: bytes) -> tuple[bytes, bytes]:
    """(public of priv, shared secret) by pyca/cryptography."""
    curve = ec.SECP256R1() if alg == "p256" else ec.SECP384R1()
    k = ec.derive_private_key(int.from_bytes(priv, "big"), curve)
    pub = k.public_key().public_bytes(serialization.Encoding.X962,
                                      serialization.PublicFormat.UncompressedPoint)
    shared = k.exchange(ec.ECDH(), ec.EllipticCurvePublicKey.from_encoded_point(curve, peer))
    return pub, shared


def ffdhe_reference(alg: str, priv: bytes, peer: bytes) -> tuple[bytes, bytes]:
    p = FFDHE_PRIMES[alg]
    plen = (p.bit_length() + 7) // 8
    x = int.from_bytes(priv, "big")
    pub = pow(2, x, p).to_bytes(plen, "big")
    shared = pow(int.from_bytes(peer, "big"), x, p).to_bytes(plen, "big")
    return pub, shared
