"""Test material of emulated runs is derived from one documented seed: the
same keys, certificates and PSK on any machine, checkout and day, so exact
counts are exact everywhere. Host runs draw their primitive keys fresh every
run, and take the same seeded TLS chains and PSK as every other run."""

from __future__ import annotations

import json
import stat
import subprocess
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization

from tlsbench.families.primitive.keys import FIRMWARE_CLOCK, MATERIAL_SEED, generate, seeded
from tlsbench.families.primitive.randomness import Source, _probable_prime, rsa_key
from tlsbench.families.tls import certs
from tlsbench.families.tls import runner as tls_runner
from tlsbench.families.tls.runner import material


def test_seeded_keys_are_the_same_every_time_and_fresh_ones_are_not() -> None:
    # a seeded set derives RSA primes in Python (seconds): "a seed"'s is derived twice, not three times
    first = generate("a seed")
    assert first["kex"] == generate("a seed")["kex"]
    assert first["aead"] != generate("another seed")["aead"]
    assert generate()["kex"]["x25519"] != generate()["kex"]["x25519"]


def test_a_seeded_rsa_key_is_a_valid_key_of_its_size() -> None:
    k = rsa_key(2048, Source("a seed"), "rsa")
    n = k.private_numbers()
    assert k.key_size == 2048 and n.p * n.q == n.public_numbers.n
    assert _probable_prime(n.p) and _probable_prime(n.q) and not _probable_prime(n.p * n.q)
    assert rsa_key(2048, Source("a seed"), "rsa").private_numbers() == n


def test_seeded_chains_are_byte_identical_and_verify(tmp_path: Path) -> None:
    a = certs.make_chain("ecdsa-p256", "full", src=Source(MATERIAL_SEED))
    b = certs.make_chain("ecdsa-p256", "full", src=Source(MATERIAL_SEED))
    der = serialization.Encoding.DER
    assert [c.public_bytes(der) for c in a.sent] == [c.public_bytes(der) for c in b.sent]
    assert a.leaf.cert.not_valid_before_utc <= FIRMWARE_CLOCK <= a.leaf.cert.not_valid_after_utc
    files = a.write(tmp_path)
    p = subprocess.run(["openssl", "verify", "-attime", str(int(FIRMWARE_CLOCK.timestamp())), "-CAfile",
                        str(files["root"]), "-untrusted", str(files["chain"]), str(files["chain"])],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr


def test_the_emulated_material_is_cached_and_private(tmp_path: Path) -> None:
    cache = tmp_path / "material.json"
    keys = seeded(cache)
    material(keys, "ecdsa-p256", "full")
    material(keys, "psk", "full")
    again = generate(MATERIAL_SEED)
    material(again, "ecdsa-p256", "full")
    material(again, "psk", "full")
    assert keys["tls"] == again["tls"] and keys["sig"] == again["sig"]
    assert stat.S_IMODE(cache.stat().st_mode) == 0o600
    assert json.loads(cache.read_text())["seed"] == MATERIAL_SEED
    cache.write_text(json.dumps({**keys, "seed": "an older seed"}))
    assert seeded(cache)["seed"] == MATERIAL_SEED  # another seed's cache is made anew


def test_host_runs_fresh_keys_take_the_one_seeded_test_pki_from_its_cache(tmp_path: Path, monkeypatch) -> None:
    # two host runs' fresh keys (no seed) must send the same certificates, so their handshake bytes and
    # the heap their certificates take repeat; they are the emulated runs' chains too
    monkeypatch.setenv("TLSBENCH_ROOT", str(tmp_path))
    one: dict = {}  # a fresh host key set has no seed (generate()); the TLS material reads nothing else
    two: dict = {}
    for cred in ("ecdsa-p256", "rsa2048", "psk"):
        assert material(one, cred, "full") == material(two, cred, "full")
    emulated = {"seed": MATERIAL_SEED}
    assert material(emulated, "ecdsa-p256", "full") == material(one, "ecdsa-p256", "full")
    cache = tmp_path / ".tlsbench" / tls_runner.CHAIN_CACHE
    assert stat.S_IMODE(cache.stat().st_mode) == 0o600
    assert set(json.loads(cache.read_text())["chains"]) == {"ecdsa-p256-full", "rsa2048-full"}

    def no_derivation(*_args, **_kwargs):
        raise AssertionError("a cached chain was derived again")

    monkeypatch.setattr(tls_runner, "_make_chains", no_derivation)
    assert material({}, "rsa2048", "full") == one["tls"]["rsa2048-full"]
    cache.write_text(json.dumps({"seed": "an older seed", "chains": {"rsa2048-full": {"chain": "stale"}}}))
    with pytest.raises(AssertionError, match="derived again"):  # another seed's cache is not taken
        material({}, "rsa2048", "full")


def test_every_round_of_a_case_takes_its_chain_parsed_once(tmp_path: Path, monkeypatch) -> None:
    # each round builds the case anew; an RSA key's load checks the key (tens of ms), so a key is parsed
    # once per process, and each chain still gets its own key
    monkeypatch.setenv("TLSBENCH_ROOT", str(tmp_path))
    from tlsbench.families.tls.names import TlsVariant

    tls_runner._chain_from_pem.cache_clear()
    loads: list[str] = []
    real = serialization.load_pem_private_key

    def counting(data, password, *args, **kwargs):
        loads.append(data.decode())
        return real(data, password, *args, **kwargs)

    monkeypatch.setattr(serialization, "load_pem_private_key", counting)
    keys: dict = {}
    mutual = TlsVariant("x25519", "rsa2048", "full", "mutual", "full", verify=True)
    rounds = [tls_runner.tls_case("TLS_AES_128_GCM_SHA256", mutual, keys, 0) for _ in range(3)]
    assert len(loads) == 2  # the server's key and the client's, once each
    m = material(keys, "rsa2048", "full")
    assert set(loads) == {m["key"], m["client_key"]}
    pem = serialization.Encoding.PEM
    for case in rounds:
        assert case.chain is not None and case.client_chain is not None
        assert case.chain.leaf.cert.public_bytes(pem).decode() in m["chain"]
        assert case.client_chain.leaf.cert.public_bytes(pem).decode() in m["client_chain"]
        assert case.chain.leaf.key.public_key() == case.chain.leaf.cert.public_key()
        assert case.client_chain.leaf.key.public_key() == case.client_chain.leaf.cert.public_key()
