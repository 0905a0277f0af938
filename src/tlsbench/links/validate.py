"""The model against real handshakes: host agents over loopback TCP through a
LinkRelay. For each measured connection, the measured time from the relay's
accept to the delivery of the last handshake byte, beside the model's
prediction from that connection's own compute (client + server CPU time),
bytes and flights. The relay does not delay the TCP handshake, so the model
is asked without it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tlsbench.errors import AgentError
from tlsbench.families.tls.cases import TlsCase
from tlsbench.families.tls.net import run_over_tcp
from tlsbench.links import model
from tlsbench.links.profiles import LinkProfile
from tlsbench.links.relay import LinkRelay


@dataclass(frozen=True)
class Check:
    measured_ns: int
    predicted: model.Breakdown

    @property
    def error(self) -> float:
        """(measured - predicted) / measured."""
        return (self.measured_ns - float(self.predicted.total_ns)) / self.measured_ns


def through_link(client: Path, server: Path, case: TlsCase, profile: LinkProfile, repeats: int = 3,
                 warmup: int = 1, timeout: float = 120) -> list[Check]:
    relays: list[LinkRelay] = []

    def via(port: int) -> int:
        relays.append(LinkRelay(port, profile))
        return relays[0].port

    try:
        r = run_over_tcp(client, server, case, repeats=repeats, warmup=warmup, timeout=timeout, via_port=via)
    finally:
        for relay in relays:
            relay.close()
    if r.status != "ok":
        raise AgentError(f"handshake through the link relay failed: {r.message}")
    timelines = relays[0].timelines
    checks = []
    for c, s in r.pairs():
        if s is None:
            raise AgentError(f"no server record for connection {c['i']}")
        tl = timelines[int(c["i"])]
        c2s, s2c = int(c["sent_bytes"]), int(c["recv_bytes"])
        ends = (tl.reached("c2s", c2s), tl.reached("s2c", s2c))
        if None in ends:
            raise AgentError(f"the relay did not deliver the handshake bytes of connection {c['i']}")
        measured = max(e for e in ends if e is not None) - tl.accepted_ns
        compute = model.Compute(model.exact(int(c["cpu_ns"])), model.exact(int(s["cpu_ns"])),
                                "host CPU time of this connection")
        predicted = model.time_to_first_byte(profile, compute, int(c["flights"]), c2s, s2c, tcp_handshake=False)
        checks.append(Check(measured, predicted))
    return checks
