"""What one operation does through the adapter interface (the agent's "calls" request).

Every library must do the same steps for the same case: the TLS 1.2 CBC+HMAC record is
composed once in the agent's core from each library's AES-CBC and HMAC primitives. The
agent counts the calls one run() makes through the adapter (and the bytes each primitive
is given) on an untimed pass of its own, so comparing libraries is comparing exact counts.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tlsbench.engine import agent
from tlsbench.engine.protocol import encode_request
from tlsbench.errors import AgentError


@dataclass(frozen=True)
class CallCounts:
    adapter_run: int   # the library's own run(): 1 for an operation it does whole, 0 for a composite
    cipher_run: int    # primitive calls of a composite, and the bytes they were given
    cipher_bytes: int
    mac_run: int
    mac_bytes: int
    total: int         # every call through the adapter interface in one run()


def count_calls(executable: Path, kind: str, alg: str, op: str, fields: dict[str, bytes],
                timeout: float = 30.0) -> CallCounts:
    """The counts of one run() of kind/alg/op with these inputs; AgentError when it did not run."""
    what = f"calls {kind}/{alg}/{op}"
    res = agent.call(executable, [encode_request("calls", kind=kind, alg=alg, op=op, **fields)], timeout, what)
    resp = res.responses[0]
    if resp.status != "ok":
        raise AgentError(f"{executable.name}: {what}: {resp.status}: {resp.message}")
    rec = resp.of_type("calls")[0]
    return CallCounts(**{name: int(rec[name]) for name in CallCounts.__dataclass_fields__})
