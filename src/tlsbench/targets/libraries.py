"""Asking each library's agent who it is and what it supports."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from tlsbench import paths, versions
from tlsbench.engine import agent
from tlsbench.errors import AgentError
from tlsbench.targets import sources


@dataclass
class LibraryInfo:
    name: str
    path: Path
    version: str
    config: str
    platform: str
    counters: list[str]
    counters_missing: dict[str, str]
    support: set[tuple[str, str, str]] = field(default_factory=set)
    source: str = ""
    agent_sha256: str = ""


def probe(name: str, timeout: float = 30.0, path: Path | None = None, firmware: Path | None = None) -> LibraryInfo:
    """Runs hello + list on the agent. Raises AgentError when it is not usable.
    ``firmware``: the image behind a firmware launcher (hashed instead of it)."""
    path = path or paths.agent_path(name)
    res = agent.call(path, ["hello", "list"], timeout, f"{name} agent probe")
    hello_resp, list_resp = res.responses
    if hello_resp.status != "ok" or list_resp.status != "ok":
        raise AgentError(f"{name} agent refused hello/list: {hello_resp.message or list_resp.message}")
    hello = hello_resp.of_type("hello")[0]
    if hello["library"] != versions.base(name):
        raise AgentError(f"agent {path} says it is {hello['library']!r}, expected {versions.base(name)!r}")
    missing = {str(r["counter"]): str(r["reason"]) for r in hello_resp.of_type("counter_missing")}
    support = {
        (str(r["kind"]), str(r["alg"]), str(r["op"])) for r in list_resp.of_type("alg") if r["supported"] == 1
    }
    return LibraryInfo(
        name=name,
        path=path,
        version=str(hello["version"]),
        config=str(hello["config"]),
        platform=str(hello["platform"]),
        counters=str(hello["counters"]).split(","),
        counters_missing=missing,
        support=support,
        source=sources.describe(name),
        agent_sha256=hashlib.sha256((firmware or path).read_bytes()).hexdigest(),
    )


def answer_of(info: LibraryInfo) -> dict[str, object]:
    """What the agent itself answered to the probe (kept to be reused: engine/result_cache.py)."""
    return {"version": info.version, "config": info.config, "platform": info.platform, "counters": info.counters,
            "counters_missing": info.counters_missing, "support": sorted(list(s) for s in info.support)}


def from_answer(name: str, path: Path, answer: dict, agent_sha256: str) -> LibraryInfo:
    """The LibraryInfo of a stored probe answer (answer_of) for the agent at ``path`` whose image has this
    SHA-256, as probe() would give it."""
    return LibraryInfo(
        name=name, path=path, version=str(answer["version"]), config=str(answer["config"]),
        platform=str(answer["platform"]), counters=[str(c) for c in answer["counters"]],
        counters_missing={str(k): str(v) for k, v in answer["counters_missing"].items()},
        support={(str(k), str(a), str(o)) for k, a, o in answer["support"]},
        source=sources.describe(name), agent_sha256=agent_sha256)
