"""Handshake fidelity against each library's own tool: the tools' output is
read right (text captured from them), the table renders what was measured,
the comparison alternates and keeps each side's best round, and one real
short run of openssl s_time against s_server gives a figure of the same
order as ours (a wide ratio bound inside one run, never a timing)."""

from __future__ import annotations

import shutil

import pytest

from tlsbench.engine import pacing, settling
from tlsbench.errors import SetupError
from tlsbench.families.tls.cases import TlsCase
from tlsbench.families.tls.certs import make_chain
from tlsbench.studies import fidelity_handshakes as fh

S_TIME_OUT = """Collecting connection statistics for 2 seconds
****************************************************************

472 connections in 0.22s; 2145.45 connections/user sec, bytes read 0
472 connections in 3 real seconds, 0 bytes read per connection
"""
# gnutls-cli 3.7.9 --benchmark-tls-kx, two of its configurations (its micro sign is U+00B5)
GNUTLS_OUT = """Testing key exchanges (RSA/DH bits: 3072, EC bits: 256)

(TLS1.3)-(ECDHE-SECP256R1)-(RSA-PSS-SHA256)-(AES-128-GCM)
 - 278.90 transactions/sec
 - avg. handshake time: 3.58 ms
 - standard deviation: 0.58 ms

(TLS1.3)-(ECDHE-X25519)-(ECDSA-SECP256R1-SHA256)-(AES-128-GCM)
 - 2741.62 transactions/sec
 - avg. handshake time: 361.57 \u00b5s
 - standard deviation: 39.63 \u00b5s

"""
TLS_BENCH_OUT = """Running TLS Benchmarks...
Side    Cipher                             Group                      Total Bytes  Num Conns      Rx ms      Tx ms\
    Rx MB/s    Tx MB/s   Connect Total ms   Connect Avg ms
Server  ECDHE-RSA-AES128-GCM-SHA256        N/A                              32032       1002      2.237     13.546\
      6.829      1.128           1989.207            1.985
Client  ECDHE-RSA-AES128-GCM-SHA256        N/A                              32032       1002     10.400      1.019\
      1.469     14.996           1987.362            1.983
"""


def test_the_tools_output_is_read_right() -> None:
    assert fh.parse_s_time(S_TIME_OUT) == (472, 0.22)
    kx = fh.parse_gnutls_kx(GNUTLS_OUT)
    assert kx == {"(TLS1.3)-(ECDHE-SECP256R1)-(RSA-PSS-SHA256)-(AES-128-GCM)": (278.90, 3.58e6),
                  fh.GNUTLS_KX_LINE: (2741.62, pytest.approx(361570.0))}
    assert fh.parse_tls_bench(TLS_BENCH_OUT) == {"server": (1002, pytest.approx(1.985e6)),
                                                 "client": (1002, pytest.approx(1.983e6))}


def test_output_without_the_figure_is_one_clear_error() -> None:
    with pytest.raises(SetupError, match=r"^openssl s_time printed no 'connections in") as e:
        fh.parse_s_time("Collecting connection statistics for 2 seconds\nERROR\n")
    assert "\n" not in str(e.value)
    assert fh.parse_gnutls_kx("Testing key exchanges\n") == {} and fh.parse_tls_bench("") == {}


ROWS = [
    fh.Row("openssl", "openssl s_time -new", "TLS 1.3 X25519", 500_000.0, 480_000.0, 620_000.0, "client CPU",
           "user CPU", "s_time also counts SSL_new"),
    fh.Row("mbedtls", "ssl_client2 / ssl_server2", "-", None, None, None, "", "", "no benchmark loop: not compared"),
]


def test_the_table_renders_what_was_measured() -> None:
    text = fh.render(ROWS, ((1.0, 2.0, 3.0), (1.5, 2.5, 3.5)))
    lines = text.splitlines()
    assert lines[0].split() == ["library", "tool", "tlsbench", "us", "tool", "CPU", "us", "ratio", "other", "us",
                                "config"]
    assert lines[1].split() == ["openssl", "openssl", "s_time", "-new", "500.0", "480.0", "1.042", "620.0", "TLS",
                                "1.3", "X25519"]
    assert lines[2].split()[:7] == ["mbedtls", "ssl_client2", "/", "ssl_server2", "-", "-", "-"]
    assert "- openssl, TLS 1.3 X25519: tlsbench: client CPU; tool: user CPU; s_time also counts SSL_new" in lines
    assert "- mbedtls: no benchmark loop: not compared" in lines
    assert lines[-1].startswith("load average (1, 5, 15 min) before: 1.00, 2.00, 3.00; after: 1.50, 2.50, 3.50;")
    assert ROWS[1].ratio is None and ROWS[0].ratio == pytest.approx(500 / 480)


def test_the_comparison_alternates_and_keeps_each_best_round(monkeypatch) -> None:
    calls: list[str] = []
    ours = iter([900.0, 700.0, 800.0])
    theirs = iter([fh.Measure(650.0, 1.0), fh.Measure(600.0, 2.0), fh.Measure(640.0, 3.0)])

    def tool() -> fh.Measure:
        calls.append("tool")
        return next(theirs)

    def tlsbench() -> float:
        calls.append("tlsbench")
        return next(ours)

    fake = fh.Comparison("wolfssl", "tls_bench", "cfg", "both sides", "rusage", "note", tlsbench, tool)
    monkeypatch.setattr(fh, "comparisons", lambda seconds, repeats: [fake])
    rows = fh.compare(rounds=3, libraries=("wolfssl", "mbedtls"), timed=lambda: 1000)  # a steady machine
    assert calls == ["tool", "tlsbench"] * 3
    assert (rows[0].ours_ns, rows[0].tool_cpu_ns, rows[0].tool_other_ns) == (700.0, 600.0, 2.0)
    assert [r.library for r in rows] == ["wolfssl", "mbedtls", "wolfssl"]
    assert rows[1].ratio is None and rows[2].ratio is None and "TLS 1.3" in rows[2].tool


def test_only_rounds_in_a_fast_phase_count(monkeypatch) -> None:
    """References (ns) in call order: each side's round waits for a fast one (the best so far / it >= 0.9)
    and is timed again after it. The tool's first round ends in a slow phase (1000, then 2000 after): it does
    not count, though its figure is the lowest; its second waits through two slow references (2000, 2000)
    for 1000. tlsbench's rounds are all steady. The sides alternate until each has two steady rounds: three
    rounds each, and the row says how many were steady."""
    monkeypatch.setattr(fh, "POLLS", 4)
    monkeypatch.setattr(settling, "STEADY_SPEED", pacing.SLOW_RATIO)  # as shipped (conftest turns it off)
    refs = iter([1000, 2000,  # tool, round 1: slow after it
                 1000, 1000,  # tlsbench, round 1
                 2000, 2000, 1000, 1000,  # tool, round 2: two slow, then fast; fast after
                 1000, 1000,  # tlsbench, round 2
                 1000, 1000, 1000, 1000])  # round 3
    theirs = iter([fh.Measure(500.0), fh.Measure(650.0), fh.Measure(640.0)])
    ours = iter([700.0, 710.0, 720.0])
    fake = fh.Comparison("wolfssl", "tls_bench", "cfg", "both sides", "rusage", "note", lambda: next(ours),
                         lambda: next(theirs))
    monkeypatch.setattr(fh, "comparisons", lambda seconds, repeats: [fake])
    row = fh.compare(rounds=2, libraries=("wolfssl",), timed=lambda: next(refs))[0]
    assert (row.tool_cpu_ns, row.ours_ns) == (640.0, 700.0)
    assert row.steady == "rounds with the machine fast before and after: tool 2 of 3, tlsbench 3 of 3"
    assert next(refs, None) is None  # every reference was asked for
    assert row.steady in fh.render([row])


def test_a_ratio_from_a_slow_machine_is_marked(monkeypatch) -> None:
    """The machine is slow after every round of the tool (2000 against the best 1000): after three rounds
    each (3 x rounds) the tool has no steady round, so its row's ratio is starred and the table says why;
    a row whose sides both had their steady rounds is not."""
    monkeypatch.setattr(fh, "POLLS", 4)
    monkeypatch.setattr(settling, "STEADY_SPEED", pacing.SLOW_RATIO)
    refs = iter([1000, 2000, 1000, 1000] * 3)  # tool: fast before, slow after; tlsbench: fast around
    fake = fh.Comparison("wolfssl", "tls_bench", "cfg", "both sides", "rusage", "note", lambda: 700.0,
                         lambda: fh.Measure(600.0))
    monkeypatch.setattr(fh, "comparisons", lambda seconds, repeats: [fake])
    row = fh.compare(rounds=1, libraries=("wolfssl",), timed=lambda: next(refs))[0]
    assert next(refs, None) is None
    assert row.unsteady and row.steady.startswith("rounds with the machine fast before and after: tool 0 of 3,")
    text = fh.render([row, ROWS[0]])
    lines = text.splitlines()
    assert lines[1].split()[4] == "1.167*"  # 700 / 600
    assert lines[2].split()[6] == "1.042"  # ROWS[0]: not marked
    assert lines[4].startswith("* a side had fewer steady rounds than asked for")
    assert "*" not in fh.render(ROWS).splitlines()[1] and "fewer steady rounds" not in fh.render(ROWS)


def test_a_tool_that_fails_in_every_round_is_a_row_saying_why(monkeypatch) -> None:
    def tool() -> fh.Measure:
        raise SetupError("tls_bench printed no client connections")

    fake = fh.Comparison("wolfssl", "tls_bench", "cfg", "both sides", "rusage", "note", lambda: 1.0, tool)
    monkeypatch.setattr(fh, "comparisons", lambda seconds, repeats: [fake])
    row = fh.compare(rounds=2, libraries=("wolfssl",), timed=lambda: 1000)[0]
    assert (row.ratio, row.note) == (None, "failed in every round: tls_bench printed no client connections")
    assert "- wolfssl: failed in every round: tls_bench printed no client connections" in fh.render([row])


def test_rows_without_an_honest_equivalent_say_why() -> None:
    rows = fh.compare(rounds=1, libraries=("mbedtls",))
    assert [(r.library, r.ratio) for r in rows] == [("mbedtls", None)]
    assert "reconnect=N" in rows[0].note and "resumes" in rows[0].note
    text = fh.render(rows)
    assert "not compared: Mbed TLS has no handshake benchmark" in text


def test_tls_bench_runs_pinned_to_one_cpu_and_its_user_time_is_matched(monkeypatch) -> None:
    seen: list[tuple[list[str], set[int] | None]] = []

    def counted(args: list[str], timeout: float, cpus: set[int] | None = None) -> tuple[str, fh.Cpu]:
        seen.append((args, cpus))
        return TLS_BENCH_OUT, fh.Cpu(0.9018, 0.1002, 13_527)

    monkeypatch.setattr(fh, "run_counted", counted)
    m = fh.tls_bench("/x/tls_bench", "ECDHE-RSA-AES128-GCM-SHA256", 2)
    assert seen == [(["/x/tls_bench", "-m", "-t", "2", "-l", "ECDHE-RSA-AES128-GCM-SHA256", "-p", "16", "-S", "16"],
                     fh.one_cpu())]
    # matched: user time per connection (900 us); other: user + system (1,000 us); the hand-offs in the note
    assert len(fh.one_cpu()) == 1 and m.count == 1002
    assert (m.cpu_ns, m.other_ns) == (pytest.approx(900_000), pytest.approx(1_000_000))
    assert "100.0 us of system time and 13.5 voluntary context switches per connection" in m.detail


def test_the_tools_best_round_says_what_else_it_spent(monkeypatch) -> None:
    monkeypatch.setattr(fh, "comparisons", lambda seconds, repeats: [fh.Comparison(
        "wolfssl", "tls_bench -m", "cfg", "ours", "tool", "base note", lambda: 700.0,
        lambda: fh.Measure(720.0, 780.0, 10, "60 us of system time"))])
    rows = fh.compare(rounds=1, libraries=("wolfssl",), timed=lambda: 1000)
    assert rows[0].note == "base note; 60 us of system time"


def test_a_pinned_tool_runs_on_that_cpu_only_and_its_cpu_is_counted() -> None:
    cpu = fh.one_cpu()
    out, used = fh.run_counted([shutil.which("grep") or "grep", "Cpus_allowed_list", "/proc/self/status"], 10, cpu)
    assert out.split()[-1] == str(next(iter(cpu)))
    assert used.user_s >= 0 and used.system_s >= 0 and used.total_s == used.user_s + used.system_s


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command")
@pytest.mark.alone  # compares timings
def test_a_short_real_run_of_s_time_and_ours(agents) -> None:
    case = TlsCase(13, fh.T13, "x25519", make_chain("ecdsa-p256", "leaf"))
    tool = fh.s_time(case, 1)
    ours = fh.ours_tcp_client(case, 20)
    assert tool.count > 0 and tool.cpu_ns > 0 and tool.other_ns is not None and tool.other_ns > 0
    # ours is the client's CPU less its socket calls' share: both parts are reported, the share inside the whole
    r = fh.net.run_over_tcp(fh.paths.agent_path("openssl"), "openssl-s_server", case, repeats=3, warmup=1)
    assert r.status == "ok" and len(r.client) == 3
    assert all(0 < int(c["io_cpu_ns"]) < int(c["cpu_ns"]) for c in r.client), r.client
    # the same handshake, one client each: within a wide bound of each other
    assert 0.2 < ours / tool.cpu_ns < 5, (ours, tool)
