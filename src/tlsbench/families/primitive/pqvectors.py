"""Known answers for ML-KEM (FIPS 203) and ML-DSA (FIPS 204), read from the
pinned OpenSSL 3.5 source (libraries.lock.toml ["openssl@3.5"], its archive
checked by SHA-256), never copied into this repository:

  test/recipes/30-test_evp_data/evppkey_ml_kem_<n>_keygen.txt, _encap.txt:
      the "official test vectors" of the ML-KEM reference, as BoringSSL
      publishes them (seed d||z -> encapsulation key; ek, m -> ct, K)
  test/recipes/30-test_evp_data/evppkey_ml_dsa_keygen.txt:
      NIST ACVP ML-DSA-keyGen-FIPS204 internalProjection.json (seed -> pk)

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


@functools.cache
def dsa_vectors(alg: str) -> tuple[DsaVector, ...]:
    path = _tree() / DATA_DIR / "evppkey_ml_dsa_keygen.txt"
    found = [b for b in _blocks(path) if b.get("KeyGen") == DSAS[alg]][:PER_SET]
    if not found:
        raise SetupError(f"{alg}: no vectors in {path}")
    return tuple(DsaVector(bytes.fromhex(b["hexseed"]), bytes.fromhex(b["hexpub"]), _source(path, i))
                 for i, b in enumerate(found))
