"""Generated certificate chains verify with two independent peer tools
(OpenSSL's and GnuTLS's command-line verifiers) and carry what a web PKI
chain carries."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.x509.oid import ExtendedKeyUsageOID

from tlsbench.errors import PlanError
from tlsbench.families.tls.certs import HOSTS, KEY_TYPES, make_chain


def _openssl_verify(files: dict[str, Path], purpose: str) -> subprocess.CompletedProcess:
    # the chain file holds leaf then intermediate: split it for -untrusted
    pems = files["chain"].read_text().split("-----END CERTIFICATE-----\n")
    leaf = files["chain"].with_suffix(".leaf.pem")
    rest = files["chain"].with_suffix(".rest.pem")
    leaf.write_text(pems[0] + "-----END CERTIFICATE-----\n")
    rest.write_text("".join(p + "-----END CERTIFICATE-----\n" for p in pems[1:] if p.strip()))
    args = ["openssl", "verify", "-purpose", purpose, "-CAfile", str(files["root"])]
    if rest.read_text():
        args += ["-untrusted", str(rest)]
    return subprocess.run([*args, str(leaf)], capture_output=True, text=True, timeout=30)


@pytest.mark.parametrize("key_type", KEY_TYPES)
@pytest.mark.parametrize("kind", ["full", "leaf"])
def test_chains_verify_with_openssl_and_gnutls(tmp_path: Path, key_type: str, kind: str) -> None:
    chain = make_chain(key_type, kind, "server")
    files = chain.write(tmp_path)
    p = _openssl_verify(files, "sslserver")
    assert p.returncode == 0 and p.stdout.strip().endswith(": OK"), p.stdout + p.stderr
    g = subprocess.run(["certtool", "--verify", "--load-ca-certificate", str(files["root"]),
                        "--infile", str(files["chain"])], capture_output=True, text=True, timeout=30)
    assert g.returncode == 0 and "Chain verification output: Verified" in g.stdout, g.stdout + g.stderr
    assert len(chain.sent) == (2 if kind == "full" else 1)


def test_a_client_chain_is_for_client_authentication_only(tmp_path: Path) -> None:
    files = make_chain("ecdsa-p256", "full", "client").write(tmp_path)
    assert _openssl_verify(files, "sslclient").returncode == 0
    assert _openssl_verify(files, "sslserver").returncode != 0  # the verifier really checks the purpose


def test_leaf_carries_web_pki_extensions() -> None:
    chain = make_chain("rsa2048", "full", "server")
    leaf = chain.leaf.cert
    assert leaf.extensions.get_extension_for_class(x509.BasicConstraints).value.ca is False
    san = leaf.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert san.get_values_for_type(x509.DNSName) == [HOSTS["server"]]
    eku = leaf.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value
    assert list(eku) == [ExtendedKeyUsageOID.SERVER_AUTH]
    ku = leaf.extensions.get_extension_for_class(x509.KeyUsage).value
    assert ku.digital_signature and ku.key_encipherment  # RSA leaf: TLS 1.2 RSA key exchange too
    inter = chain.intermediate.cert
    assert inter.extensions.get_extension_for_class(x509.BasicConstraints).value.path_length == 0
    aki = leaf.extensions.get_extension_for_class(x509.AuthorityKeyIdentifier).value
    ski = inter.extensions.get_extension_for_class(x509.SubjectKeyIdentifier).value
    assert aki.key_identifier == ski.digest


def test_unknown_key_type_is_a_clear_error() -> None:
    with pytest.raises(PlanError, match="unknown key type 'dsa1024'; known: rsa2048"):
        make_chain("dsa1024")


def test_private_keys_are_written_for_the_owner_only(tmp_path: Path) -> None:
    import stat

    from tlsbench.families.primitive.keys import generate, save_reusable

    (tmp_path / "rsa2048-full-server-key.pem").write_bytes(b"old")
    (tmp_path / "rsa2048-full-server-key.pem").chmod(0o644)  # an older, open file is closed too
    files = make_chain("rsa2048").write(tmp_path)
    for name in ("key", "key_der"):
        assert stat.S_IMODE(files[name].stat().st_mode) == 0o600
    save_reusable(tmp_path / "material.json", generate())
    assert stat.S_IMODE((tmp_path / "material.json").stat().st_mode) == 0o600
