"""Handshake fidelity: each library's own handshake benchmark against
tlsbench, under the same configuration, CPU time against CPU time.

* OpenSSL: ``openssl s_time -new`` (the system's 3.0) against ``openssl
  s_server`` on loopback. s_time counts the connections it completes in a
  wall-time window and prints ``N connections in T s; R connections/user
  sec``: T is its user CPU time (times(2)), so 1/R is user CPU per
  connection. We also take its process's user + system time from the kernel
  (rusage) over the same N. Ours: the tlsbench OpenSSL client agent against
  the same s_server: its handshake's CPU time in library calls less the
  time inside the socket calls (io_cpu_ns, the kernel's share that s_time's
  user time leaves out). callgrind counts the same user-space work per
  handshake on both sides (SSL_do_handshake: 5.535 M instructions against
  s_time's 5.475 M, docs/method.md).
* GnuTLS: ``gnutls-cli --benchmark-tls-kx`` runs both sides in one thread
  over memory buffers, with its own certificates, no verification by the
  client (it loads no trust anchor), for 5 s (wall) per configuration, and
  prints the mean time of the handshake calls and transactions per second,
  both read from the process's CPU clock (CLOCK_PROCESS_CPUTIME_ID: strace
  shows only that clock read), so they are CPU time already. Ours: both
  sides in memory, ``verify_peer = false``.
* wolfSSL: ``examples/benchmark/tls_bench.c`` of the pinned source, built
  against the agent's own library (``peer-wolfssl-tls-bench``), ``-m``:
  client and server threads over memory; it prints the mean wall time of
  wolfSSL_connect (which spans the server's work). Its CPU per connection is
  the process's user time over its connection count (its system time is its
  threads' hand-offs, about 27 context switches per connection, which ours,
  one thread in memory, never makes: reported beside it); both its
  threads run pinned to one CPU, as our two sides share one thread. It
  installs PSK callbacks whenever the library has PSK, so its TLS 1.3
  connections use an external PSK, not certificates: the comparison is TLS
  1.2 ECDHE-RSA (no PSK suite offered). Ours: both sides in memory.
* Mbed TLS: ssl_client2 / ssl_server2 time nothing and make one full
  handshake per process (reconnect=N resumes): not compared.

The tool and tlsbench run alternately, ``rounds`` times; each keeps its best
round (on a shared machine noise only slows a round down). A shared machine
also has slow phases of seconds (a neighbour on the same core): each side's
round starts once the reference workload says the machine is fast (at most
POLLS references) and is timed again after it; only rounds with both
references at settling.STEADY_SPEED of the best count, and more rounds are
measured (at most 3 x ``rounds``) until each side has ``rounds`` of them.
A side with none keeps its best round, and the row says so.
"""

from __future__ import annotations

import os
import re
import resource
import shutil
import signal
import statistics
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TypeVar

from tlsbench import paths, versions
from tlsbench.engine import pacing, settling
from tlsbench.errors import SetupError
from tlsbench.families.tls import net
from tlsbench.families.tls.cases import TlsCase, run_handshakes
from tlsbench.families.tls.certs import make_chain
from tlsbench.studies.fidelity_peers import build_peer_target

T13 = "TLS_AES_128_GCM_SHA256"
POLLS = 40  # references timed (about 5 ms each) waiting for a fast phase before a side's round
T = TypeVar("T")
# the line of gnutls-cli --benchmark-tls-kx that matches our TLS 1.3 X25519 / ECDSA P-256 case
GNUTLS_KX_LINE = "(TLS1.3)-(ECDHE-X25519)-(ECDSA-SECP256R1-SHA256)-(AES-128-GCM)"


@dataclass(frozen=True)
class Measure:
    """One tool's figures for one configuration, per handshake (ns): the one
    matched with ours (CPU time) and another for reference."""

    cpu_ns: float  # matched with ours
    other_ns: float | None = None
    count: int = 0
    detail: str = ""  # what else the tool's process spent, for the row's note


@dataclass(frozen=True)
class Cpu:
    """A reaped tool's CPU (kernel accounting, rusage): seconds in user and
    system mode and its voluntary context switches."""

    user_s: float
    system_s: float
    switches: int = 0

    @property
    def total_s(self) -> float:
        return self.user_s + self.system_s


@dataclass
class Row:
    library: str
    tool: str
    config: str
    ours_ns: float | None  # tlsbench: CPU per handshake (what it covers: `ours_what`)
    tool_cpu_ns: float | None  # the tool: CPU per handshake, the scope matched as far as it allows
    tool_other_ns: float | None  # another figure of the tool per handshake (see `tool_what`)
    ours_what: str
    tool_what: str
    note: str
    steady: str = ""  # how many rounds of each side had the machine fast before and after them
    unsteady: bool = False  # a side had fewer steady rounds than asked for: its figure may be the machine's

    @property
    def ratio(self) -> float | None:
        if self.ours_ns is None or not self.tool_cpu_ns:
            return None
        return self.ours_ns / self.tool_cpu_ns


# ---- parsers of the tools' own output ----

def parse_s_time(out: str) -> tuple[int, float]:
    """``N connections in T.TTs; R connections/user sec, ...``: the count and
    the user CPU seconds s_time printed for them."""
    m = re.search(r"^(\d+) connections in ([0-9.]+)s; ([0-9.]+) connections/user sec", out, re.M)
    if m is None:
        raise SetupError("openssl s_time printed no 'connections in ...s; ... connections/user sec' line")
    return int(m.group(1)), float(m.group(2))


_UNITS = {"ns": 1.0, "\u00b5s": 1e3, "\u03bcs": 1e3, "us": 1e3, "ms": 1e6, "s": 1e9}  # micro sign or mu


def parse_gnutls_kx(out: str) -> dict[str, tuple[float, float]]:
    """Per configuration line: (transactions/sec, mean handshake wall ns)."""
    found: dict[str, tuple[float, float]] = {}
    current = None
    tps = None
    for line in out.splitlines():
        line = line.strip()
        if line.startswith("(") and line.endswith(")"):
            current, tps = line, None
            continue
        m = re.match(r"^- ([0-9.]+) transactions/sec", line)
        if m and current:
            tps = float(m.group(1))
            continue
        m = re.match(r"^- avg\. handshake time: ([0-9.]+) (\S+)", line)
        if m and current and tps is not None:
            found[current] = (tps, float(m.group(1)) * _UNITS[m.group(2)])
    return found


def parse_tls_bench(out: str) -> dict[str, tuple[int, float]]:
    """The summary table of tls_bench: per side, (connections, mean connect
    wall ns): ``Client  <cipher>  <group>  <bytes>  <conns>  ...  <avg ms>``."""
    found: dict[str, tuple[int, float]] = {}
    for line in out.splitlines():
        cells = line.split()
        if len(cells) == 11 and cells[0] in ("Client", "Server"):
            try:
                found[cells[0].lower()] = (int(cells[4]), float(cells[10]) * 1e6)
            except ValueError:
                continue
    return found


# ---- running a tool and its CPU time ----

def _children_cpu() -> Cpu:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return Cpu(r.ru_utime, r.ru_stime, r.ru_nvcsw)


def one_cpu() -> set[int]:
    """One CPU this process may run on (the lowest): where a pinned tool runs."""
    return {min(os.sched_getaffinity(0))}


def run_counted(args: list[str], timeout: float, cpus: set[int] | None = None) -> tuple[str, Cpu]:
    """Runs a tool to its end: its output and its CPU (user and system
    seconds, from the kernel's accounting of reaped children); with ``cpus``
    the tool and all its threads run on those CPUs only."""
    before = _children_cpu()
    pin = (lambda: os.sched_setaffinity(0, cpus)) if cpus else None
    try:
        r = subprocess.run(args, capture_output=True, text=True, errors="replace", timeout=timeout, preexec_fn=pin)
    except subprocess.TimeoutExpired as e:
        raise SetupError(f"{Path(args[0]).name} did not finish within {timeout:g} s") from e
    after = _children_cpu()
    cpu = Cpu(after.user_s - before.user_s, after.system_s - before.system_s, after.switches - before.switches)
    if r.returncode != 0:
        raise SetupError(f"{Path(args[0]).name} exited with {r.returncode}: {(r.stderr or r.stdout).strip()[-200:]}")
    return r.stdout + r.stderr, cpu


def run_gnutls_kx(timeout: float = 300) -> dict[str, tuple[float, float]]:
    """gnutls-cli --benchmark-tls-kx: per configuration (transactions per
    CPU second, mean handshake CPU ns). Its clock is the process's CPU time
    (gnutls 3.7's benchmark timer reads CLOCK_PROCESS_CPUTIME_ID, as strace
    shows), so both figures are CPU time even on a busy machine."""
    exe = shutil.which("gnutls-cli")
    if exe is None:
        raise SetupError("gnutls-cli is not installed (apt-get install gnutls-bin)")
    out, _cpu = run_counted([exe, "--benchmark-tls-kx"], timeout)
    return parse_gnutls_kx(out)


# ---- the three comparisons ----

def _mean(values: list[float]) -> float:
    return statistics.fmean(values)


def ours_memory(library: str, case: TlsCase, repeats: int) -> float:
    """tlsbench in memory: mean CPU of both sides' handshake calls."""
    r = run_handshakes(paths.agent_path(library), case, repeats=repeats, warmup=5)
    if r.status != "ok":
        raise SetupError(f"tlsbench {library} handshake: {r.status}: {r.message}")
    return _mean([int(s["client_cpu_ns"]) + int(s["server_cpu_ns"]) for s in r.samples])


S_SERVER_BATCH = 100  # s_server 3.0 in -rev mode stopped answering after about 150 of our connections


def ours_tcp_client(case: TlsCase, repeats: int) -> float:
    """tlsbench's OpenSSL client against openssl s_server: mean client CPU
    per handshake outside the socket calls (in batches, each against a fresh
    s_server). The agent's CPU in library calls includes the kernel's time
    in send/recv (io_cpu_ns, about 15% of a loopback handshake's CPU):
    s_time's user time leaves it out, so ours does too."""
    cpu: list[float] = []
    ours = paths.agent_path(versions.system_identifier("openssl"))  # the version s_time and s_server are
    while len(cpu) < repeats:
        n = min(S_SERVER_BATCH, repeats - len(cpu))
        r = net.run_over_tcp(ours, "openssl-s_server", case, repeats=n, warmup=5)
        if r.status != "ok":
            raise SetupError(f"tlsbench openssl against s_server: {r.status}: {r.message}")
        cpu += [int(c["cpu_ns"]) - int(c["io_cpu_ns"]) for c in r.client]
    return _mean(cpu)


def s_time(case: TlsCase, seconds: int) -> Measure:
    """openssl s_time -new against s_server with the case's configuration."""
    exe = shutil.which("openssl")
    if exe is None:
        raise SetupError("the openssl command is not installed (apt-get install openssl)")
    server = net.OpenSSLServer(case, 1_000_000, "-www")  # serves until stopped; s_time sends nothing
    try:
        with tempfile.TemporaryDirectory(prefix="tlsbench-fidelity-") as tmp:
            root = Path(tmp) / "root.pem"
            assert case.chain is not None
            from cryptography.hazmat.primitives import serialization

            root.write_bytes(case.chain.root.cert.public_bytes(serialization.Encoding.PEM))
            args = [exe, "s_time", "-connect", f"127.0.0.1:{server.port}", "-new", "-time", str(seconds),
                    "-tls1_3" if case.version == 13 else "-tls1_2"]
            args += ["-ciphersuites", case.suite] if case.version == 13 else []
            # only the given root, never the system's store (without -no-* s_time loads the
            # default locations and searches them on every connection)
            args += ["-no-CApath", "-no-CAstore"]
            args += ["-CAfile", str(root), "-verify", "3"] if case.verify_peer else ["-no-CAfile"]
            out, cpu = run_counted(args, seconds * 4 + 60)
    finally:
        os.killpg(server.proc.pid, signal.SIGKILL)
        server.close()
    n, user_s = parse_s_time(out)
    if n == 0:
        raise SetupError("openssl s_time completed no connection")
    # matched: s_time's own figure, user CPU per connection (ours has no connect(), accept()
    # or close() in it either); the other: user + system of the whole process (rusage)
    return Measure(user_s * 1e9 / n, cpu.total_s * 1e9 / n, n)


def tls_bench_args(exe: str, cipher: str, seconds: int) -> list[str]:
    """tls_bench over memory (-m), one cipher, 16 bytes each way per connection."""
    return [exe, "-m", "-t", str(seconds), "-l", cipher, "-p", "16", "-S", "16"]


def tls_bench(exe: str, cipher: str, seconds: int) -> Measure:
    """Its client and server threads pinned to one CPU, as our two sides share
    one thread: callgrind counts the same instructions per connection for
    both (12.63 M against our 12.57 M, docs/method.md), and what its threads
    cost beyond them is their hand-offs (13.4 voluntary and as many
    involuntary context switches per connection), which across two idle
    cores also cost cold caches. Those hand-offs are the kernel's work (its
    system time, about 8% of its CPU); ours, one thread over memory, makes
    no system call in a handshake. So the matched figure is its user time,
    the other its user + system time, and the note says what the hand-offs
    cost."""
    out, cpu = run_counted(tls_bench_args(exe, cipher, seconds), seconds * 4 + 60, one_cpu())
    sides = parse_tls_bench(out)
    if "client" not in sides or sides["client"][0] == 0:
        raise SetupError(f"tls_bench printed no client connections for {cipher}: {out.strip()[-200:]}")
    n, connect_ns = sides["client"]
    detail = (f"tool's kept round: {cpu.system_s * 1e6 / n:,.1f} us of system time and {cpu.switches / n:.1f}"
              f" voluntary context switches per connection (its threads' hand-offs), its mean connect wall"
              f" time {connect_ns / 1e3:,.1f} us")
    return Measure(cpu.user_s * 1e9 / n, cpu.total_s * 1e9 / n, n, detail)


@dataclass(frozen=True)
class Comparison:
    library: str
    tool: str
    config: str
    ours_what: str
    tool_what: str
    note: str
    ours: Callable[[], float]
    theirs: Callable[[], Measure]


def comparisons(seconds: int, repeats: int) -> list[Comparison]:
    ecdsa = make_chain("ecdsa-p256", "leaf")
    rsa = make_chain("rsa2048", "leaf")
    ossl = TlsCase(13, T13, "x25519", ecdsa)
    gnu = TlsCase(13, T13, "x25519", ecdsa, verify_peer=False)
    wolf = TlsCase(12, "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "p256", rsa)
    out = [
        Comparison("openssl", "openssl s_time -new", "TLS 1.3 AES-128-GCM X25519, ECDSA P-256 leaf, verified",
                   "client CPU in library calls less the time inside the socket calls (io_cpu_ns), loopback TCP",
                   "its own figure, user CPU per connection; other: user+sys of the process (rusage), which"
                   " adds the kernel's connect/accept/close",
                   "s_time also counts SSL_new/SSL_free and its BIO set-up and checks no host name;"
                   " s_server sends no session ticket (-num_tickets 0), to either",
                   lambda: ours_tcp_client(ossl, repeats), lambda: s_time(ossl, seconds)),
        Comparison("openssl", "openssl s_time -new", "the same, verification off",
                   "client CPU in library calls less the socket calls' time, loopback TCP",
                   "its own figure, user CPU per connection; other: user+sys (rusage)",
                   "s_time with -no-CAfile -no-CApath -no-CAstore: its chain check stops at the missing anchor;"
                   " ours loads no anchor (verify_peer = false)",
                   lambda: ours_tcp_client(replace(ossl, verify_peer=False), repeats),
                   lambda: s_time(replace(ossl, verify_peer=False), seconds)),
        Comparison("gnutls", "gnutls-cli --benchmark-tls-kx", "TLS 1.3 AES-128-GCM X25519, ECDSA P-256, not verified",
                   "client + server CPU in library calls, in memory",
                   "its own figure, mean process CPU time of the handshake calls; other: CPU per transaction"
                   " of its loop (1 / transactions per CPU second)",
                   "its certificate and key are its own (P-256, like ours); its loop also runs gnutls_init/"
                   "deinit of both sessions; its server sends TLS 1.3 session tickets, ours none",
                   lambda: ours_memory("gnutls", gnu, repeats), lambda: _gnutls_measure()),
        Comparison("wolfssl", "tls_bench -m (pinned source)", "TLS 1.2 ECDHE-RSA AES-128-GCM P-256, RSA-2048 leaf,"
                   " verified", "client + server CPU in library calls, in memory",
                   "user CPU per connection of both threads (rusage); other: their user+sys, which adds the"
                   " kernel's thread hand-offs",
                   "its certificates are its own (RSA-2048, like ours) and it checks no host name; it also"
                   " moves 16 B each way per connection and wakes the other thread per flight (both threads"
                   " pinned to one CPU, as our pair shares one thread)",
                   lambda: ours_memory("wolfssl", wolf, repeats),
                   lambda: tls_bench(build_peer_target("peer-wolfssl-tls-bench"), "ECDHE-RSA-AES128-GCM-SHA256",
                                     seconds)),
    ]
    return out


def _gnutls_measure() -> Measure:
    lines = run_gnutls_kx()
    if GNUTLS_KX_LINE not in lines:
        raise SetupError(f"gnutls-cli --benchmark-tls-kx printed no {GNUTLS_KX_LINE} line")
    tps, avg_ns = lines[GNUTLS_KX_LINE]
    # matched: its mean handshake CPU time; other: CPU per transaction of its whole loop
    return Measure(avg_ns, 1e9 / tps if tps else None, 0)


NOT_COMPARED = [
    ("mbedtls", "ssl_client2 / ssl_server2",
     "not compared: Mbed TLS has no handshake benchmark; ssl_client2 times nothing, makes one full handshake per"
     " process (start-up, configuration, certificate parsing and its progress printing would be in any CPU"
     " figure of it) and its reconnect=N (at most 2) resumes the session: abbreviated handshakes, not full ones"),
    ("wolfssl", "tls_bench -m, TLS 1.3",
     "not compared: tls_bench installs PSK callbacks whenever the library has PSK (ours has), so its TLS 1.3"
     " connections use an external PSK, not certificates; no option turns that off"),
]


def reference_ns() -> int:
    """One timed reference workload (engine/pacing.py), in the OpenSSL agent."""
    return pacing.reference_ns(paths.agent_path("openssl"))


def _gated(pace: pacing.Pace, timed: Callable[[], int], measure: Callable[[], T]) -> tuple[T, tuple[int, int]]:
    """One side's round in a fast phase (settling.wait_fast), with the references before and after it."""
    before = settling.wait_fast(pace, timed, POLLS)
    value = measure()
    after = timed()
    pace.note(after)
    return value, (before, after)


def _steady(pace: pacing.Pace, around: tuple[int, int]) -> bool:
    return pace.speed(max(around)) >= settling.STEADY_SPEED


def _kept(pace: pacing.Pace, seen: list[tuple[T, tuple[int, int]]],
          key: Callable[[T], float]) -> tuple[T | None, int]:
    """The best of the steady rounds (else of all rounds) and how many were steady."""
    steady = [v for v, around in seen if _steady(pace, around)]
    pool = steady or [v for v, _ in seen]
    return (min(pool, key=key) if pool else None), len(steady)


def compare(rounds: int = 3, seconds: int = 3, repeats: int = 200,
            libraries: tuple[str, ...] = ("openssl", "gnutls", "wolfssl", "mbedtls"),
            timed: Callable[[], int] = reference_ns) -> list[Row]:
    """Alternately the tool, then tlsbench, each in a fast phase (_gated), until
    each has ``rounds`` steady rounds (at most 3 x ``rounds`` each); the best
    steady round of each is kept."""
    rows = []
    pace = pacing.Pace()  # the best reference seen, over the whole table
    for c in comparisons(seconds, repeats):
        if c.library not in libraries:
            continue
        tool_seen: list[tuple[Measure, tuple[int, int]]] = []
        ours_seen: list[tuple[float, tuple[int, int]]] = []
        failed, failures = "", 0
        for _ in range(3 * rounds):
            try:
                tool_seen.append(_gated(pace, timed, c.theirs))
                ours_seen.append(_gated(pace, timed, c.ours))
            except SetupError as e:  # one tool failing is that row's result, not the end of the table
                failed, failures = str(e), failures + 1
                if failures >= rounds:
                    break
                continue
            if min(sum(_steady(pace, a) for _, a in seen) for seen in (tool_seen, ours_seen)) >= rounds:
                break
        best_tool, tool_steady = _kept(pace, tool_seen, lambda m: m.cpu_ns)
        best_ours, ours_steady = _kept(pace, ours_seen, float)
        if best_tool is None or best_ours is None:
            rows.append(Row(c.library, c.tool, c.config, None, None, None, "", "", f"failed in every round: {failed}"))
            continue
        note = c.note + (f"; {best_tool.detail}" if best_tool.detail else "")
        note += f"; {len(tool_seen)} rounds, one or more failed: {failed}" if failed else ""
        steady = (f"rounds with the machine fast before and after: tool {tool_steady} of {len(tool_seen)},"
                  f" tlsbench {ours_steady} of {len(ours_seen)}")
        if not tool_steady or not ours_steady:
            steady += "; a side with none keeps its best round, slowed by the machine"
        rows.append(Row(c.library, c.tool, c.config, best_ours, best_tool.cpu_ns, best_tool.other_ns, c.ours_what,
                        c.tool_what, note, steady, unsteady=min(tool_steady, ours_steady) < rounds))
    for lib, tool, why in NOT_COMPARED:
        if lib in libraries:
            rows.append(Row(lib, tool, "-", None, None, None, "", "", why))
    return rows


def render(rows: list[Row], load: tuple[tuple[float, float, float], tuple[float, float, float]] | None = None) -> str:
    def us(v: float | None) -> str:
        return "-" if v is None else f"{v / 1e3:,.1f}"

    head = f"{'library':8} {'tool':30} {'tlsbench us':>11} {'tool CPU us':>11} {'ratio':>6} {'other us':>11}  config"
    lines = [head]
    for r in rows:
        ratio = "-" if r.ratio is None else f"{r.ratio:.3f}"
        mark = "*" if r.unsteady else " "
        lines.append(f"{r.library:8} {r.tool:30} {us(r.ours_ns):>11} {us(r.tool_cpu_ns):>11} {ratio:>6}{mark}"
                     f"{us(r.tool_other_ns):>11}  {r.config}")
    lines.append("")
    if any(r.unsteady for r in rows):  # a ratio from a slow machine is not the instruments' agreement
        lines.append("* a side had fewer steady rounds than asked for (the machine slow before or after them):"
                     " this ratio measures the machine as much as the two instruments; run again on a quiet machine")
    lines.append("per handshake; ratio = tlsbench / tool CPU (goal 0.9-1.1); what each side counts:")
    for r in rows:
        if r.ours_what:
            steady = f"; {r.steady}" if r.steady else ""
            lines.append(f"- {r.library}, {r.config}: tlsbench: {r.ours_what}; tool: {r.tool_what}; {r.note}{steady}")
        else:
            lines.append(f"- {r.library}: {r.note}")
    if load is not None:
        lines.append(f"load average (1, 5, 15 min) before: {', '.join(f'{x:.2f}' for x in load[0])};"
                     f" after: {', '.join(f'{x:.2f}' for x in load[1])}; {os.cpu_count()} cores")
    return "\n".join(lines) + "\n"
