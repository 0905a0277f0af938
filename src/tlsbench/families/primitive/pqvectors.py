"""Known answers for ML-KEM (FIPS 203) and ML-DSA (FIPS 204), read from the
pinned OpenSSL 3.5 source (libraries/openssl.py's pin "openssl@3.5", its archive
checked by SHA-256), never copied into this repository:

  test/recipes/30-test_evp_data/evppkey_ml_kem_<n>_keygen.txt, _encap.txt:
      the "official test vectors" of the ML-KEM reference, as BoringSSL
      publishes them (seed d||z -> encapsulation key; ek, m -> ct, K)
  test/recipes/30-test_evp_data/evppkey_ml_dsa_keygen.txt:
      NIST ACVP ML-DSA-keyGen-FIPS204 internalProjection.json (seed -> pk)
  test/recipes/30-test_evp_data/evppkey_ml_dsa_siggen.txt:
      NIST ACVP ML-DSA-sigGen-FIPS204 internalProjection.json (sk, M ->
      signature). Its private keys are FIPS 204's encoded ones (skEncode),
      not seeds: the agent's sign takes such a key for these checks only
      (adapter.h). The answers used are those of the agent's interface:
      deterministic, external ("pure") message encoding, empty context.
  test/recipes/30-test_evp_data/evppkey_slh_dsa_keygen.txt, _siggen.txt:
      NIST ACVP SLH-DSA-keyGen-FIPS205 / SLH-DSA-sigGen-FIPS205
      internalProjection.json [version 53] (seed -> pk; sk, M -> signature).
      The sign answers are the vectors of the agent's interface: deterministic,
      external ("pure") message encoding, empty context; the private key's
      first 3n bytes (SK.seed || SK.prf || PK.seed) are the seed.

The first vectors of each parameter set are the checks; vector 0 is also the
benchmark's input (its seed, ek, m and ciphertext), so every run of a case
does the same work on any machine.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

from tlsbench.errors import SetupError
from tlsbench.targets import sources

PIN = "openssl@3.5"
DATA_DIR = "test/recipes/30-test_evp_data"
KEMS = {"ml-kem-512": "ML-KEM-512", "ml-kem-768": "ML-KEM-768", "ml-kem-1024": "ML-KEM-1024"}
DSAS = {"ml-dsa-44": "ML-DSA-44", "ml-dsa-65": "ML-DSA-65", "ml-dsa-87": "ML-DSA-87"}
SLHS = {"slh-dsa-sha2-128s": "SLH-DSA-SHA2-128s", "slh-dsa-sha2-128f": "SLH-DSA-SHA2-128f"}
PER_SET = 3  # vectors checked per parameter set and file


@dataclass(frozen=True)
class KemVector:
    seed: bytes  # d || z
    ek: bytes
    m: bytes
    ct: bytes
    ss: bytes
    source: str


@dataclass(frozen=True)
class DsaVector:
    seed: bytes  # xi
    pk: bytes
    source: str


def _blocks(path: Path) -> list[dict[str, str]]:
    """The file's stanzas as {key: value}; "Ctrl(Out) = hexname:value" lines as hexname."""
    out: list[dict[str, str]] = []
    cur: dict[str, str] = {}
    for line in path.read_text().splitlines() + [""]:
        line = line.strip()
        if not line:
            if cur:
                out.append(cur)
            cur = {}
            continue
        if line.startswith("#") or "=" not in line:
            continue
        key, value = (x.strip() for x in line.split("=", 1))
        if key in ("Ctrl", "CtrlOut") and ":" in value:
            key, value = value.split(":", 1)
        cur[key] = value
    return out


@functools.cache
def _tree() -> Path:
    """The verified tree, once per process (checking its manifest reads every file of OpenSSL's source)."""
    try:
        return sources.ensure_sources([PIN])[PIN]
    except (SetupError, KeyError) as e:
        raise SetupError(f"ML-KEM/ML-DSA known answers come from the pinned OpenSSL 3.5 source: {e}") from e


def _source(path: Path, n: int) -> str:
    pin = sources.load_lock()[PIN]
    return f"{pin.archive} (sha256 {pin.sha256[pin.archive][:16]}...) {DATA_DIR}/{path.name} vector {n}"


@functools.cache
def kem_vectors(alg: str) -> tuple[KemVector, ...]:
    name, bits = KEMS[alg], alg.rsplit("-", 1)[1]
    base = _tree() / DATA_DIR
    keygen = [b for b in _blocks(base / f"evppkey_ml_kem_{bits}_keygen.txt") if b.get("KeyGen") == name]
    encap = [b for b in _blocks(base / f"evppkey_ml_kem_{bits}_encap.txt") if b.get("Kem") == name]
    out = []
    for i, (k, e) in enumerate(zip(keygen, encap, strict=False)):
        if i == PER_SET:
            break
        if k["hexpub"].lower() != e["EncodedPublicKey"].lower():
            raise SetupError(f"{alg}: keygen and encap vector {i} are of different keys")
        out.append(KemVector(bytes.fromhex(k["hexseed"]), bytes.fromhex(k["hexpub"]), bytes.fromhex(e["Entropy"]),
                             bytes.fromhex(e["Ciphertext"]), bytes.fromhex(e["Output"]),
                             _source(base / f"evppkey_ml_kem_{bits}_encap.txt", i)))
    if not out:
        raise SetupError(f"{alg}: no vectors in {base}")
    return tuple(out)


@dataclass(frozen=True)
class SignVector:
    seed: bytes  # SLH-DSA: SK.seed || SK.prf || PK.seed; ML-DSA: the encoded private key (skEncode)
    pk: bytes  # SLH-DSA: PK.seed || PK.root; ML-DSA: b"" (the vectors give none)
    msg: bytes
    sig: bytes
    source: str


@functools.cache
def dsa_vectors(alg: str) -> tuple[DsaVector, ...]:
    """Key generation answers of ML-DSA or SLH-DSA (seed -> public key)."""
    slh = alg in SLHS
    path = _tree() / DATA_DIR / ("evppkey_slh_dsa_keygen.txt" if slh else "evppkey_ml_dsa_keygen.txt")
    found = [b for b in _blocks(path) if b.get("KeyGen") == (SLHS if slh else DSAS)[alg]][:PER_SET]
    if not found:
        raise SetupError(f"{alg}: no vectors in {path}")
    return tuple(DsaVector(bytes.fromhex(b["hexseed"]), bytes.fromhex(b["hexpub"]), _source(path, i))
                 for i, b in enumerate(found))


def _of_the_interface(b: dict[str, str]) -> bool:
    """A sign answer of the agent's interface, each setting named in the stanza:
    deterministic, external ("pure") message encoding, an empty context, the
    message itself (not an external mu)."""
    return (b.get("deterministic") == "1" and b.get("message-encoding") == "1" and b.get("hexcontext-string") == ""
            and b.get("mu", "0") == "0")


@functools.cache
def sign_vectors(alg: str) -> tuple[SignVector, ...]:
    """Signing answers of the agent's interface (deterministic, pure, empty
    context): SLH-DSA from its seed, ML-DSA from its encoded private key."""
    slh = alg in SLHS
    name_of = SLHS if slh else DSAS
    if alg not in name_of:
        return ()
    path = _tree() / DATA_DIR / ("evppkey_slh_dsa_siggen.txt" if slh else "evppkey_ml_dsa_siggen.txt")
    blocks = _blocks(path)
    keys = {}
    for b in blocks:
        if "PrivateKeyRaw" in b:
            name, _, sk = b["PrivateKeyRaw"].split(":")
            keys[name] = bytes.fromhex(sk)
    out = []
    for i, b in enumerate(blocks):
        set_name, _, name = b.get("Sign-Message", "").partition(":")
        if set_name != name_of[alg] or not _of_the_interface(b):
            continue
        sk = keys[name]
        if slh:
            n = len(sk) // 4  # sk = SK.seed || SK.prf || PK.seed || PK.root
            key, pk = sk[:3 * n], sk[2 * n:]
        else:
            key, pk = sk, b""
        out.append(SignVector(key, pk, bytes.fromhex(b["Input"]), bytes.fromhex(b["Output"]),
                              f"{_source(path, i)} ({name})"))
    if not out:
        raise SetupError(f"{alg}: no deterministic pure-message sign vectors with an empty context in {path}")
    return tuple(out[:PER_SET])
