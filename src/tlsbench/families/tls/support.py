"""`tlsbench list suites`: which library does which suite, asked in one of
two ways: a real handshake per pair ("yes": it completed), or, faster, each
side's set-up alone ("accepted": the build's library configured both
endpoints with the suite, its group and its credential, and no handshake was
run). An emulated handshake costs seconds, a set-up a fraction of that, so
firmware is asked the second way unless a check is asked for. The answers
are kept per agent or firmware image (by its SHA-256, with the suite list
they answer and the way they were asked): asking an image again reads them
back, and a rebuilt image is asked again."""

from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path

from tlsbench import paths
from tlsbench.engine import agent
from tlsbench.engine.agent import AgentCallError
from tlsbench.engine.protocol import encode_request
from tlsbench.errors import TlsbenchError
from tlsbench.families.primitive.catalog import LIBRARIES
from tlsbench.families.tls import catalog as tls_catalog
from tlsbench.families.tls import certs
from tlsbench.families.tls.cases import TlsCase, case_fields, handshake_request
from tlsbench.families.tls.names import TlsVariant
from tlsbench.families.tls.runner import tls_case
from tlsbench.targets.libraries import probe

logger = logging.getLogger(__name__)

PER_SUITE_TIMEOUT_S = 60


def _cache_file(image_sha256: str, check: bool = True) -> Path:
    """Where one image's answers are kept: named by the image and by what was
    asked (each suite with the group and credential it is tried with, and
    whether by handshake or by set-up)."""
    asked = [(s, tls_catalog.groups_for(s)[0], tls_catalog.certs_for(s)[0]) for s in tls_catalog.SUITES]
    key = hashlib.sha256(json.dumps([image_sha256, asked, *([] if check else ["setup"])]).encode()).hexdigest()[:32]
    return paths.data_dir() / "suite-support" / f"{key}.json"


# one chain per key type and one PSK, made once per process and shared by every library asked
_KEYS: dict = {}
_CASES: dict[str, TlsCase] = {}  # suite -> the handshake it is asked with
ANSWER = {"ok": "yes", "unsupported": "unsupported"}
SETUP_ANSWER = {"ok": "accepted", "unsupported": "unsupported"}
LEGEND = {
    "yes": "a handshake completed with the suite's first group and credential",
    "accepted": "both endpoints were set up with the suite, its first group and credential; no handshake was run"
                " (tlsbench list suites --check runs one)",
}


def _answer(status: str, message: str, check: bool = True) -> str:
    return (ANSWER if check else SETUP_ANSWER).get(status, f"fails: {message[:40]}")


def _request(case: TlsCase, check: bool) -> str:
    if check:
        return handshake_request(case, repeats=1, warmup=0)
    return encode_request("handshake", **case_fields(case), repeats=0, warmup=0, setup=1)


def _cases() -> dict[str, TlsCase]:
    if not _CASES:  # the same for every library: made once (loading the keys was most of a library's time)
        for suite in tls_catalog.SUITES:
            cred = tls_catalog.certs_for(suite)[0]
            variant = TlsVariant(tls_catalog.groups_for(suite)[0], cred,
                                 "full" if cred in certs.KEY_TYPES else "none")
            _CASES[suite] = tls_case(suite, variant, _KEYS, 0)
    return _CASES


def _ask(path: Path, check: bool = True) -> dict[str, str]:
    """Every suite in one agent process (one start, which on firmware is one
    emulator boot, instead of one per suite); the suites after a crash or a
    hang are asked again one by one, so one bad suite cannot spoil the rest.
    check False: each suite's set-up only."""
    cases = _cases()
    requests = [_request(c, check) for c in cases.values()]
    try:
        responses = agent.call(path, requests, PER_SUITE_TIMEOUT_S * len(requests), "list suites").responses
    except AgentCallError as e:
        responses = e.partial.responses or []
    out = {suite: _answer(r.status, r.message, check) for suite, r in zip(cases, responses, strict=False)}
    for suite in list(cases)[len(out):]:
        try:
            res = agent.call(path, [_request(cases[suite], check)], PER_SUITE_TIMEOUT_S, f"list suites {suite}")
            r = res.responses[0]
            out[suite] = _answer(r.status, r.message, check)
        except AgentCallError as e:  # this suite crashed or hung the agent: its answer, not the whole list's end
            out[suite] = _answer("error", str(e).split(": ", 1)[-1], check)  # without the name it gives
    return out


def _asked(path: Path, check: bool) -> tuple[dict[str, str], bool]:
    """The answers, and whether they are by handshake: an agent built before
    set-up requests existed refuses them, and is asked by handshake."""
    answers = _ask(path, check)
    if check or not any(v.startswith("fails: unknown field setup") for v in answers.values()):
        return answers, check
    logger.info(f"{path.name} predates set-up requests: asking it by handshake")
    return _ask(path, True), True


def suite_answers(path: Path, image_sha256: str | None = None, check: bool = True) -> dict[str, str]:
    """suite -> yes (accepted) / unsupported / fails: ..., for the agent at
    ``path``, by handshake (check) or by set-up; with ``image_sha256`` (the
    agent's or firmware's), kept and read back: a set-up question is
    answered from kept handshake answers when there are some. Every agent
    actually asked (the slow part) is logged."""
    how = "one handshake" if check else "each side's set-up"
    if image_sha256 is None:
        logger.info(f"asking {path.name}: {how} per suite ({len(tls_catalog.SUITES)}), not kept (no image hash)")
        return _asked(path, check)[0]
    for kept in dict.fromkeys([_cache_file(image_sha256), _cache_file(image_sha256, check)]):
        try:  # handshake answers first: they say more
            return json.loads(kept.read_text())
        except (OSError, ValueError):
            pass
    logger.info(f"asking {path.name}: {how} per suite ({len(tls_catalog.SUITES)}); the answers are kept for this"
                f" build in {paths.data_dir() / 'suite-support'}")
    answers, check = _asked(path, check)
    cache = _cache_file(image_sha256, check)
    if not any(v.startswith("fails") for v in answers.values()):  # a failure may be passing trouble: ask again
        cache.parent.mkdir(parents=True, exist_ok=True)
        cache.write_text(json.dumps(answers, indent=1))
    return answers


def support_matrix(agents: dict[str, Path] | None = None,
                   libraries: list[str] | None = None,
                   images: dict[str, str] | None = None,
                   check: bool = True) -> tuple[list[str], list[list[str]]]:
    """`tlsbench list suites`: each library's answer for each suite, from one
    real handshake per pair (with the suite's first group and credential),
    or with check False from each side's set-up alone.
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
        cols[lib] = suite_answers(path, images.get(lib), check)
    header = ["suite", "version", "tested with", *libraries]
    body = []
    for suite in tls_catalog.SUITES:
        group = tls_catalog.groups_for(suite)[0]
        row = [suite, "1.3" if tls_catalog.version_of(suite) == 13 else "1.2",
               f"{group or tls_catalog.no_group_label(suite)}, {tls_catalog.certs_for(suite)[0]}"]
        body.append(row + [cols[lib].get(suite, "not built") for lib in libraries])
    return header, body
