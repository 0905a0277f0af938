"""Time to the first application byte over a link, and radio energy: a model.

    total = compute (client + server, in sequence on the handshake's path)
          + flights x one-way latency
          + serialisation of each direction's bytes at that direction's bandwidth,
            with per-packet headers and per-frame overhead and time
          + [TCP links] one round trip for the TCP handshake (SYN, SYN-ACK)
          + [TCP links] one round trip per extra initial window a direction needs

"First application byte": when the last handshake flight arrives, its
receiver can take application data (TLS 1.3: the client's request travels
with its Finished; TLS 1.2: the server's data with its Finished).

Only totals per direction are stored (bytes, flights), not each flight's
size, so packets and frames are counted with one rule: each boundary (between
flights, between packets) may leave one partly filled unit, and it is counted.
That is an upper bound, off by at most one unit per boundary.

All arithmetic is exact (Fraction); nothing here measures anything."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from tlsbench.errors import TlsbenchError
from tlsbench.links.profiles import LinkProfile

NS_PER_MS = 1_000_000
NS_PER_US = 1_000


class NotTime(TlsbenchError):
    """The stored run has counts, not times (e.g. firmware instructions)."""


def exact(x: float | int) -> Fraction:
    """A decimal figure as written (0.01 is 1/100, not the nearest binary float)."""
    return Fraction(str(x))


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def flights_by_direction(flights: int) -> tuple[int, int]:
    """(client -> server, server -> client): the client starts and the sides alternate."""
    return (flights + 1) // 2, flights // 2


@dataclass(frozen=True)
class Direction:
    payload_bytes: int
    flights: int
    packets: int
    frames: int
    wire_bytes: int  # payload + packet headers + frame overhead: what the link carries
    serialisation_ns: Fraction


def direction(profile: LinkProfile, payload: int, flights: int, kbit_s: float) -> Direction:
    """One direction's packets, frames, bytes on the link and time to send them."""
    if payload == 0 or flights == 0:
        return Direction(payload, flights, 0, 0, 0, Fraction(0))
    packets = _ceil_div(payload, profile.max_payload) + flights - 1
    packet_bytes = payload + packets * profile.packet_header_bytes
    if profile.frame_payload_bytes:
        frames = _ceil_div(packet_bytes, profile.frame_payload_bytes) + packets - 1
    else:
        frames = packets
    wire = packet_bytes + frames * profile.frame_overhead_bytes
    return Direction(payload, flights, packets, frames, wire, _send_ns(profile, wire, frames, kbit_s))


def _send_ns(profile: LinkProfile, wire_bytes: int, frames: int, kbit_s: float) -> Fraction:
    bits_per_ns = exact(kbit_s) * 1000 / 1_000_000_000
    return wire_bytes * 8 / bits_per_ns + frames * exact(profile.frame_time_us) * NS_PER_US


@dataclass(frozen=True)
class Compute:
    """Per-side compute time of one handshake and what it is."""

    client_ns: Fraction
    server_ns: Fraction | None  # None: the server runs on a host elsewhere, its compute not charged
    what: str  # e.g. "host CPU time (measured)" or "firmware model time (cycle model)"


@dataclass(frozen=True)
class Breakdown:
    link: str
    compute: Compute
    latency_ns: Fraction
    c2s: Direction
    s2c: Direction
    tcp_handshake_ns: Fraction  # 0 when the link has no TCP or it is left out
    window_wait_ns: Fraction  # extra round trips when a direction needs more than the initial window

    @property
    def serialisation_ns(self) -> Fraction:
        return self.c2s.serialisation_ns + self.s2c.serialisation_ns

    @property
    def compute_ns(self) -> Fraction:
        return self.compute.client_ns + (self.compute.server_ns or Fraction(0))

    @property
    def total_ns(self) -> Fraction:
        return (self.compute_ns + self.latency_ns + self.serialisation_ns + self.tcp_handshake_ns
                + self.window_wait_ns)


def time_to_first_byte(profile: LinkProfile, compute: Compute, flights: int, c2s_bytes: int, s2c_bytes: int,
                       tcp_handshake: bool | None = None) -> Breakdown:
    """The model for one handshake. tcp_handshake None: as the link says (on for TCP links)."""
    if flights < 1:
        raise ValueError(f"a handshake has at least one flight, got {flights}")
    one_way = exact(profile.one_way_latency_ms) * NS_PER_MS
    f_up, f_down = flights_by_direction(flights)
    up = direction(profile, c2s_bytes, f_up, profile.up_kbit_s)
    down = direction(profile, s2c_bytes, f_down, profile.down_kbit_s)
    with_tcp = profile.tcp if tcp_handshake is None else tcp_handshake and profile.tcp
    tcp_ns = Fraction(0)
    if with_tcp:  # SYN and SYN-ACK: header-only packets, one frame each; the ACK rides with the ClientHello
        h = profile.packet_header_bytes + profile.frame_overhead_bytes
        tcp_ns = (2 * one_way + _send_ns(profile, h, 1, profile.up_kbit_s)
                  + _send_ns(profile, h, 1, profile.down_kbit_s))
    wait = Fraction(0)
    if profile.tcp:  # no growth beyond the initial window: each further window waits a round trip
        iw = profile.initial_window_segments
        extra = sum(max(0, _ceil_div(d.packets, iw) - 1) for d in (up, down))
        wait = extra * 2 * one_way
    return Breakdown(profile.name, compute, flights * one_way, up, down, tcp_ns, wait)


# ---- compute per side, from a stored case's results ----

def compute_from_results(results: dict[str, float]) -> Compute:
    """Per-side compute of a stored TLS case (metric -> median). Firmware
    instructions are not time: they are refused, never converted."""
    if "client_model_time_ns" in results and "server_model_time_ns" in results:
        return Compute(exact(results["client_model_time_ns"]), exact(results["server_model_time_ns"]),
                       "firmware time per side (cycle model)")
    if "client_cpu_ns" in results and "server_cpu_ns" in results:
        return Compute(exact(results["client_cpu_ns"]), exact(results["server_cpu_ns"]),
                       "host CPU time per side (measured, median)")
    if "client_instructions" in results:
        raise NotTime("this run has instruction counts, not time: an instruction takes a different number of "
                      "cycles by kind, memory wait states and pipeline, and QEMU models no timing; run it with a "
                      "board's cycle model (client_model_time_ns) to get time")
    raise NotTime("this case has no compute time per side (client_cpu_ns/server_cpu_ns or "
                  "client_model_time_ns/server_model_time_ns)")


def client_compute(results: dict[str, float]) -> Compute:
    """The client's compute alone, its server on a host elsewhere (a device
    client against a cloud server): the server's compute is not charged."""
    host = "the server on a host elsewhere, its compute not charged"
    if "client_model_time_ns" in results:
        return Compute(exact(results["client_model_time_ns"]), None, f"client model time (cycle model); {host}")
    if "client_cpu_ns" in results:
        return Compute(exact(results["client_cpu_ns"]), None, f"client CPU time (measured, median); {host}")
    if "client_instructions" in results:
        raise NotTime("this run has the client's instruction counts, not time: run it with a board's cycle model"
                      " (--board) to get client_model_time_ns")
    raise NotTime("this case has no client compute time (client_cpu_ns or client_model_time_ns)")


# ---- energy ----

@dataclass(frozen=True)
class Energy:
    side: str
    compute_nj: Fraction | None  # None: no cycles or no energy per cycle given
    radio_nj: Fraction | None  # None: the link profile has no radio energy
    sources: tuple[str, ...]

    @property
    def total_nj(self) -> Fraction | None:
        if self.compute_nj is None or self.radio_nj is None:
            return None
        return self.compute_nj + self.radio_nj


def side_energy(profile: LinkProfile, b: Breakdown, side: str, cycles: float | None = None,
                nj_per_cycle: float | None = None, board_source: str = "") -> Energy:
    """One side's energy (model): compute = cycles x energy per cycle (from a
    board profile), radio = wire bytes sent x nJ/B(tx) + received x nJ/B(rx)."""
    if side not in ("client", "server"):
        raise ValueError(f"side is client or server, got {side!r}")
    sent, received = (b.c2s, b.s2c) if side == "client" else (b.s2c, b.c2s)
    radio = None
    sources: list[str] = []
    if profile.tx_nj_per_byte is not None and profile.rx_nj_per_byte is not None:
        radio = (sent.wire_bytes * exact(profile.tx_nj_per_byte)
                 + received.wire_bytes * exact(profile.rx_nj_per_byte))
        sources.append(profile.energy_source)
    compute = None
    if cycles is not None and nj_per_cycle is not None:
        compute = exact(cycles) * exact(nj_per_cycle)
        if board_source:
            sources.append(board_source)
    return Energy(side, compute, radio, tuple(sources))
