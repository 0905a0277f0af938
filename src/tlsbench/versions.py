"""Library versions: one library may be present in several versions.

A library version is named everywhere (plans, flags, the store, reports,
compare) by its identifier: the bare name ("openssl") for the library's
default version, "name@label" ("openssl@3.5") for any other; the default's
own "name@label" is accepted too and means the bare name. A run stores its
libraries by the identifiers of its day and each one's exact version string
(run_libraries): a run made before a default changed (its bare "openssl" was
OpenSSL 3.0) is read by that string (stored_name), and its reports show it.

Each version is built either from the system's development package or from
a source pinned in libraries.lock.toml (its section named here).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tlsbench.errors import PlanError


@dataclass(frozen=True)
class Version:
    library: str
    label: str
    # "system": the Debian development package; otherwise the libraries.lock.toml section
    lock: str
    note: str = ""
    # families of algorithms this version has that older ones lack (for "unsupported" reasons)
    features: tuple[str, ...] = ()
    # the release its agent reports (empty: the label), as far as it tells this version from the
    # others: "3.6.6" (3.6 alone would match 3.6.7 too); "3.0" matches the system's 3.0.x
    release: str = ""
    # built only when named (tlsbench build --libraries ...): its own build takes minutes, so the
    # default build (scripts/setup, CI) leaves it out
    on_request: bool = False
    # why it lacks the features others have, where that is not the release itself
    lacks_why: str = ""


# The default version of each library: the newest pinned release (GnuTLS stays
# the system's 3.7, docs/versions.md says why). One line of data each; exact
# counts, docs and tests are of these versions, and switching one is this one edit.
DEFAULTS = {"mbedtls": "3.6.7", "wolfssl": "5.9", "openssl": "3.5", "gnutls": "3.7", "bearssl": "0.6"}

# Every version tlsbench can build, per library (the default among them).
VERSIONS: dict[str, tuple[Version, ...]] = {
    "mbedtls": (
        Version("mbedtls", "3.6", "mbedtls", "Mbed TLS 3.6.6 LTS", release="3.6.6"),
        Version("mbedtls", "3.6.7", "mbedtls@3.6.7", "Mbed TLS 3.6.7 LTS"),
    ),
    "wolfssl": (
        Version("wolfssl", "5.7", "wolfssl", "wolfSSL 5.7.2"),
        Version("wolfssl", "5.9", "wolfssl@5.9", "wolfSSL 5.9.2: ML-KEM, ML-DSA, SLH-DSA", ("kem", "pqsig")),
    ),
    "openssl": (
        Version("openssl", "3.0", "system", "OpenSSL 3.0 (Debian 12 libssl-dev): the version of the system's openssl"
                                            " command (s_server, s_client, speed)"),
        Version("openssl", "3.5", "openssl@3.5", "OpenSSL 3.5.7: ML-KEM, ML-DSA, SLH-DSA", ("kem", "pqsig")),
    ),
    "gnutls": (
        Version("gnutls", "3.7", "system", "GnuTLS 3.7 (Debian 12 libgnutls28-dev)"),
        # GnuTLS 3.8's ML-KEM/ML-DSA are leancrypto's, which no Debian suite packages (docs/versions.md)
        Version("gnutls", "3.8", "gnutls@3.8",
                "GnuTLS 3.8.13 with nettle 3.10.1; ML-KEM: no (needs leancrypto, not packaged)", on_request=True,
                lacks_why="its ML-KEM and ML-DSA need leancrypto, which Debian does not package"),
    ),
    "bearssl": (Version("bearssl", "0.6", "bearssl", "BearSSL 0.6: no malloc; TLS 1.2 only; no SHA-3, PSS, Ed25519"),),
}


def identifier(v: Version) -> str:
    return v.library if DEFAULTS[v.library] == v.label else f"{v.library}@{v.label}"


def all_versions() -> list[Version]:
    return [v for versions in VERSIONS.values() for v in versions]


def identifiers() -> list[str]:
    """Every library identifier: the bare names first (catalog order), then the other versions."""
    bare = list(VERSIONS)
    return bare + [identifier(v) for v in all_versions() if identifier(v) not in bare]


def built_by_default() -> list[str]:
    """The identifiers a build that names none builds: all but those built on request."""
    return [i for i in identifiers() if not version_of(i).on_request]


def of_agent(executable: str) -> str:
    """The identifier whose agent has this file name ("" when none has)."""
    return next((i for i in identifiers() if agent_name(i) == executable), "")


def base(ident: str) -> str:
    """The library of an identifier ("openssl@3.5" -> "openssl")."""
    return ident.split("@", 1)[0]


def version_of(ident: str) -> Version:
    lib, _, label = ident.partition("@")
    label = label or DEFAULTS.get(lib, "")
    for v in VERSIONS.get(lib, ()):
        if v.label == label:
            return v
    raise PlanError(_unknown(ident))


def canonical(name: str) -> str:
    """The identifier a user's name selects: "openssl@3.0" -> "openssl" while
    3.0 is the default. Raises PlanError with one line listing what is allowed."""
    return identifier(version_of(name))


def problem(name: str) -> str:
    """Why name selects no library version ("" when it does)."""
    try:
        version_of(name)
    except PlanError as e:
        return str(e)
    return ""


def _unknown(name: str) -> str:
    lib = base(name)
    if lib in VERSIONS:
        labels = ", ".join(f"{lib}@{v.label}" + (" (default)" if v.label == DEFAULTS[lib] else "")
                           for v in VERSIONS[lib])
        return f"unknown version {name!r}; {lib} versions: {labels}"
    return f"unknown library {name!r}; allowed: {', '.join(identifiers())}"


def having(feature: str) -> list[str]:
    """The identifiers of the versions that have a feature (e.g. kind "kem")."""
    return [identifier(v) for v in all_versions() if feature in v.features]


def agent_name(ident: str) -> str:
    """The agent executable's name: tlsbench-agent-openssl, tlsbench-agent-openssl-3.5."""
    return "tlsbench-agent-" + ident.replace("@", "-")


def reports(v: Version, recorded: str) -> bool:
    """Whether a version string an agent reported ("OpenSSL 3.0.19 27 Jan 2026",
    "5.7.2") is of version v: its first dotted number is v's release or starts with it."""
    m = re.search(r"\d+\.\d+(?:\.\d+)?", recorded)
    release = v.release or v.label
    return m is not None and (m.group(0) == release or m.group(0).startswith(release + "."))


def stored_name(ident: str, recorded: dict[str, str]) -> str:
    """The name a stored run gave the version ``ident`` selects today. A run
    names its libraries by the identifiers of its day (a bare "openssl" meant
    OpenSSL 3.0 while 3.0 was the default) and records each one's version
    string (run_libraries): the string decides. recorded: name -> version
    string. "" when the run has no library of that version (its ``ident``
    reports another known version); else ident itself (e.g. a user's own tree)."""
    v = version_of(ident)
    same = [name for name, text in recorded.items() if base(name) == v.library and reports(v, text)]
    if len(same) == 1:
        return same[0]
    other = [w for w in VERSIONS[v.library] if w != v and reports(w, recorded.get(ident, ""))]
    return "" if other else ident


def system_identifier(library: str) -> str:
    """The identifier of a library's system version: what the system's own
    tools are (`openssl speed`, s_time, s_server), so a fidelity comparison
    sets like against like whichever version is the default."""
    return next(identifier(v) for v in VERSIONS[library] if v.lock == "system")
