"""Library versions by identifier ("openssl", "openssl@3.5"): kept for the
callers that import it here; the records and the functions live in
tlsbench.libraries (record.py, registry.py, versions.py). No data of its own."""

from __future__ import annotations

from tlsbench.libraries.record import Version
from tlsbench.libraries.versions import (
    ALIASES,
    DEFAULTS,
    VERSIONS,
    agent_name,
    alias_syntax,
    all_versions,
    base,
    built_by_default,
    canonical,
    having,
    identifier,
    identifiers,
    is_alias,
    of_agent,
    problem,
    register_alias,
    reports,
    stored_name,
    system_identifier,
    version_of,
)

__all__ = [
    "ALIASES", "alias_syntax", "is_alias", "register_alias",
    "DEFAULTS", "VERSIONS", "Version", "agent_name", "all_versions", "base", "built_by_default", "canonical",
    "having", "identifier", "identifiers", "of_agent", "problem", "reports", "stored_name", "system_identifier",
    "version_of",
]
