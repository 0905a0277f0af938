"""`tlsbench list suites`: which library completes a handshake with which
suite, from one real handshake per pair. The answers are kept per agent or
firmware image (by its SHA-256, with the suite list they answer): asking an
image again reads them back, and a rebuilt image is asked again."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path

from tlsbench import paths
from tlsbench.engine import agent
from tlsbench.engine.agent import AgentCallError
from tlsbench.errors import TlsbenchError
from tlsbench.families.primitive.catalog import LIBRARIES
from tlsbench.families.tls import catalog as tls_catalog
from tlsbench.families.tls import certs
from tlsbench.families.tls.cases import TlsCase, handshake_request, run_handshakes
from tlsbench.families.tls.names import TlsVariant
from tlsbench.families.tls.runner import tls_case
from tlsbench.targets.libraries import probe

PER_SUITE_TIMEOUT_S = 60


def _cache_file(image_sha256: str) -> Path:
    """Where one image's answers are kept: named by the image and by what was
    asked (each suite with the group and credential it is tried with)."""
    asked = [(s, tls_catalog.groups_for(s)[0], tls_catalog.certs_for(s)[0]) for s in tls_catalog.SUITES]
    key = hashlib.sha256(json.dumps([image_sha256, asked]).encode()).hexdigest()[:32]
    return paths.data_dir() / "suite-support" / f"{key}.json"


# one chain per key type and one PSK, made once per process and shared by every library asked
_KEYS: dict = {}
_CASES: dict[str, TlsCase] = {}  # suite -> the handshake it is asked with
ANSWER = {"ok": "yes", "unsupported": "unsupported"}


def _answer(status: str, message: str) -> str:
    return ANSWER.get(status, f"fails: {message[:40]}")


def _ask(path: Path) -> dict[str, str]:
    """Every suite in one agent process (one start, which on firmware is one
    emulator boot, instead of one per suite); the suites after a crash or a
    hang are asked again one by one, so one bad suite cannot spoil the rest."""
    if not _CASES:  # the same for every library: made once (loading the keys was most of a library's time)
        for suite in tls_catalog.SUITES:
            cred = tls_catalog.certs_for(suite)[0]
            variant = TlsVariant(tls_catalog.groups_for(suite)[0], cred,
                                 "full" if cred in certs.KEY_TYPES else "none")
            _CASES[suite] = tls_case(suite, variant, _KEYS, 0)
    cases = _CASES
    requests = [handshake_request(c, repeats=1, warmup=0) for c in cases.values()]
    try:
        responses = agent.call(path, requests, PER_SUITE_TIMEOUT_S * len(requests), "list suites").responses
    except AgentCallError as e:
        responses = e.partial.responses or []
    out = {suite: _answer(r.status, r.message) for suite, r in zip(cases, responses, strict=False)}
    for suite in list(cases)[len(out):]:
        try:
            r = run_handshakes(path, cases[suite], repeats=1, warmup=0, timeout=PER_SUITE_TIMEOUT_S)
            out[suite] = _answer(r.status, r.message)
        except AgentCallError as e:  # this suite crashed or hung the agent: its answer, not the whole list's end
            out[suite] = _answer("error", str(e).split(": ", 1)[-1])  # without the "handshake SUITE" it names
    return out


def suite_answers(path: Path, image_sha256: str | None = None,
                  log: Callable[[str], None] = lambda _m: None) -> dict[str, str]:
    """suite -> yes / unsupported / fails: ..., for the agent at ``path``;
    with ``image_sha256`` (the agent's or firmware's), kept and read back.
    ``log`` hears of every agent actually asked (the slow part)."""
    if image_sha256 is None:
        log(f"asking {path.name}: one handshake per suite ({len(tls_catalog.SUITES)}), not kept (no image hash)")
        return _ask(path)
    cache = _cache_file(image_sha256)
    try:
        return json.loads(cache.read_text())
    except (OSError, ValueError):
        pass
    log(f"asking {path.name}: one handshake per suite ({len(tls_catalog.SUITES)}); the answers are kept for this"
        f" build in {cache.parent}")
    answers = _ask(path)
    if not any(v.startswith("fails") for v in answers.values()):  # a failure may be passing trouble: ask again
        cache.parent.mkdir(parents=True, exist_ok=True)
        cache.write_text(json.dumps(answers, indent=1))
    return answers


def support_matrix(agents: dict[str, Path] | None = None,
                   libraries: list[str] | None = None,
                   images: dict[str, str] | None = None,
                   log: Callable[[str], None] = lambda _m: None) -> tuple[list[str], list[list[str]]]:
    """`tlsbench list suites`: each library's answer for each suite, from one
    real handshake per pair (with the suite's first group and credential).
    agents: library -> the agent to ask (default: the host's, probed here);
    a library of ``libraries`` without one is "not built"; images: library ->
    its image's SHA-256, whose answers are kept (_cache_file)."""
    libraries = libraries or list(LIBRARIES)
    images = dict(images or {})
    cols: dict[str, dict[str, str]] = {}
    for lib in libraries:
        cols[lib] = {}
        if agents is not None:
            if lib not in agents:
                continue
            path = agents[lib]
        else:
            try:
                info = probe(lib, timeout=20)
            except TlsbenchError:
                continue
            path, images[lib] = info.path, info.agent_sha256
        cols[lib] = suite_answers(path, images.get(lib), log)
    header = ["suite", "version", "tested with", *libraries]
    body = []
    for suite in tls_catalog.SUITES:
        group = tls_catalog.groups_for(suite)[0]
        row = [suite, "1.3" if tls_catalog.version_of(suite) == 13 else "1.2",
               f"{group or tls_catalog.no_group_label(suite)}, {tls_catalog.certs_for(suite)[0]}"]
        body.append(row + [cols[lib].get(suite, "not built") for lib in libraries])
    return header, body
