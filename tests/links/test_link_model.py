"""The link model on hand-computed examples (exact arithmetic), the refusal
to turn instructions into time, radio energy, and the profile loader's
errors (file:line and what is allowed)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from tlsbench.errors import PlanError
from tlsbench.links import model
from tlsbench.links.profiles import LinkProfile, all_profiles, get_profile, load_profile, parse_profile

TCP_LINK = LinkProfile("t", "test", one_way_latency_ms=10, up_kbit_s=1000, down_kbit_s=500, mtu_bytes=1000,
                       packet_header_bytes=40, tcp=True, sources=("hand-made",))
FRAMED = LinkProfile("f", "test", one_way_latency_ms=5, up_kbit_s=250, down_kbit_s=250, mtu_bytes=500,
                     packet_header_bytes=20, tcp=False, sources=("hand-made",), frame_payload_bytes=100,
                     frame_overhead_bytes=10, frame_time_us=50, tx_nj_per_byte=100, rx_nj_per_byte=50,
                     energy_source="hand-made")
COMPUTE = model.Compute(Fraction(1_000_000), Fraction(2_000_000), "test")


def test_tls13_over_tcp_by_hand() -> None:
    b = model.time_to_first_byte(TCP_LINK, COMPUTE, flights=3, c2s_bytes=300, s2c_bytes=2000)
    # client: 2 flights, 300 B -> ceil(300/960) + 1 = 2 packets, 300 + 2 x 40 = 380 B at 1 bit/us = 3040 us
    assert (b.c2s.flights, b.c2s.packets, b.c2s.wire_bytes) == (2, 2, 380)
    assert b.c2s.serialisation_ns == 3_040_000
    # server: 1 flight, 2000 B -> 3 packets, 2120 B at 0.5 bit/us = 33920 us
    assert (b.s2c.flights, b.s2c.packets, b.s2c.wire_bytes) == (1, 3, 2120)
    assert b.s2c.serialisation_ns == 33_920_000
    assert b.latency_ns == 30_000_000  # 3 flights x 10 ms
    assert b.tcp_handshake_ns == 20_000_000 + 320_000 + 640_000  # 1 RTT + SYN (40 B up) + SYN-ACK (40 B down)
    assert b.window_wait_ns == 0
    assert b.total_ns == 90_920_000
    no_tcp = model.time_to_first_byte(TCP_LINK, COMPUTE, flights=3, c2s_bytes=300, s2c_bytes=2000,
                                      tcp_handshake=False)
    assert no_tcp.total_ns == 90_920_000 - 20_960_000


def test_tls12_fragmented_into_frames_by_hand() -> None:
    zero = model.Compute(Fraction(0), Fraction(0), "test")
    b = model.time_to_first_byte(FRAMED, zero, flights=4, c2s_bytes=500, s2c_bytes=1000)
    # client: 2 flights -> ceil(500/480) + 1 = 3 packets, 560 B -> ceil(560/100) + 2 = 8 frames, 640 B
    assert (b.c2s.packets, b.c2s.frames, b.c2s.wire_bytes) == (3, 8, 640)
    assert b.c2s.serialisation_ns == 20_480_000 + 8 * 50_000
    # server: 2 flights -> 4 packets, 1080 B -> 14 frames, 1220 B
    assert (b.s2c.packets, b.s2c.frames, b.s2c.wire_bytes) == (4, 14, 1220)
    assert b.s2c.serialisation_ns == 39_040_000 + 14 * 50_000
    assert b.tcp_handshake_ns == 0  # not a TCP link: no TCP handshake, no window
    assert b.total_ns == 20_000_000 + 20_880_000 + 39_740_000


def test_a_flight_beyond_the_initial_window_waits_round_trips() -> None:
    b = model.time_to_first_byte(TCP_LINK, COMPUTE, flights=3, c2s_bytes=300, s2c_bytes=20_000)
    assert b.s2c.packets == 21  # ceil(20000 / 960): three windows of 10
    assert b.window_wait_ns == 2 * 20_000_000


def test_radio_and_compute_energy_by_hand() -> None:
    zero = model.Compute(Fraction(0), Fraction(0), "test")
    b = model.time_to_first_byte(FRAMED, zero, flights=4, c2s_bytes=500, s2c_bytes=1000)
    client = model.side_energy(FRAMED, b, "client", cycles=1_000_000, nj_per_cycle=0.01, board_source="board")
    assert client.radio_nj == 640 * 100 + 1220 * 50
    assert client.compute_nj == 10_000
    assert client.total_nj == 135_000
    assert client.sources == ("hand-made", "board")
    server = model.side_energy(FRAMED, b, "server")
    assert server.radio_nj == 1220 * 100 + 640 * 50 and server.compute_nj is None and server.total_nj is None
    assert model.side_energy(TCP_LINK, b, "client").radio_nj is None  # no published nJ/B: none invented


def test_compute_comes_from_time_and_never_from_instructions() -> None:
    host = model.compute_from_results({"client_cpu_ns": 5.0, "server_cpu_ns": 7.0, "client_instructions": 9.0})
    assert (host.client_ns, host.server_ns) == (5, 7) and "host CPU" in host.what
    fw = model.compute_from_results({"client_model_time_ns": 50.0, "server_model_time_ns": 70.0,
                                     "client_instructions": 9.0, "server_instructions": 9.0})
    assert (fw.client_ns, fw.server_ns) == (50, 70) and "cycle model" in fw.what
    with pytest.raises(model.NotTime, match="instruction counts, not time"):
        model.compute_from_results({"client_instructions": 9.0, "server_instructions": 9.0})


def test_flights_alternate_from_the_client() -> None:
    assert [model.flights_by_direction(f) for f in (1, 2, 3, 4, 5)] == [(1, 0), (1, 1), (2, 1), (2, 2), (3, 2)]


def test_shipped_profiles_load_and_name_their_sources() -> None:
    links = all_profiles()
    assert {"ethernet-100m", "wifi-802.11n", "ble-4.2", "ble-5", "802.15.4-6lowpan", "lte-m", "nb-iot",
            "lora-class"} <= set(links)
    for p in links.values():
        assert p.sources and p.max_payload > 0
        assert (p.tx_nj_per_byte is None) == (p.rx_nj_per_byte is None) == (not p.energy_source)
    assert not links["lora-class"].tcp and links["ble-5"].frame_payload_bytes == 251


GOOD = """description = "x"
one_way_latency_ms = 1
up_kbit_s = 10
down_kbit_s = 10
mtu_bytes = 100
packet_header_bytes = 20
tcp = true
sources = ["a standard"]
"""


def test_bad_profiles_name_the_file_line_and_what_is_allowed(tmp_path) -> None:
    assert parse_profile(GOOD, "g.toml", "g").up_kbit_s == 10.0
    bad = [(GOOD.replace("up_kbit_s = 10", "up_kbit_s = 0"), r"^b.toml:3: up_kbit_s: must be >= 1e-09"),
           (GOOD + "mtu = 5\n", r"^b.toml:9: mtu: unknown key \(did you mean mtu_bytes\?\); allowed: name"),
           (GOOD.replace("tcp = true", "tcp = 1"), r"^b.toml:7: tcp: must be a bool"),
           (GOOD.replace('sources = ["a standard"]', ""), r"^b.toml: missing key sources \(the standards"),
           (GOOD + "tx_nj_per_byte = 5\n", r"^b.toml:9: tx_nj_per_byte: tx_nj_per_byte and rx_nj_per_byte go"),
           (GOOD.replace("= 20", "= 100"), r"^b.toml:6: packet_header_bytes: must be smaller than mtu_bytes")]
    for text, message in bad:
        with pytest.raises(PlanError, match=message):
            parse_profile(text, "b.toml", "b")
    path = tmp_path / "mine.toml"
    path.write_text(GOOD)
    assert load_profile(path).name == "mine" and get_profile(str(path)).name == "mine"
    with pytest.raises(PlanError, match=r"unknown link 'ble5'; did you mean ble-5"):
        get_profile("ble5")
