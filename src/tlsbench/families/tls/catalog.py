"""The TLS matrix: suites (by IANA name), groups, certificate key types,
handshake kinds, authentication, transports, and which combinations make
sense."""

from __future__ import annotations

from tlsbench.families.tls.certs import CHAIN_KINDS, KEY_TYPES

TLS13_SUITES = ("TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256",
                "TLS_AES_128_CCM_SHA256")
_TLS12_BODIES = ("AES_128_CBC_SHA", "AES_256_CBC_SHA", "AES_128_CBC_SHA256", "AES_128_GCM_SHA256",
                 "AES_256_GCM_SHA384", "CHACHA20_POLY1305_SHA256")
TLS12_SUITES = tuple(
    [f"TLS_ECDHE_ECDSA_WITH_{b}" for b in _TLS12_BODIES]
    + [f"TLS_ECDHE_RSA_WITH_{b}" for b in _TLS12_BODIES] + ["TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA384"]
    + [f"TLS_DHE_RSA_WITH_{b}" for b in ("AES_128_CBC_SHA", "AES_128_GCM_SHA256", "AES_256_GCM_SHA384",
                                          "CHACHA20_POLY1305_SHA256")]
    + [f"TLS_RSA_WITH_{b}" for b in ("AES_128_CBC_SHA", "AES_256_CBC_SHA", "AES_128_CBC_SHA256",
                                      "AES_256_CBC_SHA256", "AES_128_GCM_SHA256", "AES_256_GCM_SHA384")]
    # static ECDH (the certificate's key is the server's share), where a library still has it
    + ["TLS_ECDH_ECDSA_WITH_AES_128_CBC_SHA", "TLS_ECDH_ECDSA_WITH_AES_128_GCM_SHA256"]
    # pre-shared keys, no certificates
    + ["TLS_PSK_WITH_AES_128_CBC_SHA256", "TLS_PSK_WITH_AES_128_GCM_SHA256", "TLS_DHE_PSK_WITH_AES_128_GCM_SHA256",
       "TLS_ECDHE_PSK_WITH_AES_128_CBC_SHA256", "TLS_ECDHE_PSK_WITH_CHACHA20_POLY1305_SHA256"]
    # anonymous (obsolete, unauthenticated): what the key exchange alone costs
    + ["TLS_DH_anon_WITH_AES_128_CBC_SHA", "TLS_ECDH_anon_WITH_AES_128_CBC_SHA"]
)
SUITES = TLS13_SUITES + TLS12_SUITES
EC_GROUPS = ("x25519", "x448", "p256", "p384")
FF_GROUPS = ("ffdhe2048", "ffdhe3072")
# TLS 1.3 only: ML-KEM-768 hybrids (X25519 or P-256 with ML-KEM-768) and ML-KEM-768 alone
# (draft-ietf-tls-ecdhe-mlkem, draft-ietf-tls-mlkem); OpenSSL 3.5 and wolfSSL 5.9 have them
PQ_GROUPS = ("x25519mlkem768", "secp256r1mlkem768", "mlkem768")
GROUPS = EC_GROUPS + FF_GROUPS + PQ_GROUPS
# what proves the server's identity when it is not a certificate
PSK_CRED, ANON_CRED = "psk", "anon"

# handshake kinds: (versions they exist in)
HANDSHAKES = {
    "full": (12, 13),
    "resume-id": (12,),  # TLS 1.2 session ID (server cache)
    "resume-ticket": (12, 13),  # TLS 1.2 RFC 5077 ticket; TLS 1.3 ticket PSK with (EC)DHE
    "resume-psk-only": (13,),  # TLS 1.3 ticket PSK without (EC)DHE (psk_ke)
    "hrr": (13,),  # the client's first key share is for another group: HelloRetryRequest
    "0rtt": (13,),  # a resumed handshake carrying the request as early data
}
AUTHS = ("server", "mutual")
# the maximum fragment lengths a client can ask for (RFC 6066: 2^9..2^12 bytes)
MAX_FRAGMENTS = (512, 1024, 2048, 4096)
TRANSPORTS = ("memory", "tcp")
# peers nobody here wrote, started by tlsbench on 127.0.0.1 (gnutls-serv cannot
# be limited to loopback, so it is not one of them)
EXTERNAL_SERVERS = ("openssl-s_server",)
EXTERNAL_CLIENTS = ("openssl-s_client", "gnutls-cli")


def version_of(suite: str) -> int:
    return 13 if suite in TLS13_SUITES else 12


def is_psk(suite: str) -> bool:
    return "_PSK_" in suite


def is_anon(suite: str) -> bool:
    return "_anon_" in suite


def certs_for(suite: str) -> tuple[str, ...]:
    """Certificate key types a suite can authenticate with (or psk / anon)."""
    if suite in TLS13_SUITES:
        return KEY_TYPES
    if is_psk(suite):
        return (PSK_CRED,)
    if is_anon(suite):
        return (ANON_CRED,)
    if suite.startswith(("TLS_ECDHE_ECDSA_",)):
        return tuple(k for k in KEY_TYPES if k.startswith("ecdsa") or k == "ed25519")
    if suite.startswith("TLS_ECDH_ECDSA_"):
        return tuple(k for k in KEY_TYPES if k.startswith("ecdsa"))
    return tuple(k for k in KEY_TYPES if k.startswith("rsa"))


def groups_for(suite: str) -> tuple[str | None, ...]:
    """Key-exchange groups a suite uses; None: no group of its own (RSA
    transport, static ECDH with the certificate's curve, plain PSK)."""
    if suite in TLS13_SUITES:
        return GROUPS
    if suite.startswith(("TLS_ECDHE_", "TLS_ECDH_anon_")):
        return EC_GROUPS
    if suite.startswith(("TLS_DHE_", "TLS_DH_anon_")):
        return FF_GROUPS
    return (None,)


def no_group_label(suite: str) -> str:
    if suite.startswith("TLS_ECDH_ECDSA_"):
        return "cert-curve"
    return "psk-kx" if is_psk(suite) else "rsa-kx"


def handshake_fits(handshake: str, suite: str, group: str | None) -> bool:
    if version_of(suite) not in HANDSHAKES[handshake]:
        return False
    return not (handshake == "hrr" and group is None)


def hrr_first_share(group: str) -> str:
    """The wrong guess a HelloRetryRequest case makes."""
    return "p256" if group == "x25519" else "x25519"


__all__ = ["CHAIN_KINDS", "GROUPS", "KEY_TYPES", "SUITES", "certs_for", "groups_for", "version_of"]
