"""Exact per-side handshake instruction counts without hardware counters:
the in-memory handshake under callgrind (valgrind), each side's count the
inclusive cost of the function its measured handshake calls go through
(agent/core/tls_call.c: tb_tls_handshake_client / _server), in the spirit
of rustls' ci-bench. The agent's generator is a fixed test stream and the
libraries' clock frozen, so two runs of the same build and key material
count the same to the instruction (OpenSSL's and GnuTLS's own generators
draw that stream too, and the agent starts its stack at a fixed place in
its page: agent/adapters/openssl, agent/adapters/gnutls,
agent/platform/host). Valgrind's CPU offers fewer
instruction-set extensions than the host's: libraries that dispatch on
CPUID run other code than in a timed run (docs/method.md)."""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from tlsbench.engine import agent
from tlsbench.errors import AgentError, SetupError
from tlsbench.families.primitive import keys
from tlsbench.families.tls.cases import TlsCase, handshake_request

# the agent's contract: a measured connection's handshake calls go through these
SIDE_FUNCTIONS = {"client": "tb_tls_handshake_client", "server": "tb_tls_handshake_server"}
_LINE = re.compile(r"^\s*([\d,]+)\s.*:(tb_tls_handshake_(?:client|server))\b")


@dataclass(frozen=True)
class Counts:
    handshakes: int  # measured connections counted (the warm-up and the passes are not)
    client: int  # instructions over all of them
    server: int


def tools() -> tuple[str, str]:
    valgrind, annotate = shutil.which("valgrind"), shutil.which("callgrind_annotate")
    if valgrind is None or annotate is None:
        raise SetupError("callgrind counts need valgrind (apt-get install valgrind)")
    return valgrind, annotate


def inclusive(annotated: str) -> dict[str, int]:
    """side -> its function's inclusive instructions, from callgrind_annotate --inclusive=yes."""
    found = {}
    for line in annotated.splitlines():
        m = _LINE.match(line)
        if m:
            side = "client" if m.group(2).endswith("client") else "server"
            found[side] = int(m.group(1).replace(",", ""))
    return found


def fixed_clock(case: TlsCase) -> int:
    """A second inside every certificate's validity (the latest start plus an
    hour): the same for the same material, so its checks count the same."""
    starts = [c.not_valid_before_utc for ch in (case.chain, case.client_chain) if ch is not None for c in ch.sent]
    return int(max(starts).timestamp()) + 3600 if starts else 1_700_000_000


def count(path: Path, case: TlsCase, handshakes: int, timeout: float, env: dict[str, str] | None = None) -> Counts:
    """`handshakes` measured connections after one warm-up, under callgrind."""
    valgrind, annotate = tools()
    settings = {"TLSBENCH_FIXED_SEED": "1", keys.HOST_CLOCK_ENV: str(fixed_clock(case)), **(env or {})}
    with tempfile.TemporaryDirectory(prefix="tlsbench-callgrind-") as tmp:
        out = Path(tmp) / "callgrind.out"
        wrapper = ("env", *(f"{k}={v}" for k, v in settings.items()), valgrind, "--tool=callgrind", "-q",
                   f"--callgrind-out-file={out}")
        # no stack pass (painted stacks are the timed run's business): less to simulate
        res = agent.call(path, [handshake_request(case, repeats=handshakes, warmup=1) + " stack=0"], timeout,
                         f"callgrind {case.suite}", wrapper=wrapper)
        resp = res.responses[0]
        if resp.status != "ok":
            raise AgentError(f"{path.name} under callgrind: {resp.status}: {resp.message}")
        text = subprocess.run([annotate, "--inclusive=yes", "--threshold=100", str(out)], capture_output=True,
                              text=True, timeout=timeout, check=True).stdout
    found = inclusive(text)
    if set(found) != set(SIDE_FUNCTIONS):
        missing = " or ".join(SIDE_FUNCTIONS[s] for s in SIDE_FUNCTIONS if s not in found)
        raise SetupError(f"callgrind found no {missing} in {path.name} (built before per-side counting:"
                         " tlsbench build)")
    return Counts(handshakes, found["client"], found["server"])


__all__ = ["Counts", "SIDE_FUNCTIONS", "count", "fixed_clock", "inclusive", "tools"]
