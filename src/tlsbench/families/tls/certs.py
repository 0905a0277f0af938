"""Test certificate chains for the TLS benchmarks, generated, never real.

For each key type, a root CA, an intermediate CA and a leaf (server or
client), all of that key type, so a chain's verification cost is the key
type's. Chains come in two lengths: "full" (leaf + intermediate sent, root
trusted) and "leaf" (leaf signed by the root directly, leaf alone sent).
Names and extensions are those of a real web PKI chain (basic constraints
with path lengths, key usage, extended key usage, subject alternative
names, key identifiers), so parsing and checking them costs what it does in
the field.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from tlsbench.errors import PlanError
from tlsbench.families.primitive.randomness import ORDERS, Source, ec_key, ed25519_key, rsa_key
from tlsbench.paths import write_private

KEY_TYPES = ("rsa2048", "rsa3072", "ecdsa-p256", "ecdsa-p384", "ed25519")
CHAIN_KINDS = ("full", "leaf")
ROLES = ("server", "client")
ORG = "tlsbench test PKI (generated, not for production)"
HOSTS = {"server": "server.tlsbench.test", "client": "client.tlsbench.test"}
VALIDITY = datetime.timedelta(days=30)
# seeded chains: fixed dates, before 2050 (UTCTime) and valid for years
SEEDED_NOT_BEFORE = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)
SEEDED_NOT_AFTER = datetime.datetime(2045, 12, 31, tzinfo=datetime.UTC)


def _key(key_type: str, src: Source, label: str):
    if key_type.startswith("rsa"):
        return rsa_key(int(key_type[3:]), src, label)
    if key_type == "ecdsa-p256":
        return ec_key(ec.SECP256R1(), ORDERS["p256"], src, label)
    if key_type == "ecdsa-p384":
        return ec_key(ec.SECP384R1(), ORDERS["p384"], src, label)
    if key_type == "ed25519":
        return ed25519_key(src, label)
    raise PlanError(f"unknown key type {key_type!r}; known: {', '.join(KEY_TYPES)}")


def _serial(src: Source, label: str) -> int:
    if not src.deterministic:
        return x509.random_serial_number()
    return int.from_bytes(src.bytes(label + "/serial", 19), "big") >> 1 or 1  # positive, < 2**159


def _validity(src: Source, now: datetime.datetime | None) -> tuple[datetime.datetime, datetime.datetime]:
    """A seeded chain has a fixed validity (the same bytes every time, and
    still valid for a peer reading the real clock); a fresh one is valid from
    an hour before now."""
    if src.deterministic:
        return SEEDED_NOT_BEFORE, SEEDED_NOT_AFTER
    now = now or datetime.datetime.now(datetime.UTC)
    return now - datetime.timedelta(hours=1), now + VALIDITY


def _hash(key_type: str) -> hashes.HashAlgorithm | None:
    if key_type == "ed25519":
        return None  # EdDSA hashes internally
    return hashes.SHA384() if key_type == "ecdsa-p384" else hashes.SHA256()


def _name(common: str, unit: str) -> x509.Name:
    return x509.Name([
        x509.NameAttribute(NameOID.COUNTRY_NAME, "ZZ"),
        x509.NameAttribute(NameOID.ORGANIZATION_NAME, ORG),
        x509.NameAttribute(NameOID.ORGANIZATIONAL_UNIT_NAME, unit),
        x509.NameAttribute(NameOID.COMMON_NAME, common),
    ])


@dataclass
class Issued:
    key: object
    cert: x509.Certificate


def _issue(subject: x509.Name, key, issuer: Issued | None, key_type: str, *, ca: bool,
           path_length: int | None, role: str | None, validity: tuple[datetime.datetime, datetime.datetime],
           serial: int) -> Issued:
    public = key.public_key()
    builder = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer.cert.subject if issuer else subject)
        .public_key(public)
        .serial_number(serial)
        .not_valid_before(validity[0])
        .not_valid_after(validity[1])
        .add_extension(x509.BasicConstraints(ca=ca, path_length=path_length), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(public), critical=False)
    )
    if issuer is not None:
        builder = builder.add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer.key.public_key()), critical=False)
    if ca:
        usage = dict(key_cert_sign=True, crl_sign=True, digital_signature=False, key_encipherment=False,
                     key_agreement=False)
    else:
        # RSA leaves may also carry the TLS 1.2 RSA key exchange (key
        # encipherment), EC leaves static ECDH (key agreement)
        usage = dict(key_cert_sign=False, crl_sign=False, digital_signature=True,
                     key_encipherment=key_type.startswith("rsa"), key_agreement=key_type.startswith("ecdsa"))
    builder = builder.add_extension(
        x509.KeyUsage(content_commitment=False, data_encipherment=False,
                      encipher_only=False, decipher_only=False, **usage), critical=True)
    if role is not None:
        eku = ExtendedKeyUsageOID.SERVER_AUTH if role == "server" else ExtendedKeyUsageOID.CLIENT_AUTH
        builder = builder.add_extension(x509.ExtendedKeyUsage([eku]), critical=False)
        builder = builder.add_extension(x509.SubjectAlternativeName([x509.DNSName(HOSTS[role])]), critical=False)
    signer = issuer.key if issuer else key
    # deterministic ECDSA (RFC 6979): the same key and content give the same bytes
    deterministic = True if isinstance(signer, ec.EllipticCurvePrivateKey) else None
    return Issued(key, builder.sign(signer, _hash(key_type), ecdsa_deterministic=deterministic))


@dataclass
class Chain:
    key_type: str
    kind: str  # full | leaf
    role: str  # server | client
    root: Issued
    intermediate: Issued | None
    leaf: Issued

    @property
    def sent(self) -> list[x509.Certificate]:
        """What the peer sends in its Certificate message, leaf first."""
        return [self.leaf.cert] + ([self.intermediate.cert] if self.intermediate else [])

    def write(self, directory: Path) -> dict[str, Path]:
        """PEM and DER files: root (trust anchor), chain (sent), leaf key."""
        directory.mkdir(parents=True, exist_ok=True)
        stem = f"{self.key_type}-{self.kind}-{self.role}"
        pem = serialization.Encoding.PEM
        files = {
            "root": directory / f"{stem}-root.pem",
            "chain": directory / f"{stem}-chain.pem",
            "key": directory / f"{stem}-key.pem",
            "key_der": directory / f"{stem}-key.der",
            "leaf_der": directory / f"{stem}-leaf.der",
        }
        files["root"].write_bytes(self.root.cert.public_bytes(pem))
        files["chain"].write_bytes(b"".join(c.public_bytes(pem) for c in self.sent))
        files["leaf_der"].write_bytes(self.leaf.cert.public_bytes(serialization.Encoding.DER))
        for name, enc in (("key", pem), ("key_der", serialization.Encoding.DER)):
            write_private(files[name], self.leaf.key.private_bytes(
                enc, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
        return files



def make_chain(key_type: str, kind: str = "full", role: str = "server",
               now: datetime.datetime | None = None, src: Source | None = None) -> Chain:
    """A chain of fresh keys, or of keys derived from a seeded source (the
    labels name the key type and role, so a seeded root's key is the same in
    both chain kinds: deriving RSA keys is the slow part)."""
    if kind not in CHAIN_KINDS:
        raise PlanError(f"unknown chain kind {kind!r}; known: {', '.join(CHAIN_KINDS)}")
    if role not in ROLES:
        raise PlanError(f"unknown role {role!r}; known: {', '.join(ROLES)}")
    src = src or Source()
    validity = _validity(src, now)
    label = key_type.upper()
    at = f"tls/{key_type}-{role}"  # a leaf-only chain reuses the full chain's root and leaf keys
    root = _issue(_name(f"tlsbench Test Root CA {label}", "Root CA"), _key(key_type, src, f"{at}/root"), None,
                  key_type, ca=True, path_length=1, role=None, validity=validity, serial=_serial(src, f"{at}/root"))
    issuer, inter = root, None
    if kind == "full":
        inter = _issue(_name(f"tlsbench Test Issuing CA {label}", "Issuing CA"), _key(key_type, src, f"{at}/ca"),
                       root, key_type, ca=True, path_length=0, role=None, validity=validity,
                       serial=_serial(src, f"{at}/ca"))
        issuer = inter
    leaf = _issue(_name(HOSTS[role], f"{role.capitalize()}s"), _key(key_type, src, f"{at}/leaf"), issuer, key_type,
                  ca=False, path_length=None, role=role, validity=validity, serial=_serial(src, f"{at}/leaf"))
    return Chain(key_type, kind, role, root, inter, leaf)


def client_chain_for(server: Chain, now: datetime.datetime | None = None, src: Source | None = None) -> Chain:
    """A client certificate under the same root (and issuing CA) as a server
    chain, for mutual authentication: one trust anchor serves both sides."""
    src = src or Source()
    issuer = server.intermediate or server.root
    kt = server.key_type
    at = f"tls/{kt}-client-of-{server.role}"
    leaf = _issue(_name(HOSTS["client"], "Clients"), _key(kt, src, f"{at}/leaf"), issuer, kt, ca=False,
                  path_length=None, role="client", validity=_validity(src, now), serial=_serial(src, f"{at}/leaf"))
    return Chain(kt, server.kind, "client", server.root, server.intermediate, leaf)
