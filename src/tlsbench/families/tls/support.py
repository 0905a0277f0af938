"""`tlsbench list suites`: which library completes a handshake with which
suite, from one real handshake per pair."""

from __future__ import annotations

from pathlib import Path

from tlsbench.errors import TlsbenchError
from tlsbench.families.primitive.catalog import LIBRARIES
from tlsbench.families.tls import catalog as tls_catalog
from tlsbench.families.tls import certs
from tlsbench.families.tls.cases import run_handshakes
from tlsbench.families.tls.names import TlsVariant
from tlsbench.families.tls.runner import tls_case
from tlsbench.targets.libraries import probe


def support_matrix(agents: dict[str, Path] | None = None,
                   libraries: list[str] | None = None) -> tuple[list[str], list[list[str]]]:
    """`tlsbench list suites`: each library's answer for each suite, from one
    real handshake per pair (with the suite's first group and credential).
    agents: library -> the agent to ask (default: the host's, probed here);
    a library of ``libraries`` without one is "not built"."""
    libraries = libraries or list(LIBRARIES)
    keys: dict = {}  # one chain per key type and one PSK, made once
    cols: dict[str, dict[str, str]] = {}
    for lib in libraries:
        cols[lib] = {}
        if agents is not None:
            if lib not in agents:
                continue
            path = agents[lib]
        else:
            try:
                path = probe(lib, timeout=20).path
            except TlsbenchError:
                continue
        for suite in tls_catalog.SUITES:
            cred = tls_catalog.certs_for(suite)[0]
            variant = TlsVariant(tls_catalog.groups_for(suite)[0], cred, "full" if cred in certs.KEY_TYPES else "none")
            r = run_handshakes(path, tls_case(suite, variant, keys, 0), repeats=1, warmup=0, timeout=60)
            cols[lib][suite] = {"ok": "yes", "unsupported": "unsupported"}.get(r.status, f"fails: {r.message[:40]}")
    header = ["suite", "version", "tested with", *libraries]
    body = []
    for suite in tls_catalog.SUITES:
        group = tls_catalog.groups_for(suite)[0]
        row = [suite, "1.3" if tls_catalog.version_of(suite) == 13 else "1.2",
               f"{group or tls_catalog.no_group_label(suite)}, {tls_catalog.certs_for(suite)[0]}"]
        body.append(row + [cols[lib].get(suite, "not built") for lib in libraries])
    return header, body
