"""The evidence behind the fidelity tables: exact instruction counts per
operation, each library's own tool against tlsbench, under callgrind.

Timings on a shared machine cannot say whether two programs do the same
work; callgrind's counts can (user-space instructions, the same on every
run of the same binaries and inputs). For each pair the tool and the agent
run under ``valgrind --tool=callgrind`` twice, a short and a longer run,
and the difference of the named functions' inclusive counts is divided by
the difference of the operations each side made: first-use costs (lazy
set-up, a process's first handshake) cancel out, and what is left is one
steady operation's count. Counts that depend on data (an ECDSA verify's
scalars) move by a few hundredths of a percent between runs.

* OpenSSL AES-128-GCM and ChaCha20-Poly1305, 16 KiB: ``openssl speed
  -evp``, without and with ``-aead`` (its EVP calls made from the openssl
  binary) against the agent's tb_openssl_sym_run;
* wolfSSL ECDSA P-256 verify: wolfCrypt's benchmark against the agent,
  wc_ecc_verify_hash on both sides (ours also hashes the message: wc_Hash);
* OpenSSL handshake: ``openssl s_time -new`` against ``s_server`` and the
  agent's client against the same kind of server, SSL_do_handshake;
* wolfSSL handshake: tls_bench -m (both threads, the whole program) against
  the agent's two sides in memory (wolfSSL_new, _connect, _accept, _free).

valgrind hides AVX-512 (and ADX) from the programs it runs, so a library
may take another code path than natively; both sides of a pair run under
the same valgrind, so they take the same one. ``scripts/fidelity-counts``
prints the table.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tlsbench import paths, versions
from tlsbench.engine import agent
from tlsbench.engine.case import Case
from tlsbench.engine.protocol import encode_request
from tlsbench.errors import AgentError, SetupError

_CALLEE = re.compile(r"^\s*([\d,]+) \([ \d.]+%\)\s+\*\s+\S*?:(\S+) \[")
_CALLER = re.compile(r"^\s*([\d,]+) \([ \d.]+%\)\s+<\s+\S*?:(\S+) \(([\d,]+)x\) \[([^\]]+)\]")


@dataclass(frozen=True)
class Cost:
    ir: int  # inclusive instructions
    calls: dict[str, int]  # caller object file -> calls from it
    from_ir: dict[str, int]  # caller object file -> the inclusive instructions of those calls

    def from_object(self, suffix: str) -> tuple[int, int]:
        """(instructions, calls) of the calls made from the object file ending in suffix."""
        keys = [k for k in self.calls if k.endswith(suffix)]
        return sum(self.from_ir[k] for k in keys), sum(self.calls[k] for k in keys)


def profile(out_file: Path) -> dict[str, Cost]:
    """Every function's inclusive count and its calls by calling object, read
    from callgrind_annotate's caller tree."""
    exe = shutil.which("callgrind_annotate")
    if exe is None:
        raise SetupError("callgrind_annotate is not installed (apt-get install valgrind)")
    args = [exe, "--inclusive=yes", "--tree=caller", "--threshold=100", str(out_file)]
    return parse_tree(subprocess.run(args, capture_output=True, text=True, check=True).stdout)


def parse_tree(text: str) -> dict[str, Cost]:
    """callgrind_annotate's caller tree: each function's block lists its
    callers (``<`` lines: the calls' inclusive count, how many, from which
    object file), then the function itself (``*``: its inclusive count)."""
    found: dict[str, Cost] = {}
    calls: dict[str, int] = {}
    from_ir: dict[str, int] = {}
    for line in text.splitlines():
        m = _CALLER.match(line)
        if m:
            obj = m.group(4)
            calls[obj] = calls.get(obj, 0) + int(m.group(3).replace(",", ""))
            from_ir[obj] = from_ir.get(obj, 0) + int(m.group(1).replace(",", ""))
            continue
        m = _CALLEE.match(line)
        if m:
            found[m.group(2)] = Cost(int(m.group(1).replace(",", "")), calls, from_ir)
        if not line.strip() or m:
            calls, from_ir = {}, {}
    return found


def valgrind() -> list[str]:
    exe = shutil.which("valgrind")
    if exe is None:
        raise SetupError("valgrind is not installed (apt-get install valgrind)")
    return [exe, "--tool=callgrind"]


def _wrapper(folder: Path, exe: Path, out: Path) -> Path:
    """A program that runs the agent under callgrind (the TLS runners take an
    executable's path); its words are quoted, never taken from input."""
    script = folder / exe.name
    words = " ".join(shlex.quote(w) for w in [*valgrind(), f"--callgrind-out-file={out}", str(exe)])
    script.write_text(f'#!/bin/sh\nexec {words} "$@" 2>/dev/null\n')
    script.chmod(0o700)
    return script


@dataclass
class Row:
    pair: str
    tool: str
    tool_per_op: float
    ours_per_op: float
    what: str

    @property
    def ratio(self) -> float:
        return self.ours_per_op / self.tool_per_op


def _bench_ours(folder: Path, library: str, kind: str, alg: str, op: str, size: int | None,
                repeats: int = 100) -> dict[str, Cost]:
    """The agent's profile over ``repeats`` + 1 single operations (min_ns=0:
    the calibration batch is one operation too)."""
    from tlsbench.families.primitive import keys as keys_mod
    from tlsbench.families.primitive.family import bench_fields

    out = folder / f"ours-{library}-{alg}-{op}-{repeats}.cg"
    case = Case(library, kind, alg, op, size)
    req = encode_request("bench", kind=kind, alg=alg, op=op, warmup=0, repeats=repeats, min_ns=0,
                         **bench_fields(case, keys_mod.generate()))
    agent.call(paths.agent_path(library), [req], 600, f"callgrind {case.name}",
               wrapper=(*valgrind(), f"--callgrind-out-file={out}"))
    return profile(out)


def _per_call(prof: dict[str, Cost], func: str) -> float:
    return prof[func].ir / sum(prof[func].calls.values())


def _steady(a: tuple[float, int], b: tuple[float, int]) -> float:
    """One operation's count from two runs of different lengths ((count,
    operations) each): first-use costs (lazy set-up, caches) cancel out."""
    (ir_a, n_a), (ir_b, n_b) = sorted([a, b], key=lambda x: x[1])
    if n_b <= n_a:
        raise SetupError("the two runs made the same number of operations: no difference to divide")
    return (ir_b - ir_a) / (n_b - n_a)


def _ours_steady(folder: Path, library: str, kind: str, alg: str, op: str, size: int | None,
                 funcs: tuple[str, ...], per: str) -> float:
    runs = []
    for repeats in (40, 120):
        prof = _bench_ours(folder, library, kind, alg, op, size, repeats)
        runs.append((sum(prof[f].ir for f in funcs if f in prof), sum(prof[per].calls.values())))
    return _steady(runs[0], runs[1])


def aead_seal(folder: Path) -> list[Row]:
    exe = shutil.which("openssl")
    if exe is None:
        raise SetupError("the openssl command is not installed (apt-get install openssl)")
    rows = []
    for alg, title in (("aes-128-gcm", "AES-128-GCM"), ("chacha20-poly1305", "ChaCha20-Poly1305")):
        # the agent of the system's OpenSSL: the version `openssl speed` is
        ours = _ours_steady(folder, versions.system_identifier("openssl"), "aead", alg, "encrypt", 16384,
                            ("tb_openssl_sym_run",), "tb_openssl_sym_run")
        for aead in (False, True):
            # two runs of different lengths: the difference of their counts over the
            # difference of their operations is one operation's, set-up excluded
            seen = []
            for seconds in (1, 3):
                out = folder / f"speed-{alg}-{aead}-{seconds}.cg"
                r = subprocess.run([*valgrind(), f"--callgrind-out-file={out}", exe, "speed", "-seconds",
                                    str(seconds), *(["-aead"] if aead else []), "-evp", alg, "-bytes", "16384"],
                                   capture_output=True, text=True, timeout=600)
                m = re.search(r"16384 size blocks: (\d+) ", r.stdout + r.stderr)
                if m is None:
                    raise SetupError("openssl speed under callgrind printed no operation count")
                prof = profile(out)
                # its EVP calls made from the openssl binary itself (the timed loop's)
                funcs = ("EVP_CipherInit_ex", "EVP_EncryptUpdate", "EVP_CIPHER_CTX_ctrl", "EVP_EncryptFinal_ex")
                seen.append((sum(prof[f].from_object("/openssl")[0] for f in funcs if f in prof), int(m.group(1))))
            rows.append(Row(f"openssl {title} encrypt 16384 B", "openssl speed" + (" -aead" if aead else ""),
                            _steady(seen[0], seen[1]), ours,
                            "theirs: its EVP calls per operation; ours: the whole seal (nonce, AAD, message, tag)"))
    return rows


def wolfssl_verify(folder: Path) -> list[Row]:
    from tlsbench.fidelity_peers import PEERS, build_peer

    ours = _ours_steady(folder, "wolfssl", "sig", "ecdsa-p256-sha256", "verify", None, ("wc_ecc_verify_hash",),
                        "wc_ecc_verify_hash")
    hashed = _ours_steady(folder, "wolfssl", "sig", "ecdsa-p256-sha256", "verify", None, ("wc_Hash",), "wc_Hash")
    exe = build_peer(PEERS["wolfssl"])
    out = folder / "peer-wolfssl-ecc.cg"
    subprocess.run([*valgrind(), f"--callgrind-out-file={out}", exe, "-csv", "-ecc", "-p256"], capture_output=True,
                   timeout=900, check=True)
    theirs = _per_call(profile(out), "wc_ecc_verify_hash")
    return [Row("wolfssl ECDSA P-256 verify", "wolfCrypt benchmark", theirs, ours,
                "wc_ecc_verify_hash on both sides"),
            Row("wolfssl ECDSA P-256 verify", "wolfCrypt benchmark", theirs, ours + hashed,
                "ours with the message's SHA-256 (wc_Hash) added")]


def openssl_handshake(folder: Path, seconds: int = 4) -> list[Row]:
    from dataclasses import replace

    from cryptography.hazmat.primitives import serialization

    from tlsbench.families.tls import net
    from tlsbench.families.tls.cases import TlsCase
    from tlsbench.families.tls.certs import make_chain
    from tlsbench.fidelity_handshakes import T13

    verified = TlsCase(13, T13, "x25519", make_chain("ecdsa-p256", "leaf"))
    exe = shutil.which("openssl")
    if exe is None:
        raise SetupError("the openssl command is not installed (apt-get install openssl)")
    assert verified.chain is not None
    root = folder / "root.pem"
    root.write_bytes(verified.chain.root.cert.public_bytes(serialization.Encoding.PEM))
    rows = []
    for case in (verified, replace(verified, verify_peer=False)):
        how = "verified" if case.verify_peer else "not verified"
        # as tlsbench fidelity --handshakes runs it
        trust = ["-CAfile", str(root), "-verify", "3"] if case.verify_peer else ["-no-CAfile"]
        theirs_runs = []
        for seconds_ in (seconds, 3 * seconds):
            server = net.OpenSSLServer(case, 1_000_000, "-www")
            out = folder / f"s_time-{case.verify_peer}-{seconds_}.cg"
            try:
                subprocess.run([*valgrind(), f"--callgrind-out-file={out}", exe, "s_time", "-connect",
                                f"127.0.0.1:{server.port}", "-new", "-time", str(seconds_), "-tls1_3",
                                "-ciphersuites", case.suite, "-no-CApath", "-no-CAstore", *trust],
                               capture_output=True, timeout=600, check=True)
            finally:
                os.killpg(server.proc.pid, signal.SIGKILL)
                server.close()
            prof = profile(out)
            theirs_runs.append((prof["SSL_do_handshake"].ir, sum(prof["SSL_connect"].calls.values())))
        ours_runs = []
        for repeats in (20, 60):
            ours_out = folder / f"ours-openssl-client-{case.verify_peer}-{repeats}.cg"
            ours_agent = paths.agent_path(versions.system_identifier("openssl"))  # the version s_time is
            r = net.run_over_tcp(_wrapper(folder, ours_agent, ours_out), "openssl-s_server", case,
                                 repeats=repeats, warmup=5, timeout=600)
            if r.status != "ok":
                raise SetupError(f"tlsbench openssl client under callgrind: {r.status}: {r.message}")
            prof = profile(ours_out)
            ours_runs.append((prof["SSL_do_handshake"].ir, sum(prof["SSL_new"].calls.values())))
        rows.append(Row(f"openssl TLS 1.3 handshake, client, {how}", "openssl s_time -new",
                        _steady(theirs_runs[0], theirs_runs[1]), _steady(ours_runs[0], ours_runs[1]),
                        "SSL_do_handshake per connection"))
    return rows


def wolfssl_handshake(folder: Path, seconds: int = 5) -> list[Row]:
    from tlsbench.families.tls.cases import TlsCase, run_handshakes
    from tlsbench.families.tls.certs import make_chain
    from tlsbench.fidelity_handshakes import parse_tls_bench, tls_bench_args
    from tlsbench.fidelity_peers import build_peer_target

    exe = build_peer_target("peer-wolfssl-tls-bench")
    funcs = ("wolfSSL_new", "wolfSSL_connect", "wolfSSL_accept", "wolfSSL_free")
    lib_runs, total_runs = [], []
    for seconds_ in (seconds, 3 * seconds):
        out = folder / f"tls_bench-{seconds_}.cg"
        r = subprocess.run([*valgrind(), f"--callgrind-out-file={out}",
                            *tls_bench_args(exe, "ECDHE-RSA-AES128-GCM-SHA256", seconds_)],
                           capture_output=True, text=True, timeout=900, check=True)
        conns = parse_tls_bench(r.stdout + r.stderr)["client"][0]
        total = re.search(r"Collected : (\d+)", r.stderr)
        if total is None:
            raise SetupError("callgrind printed no total for tls_bench")
        prof = profile(out)
        lib_runs.append((sum(prof[f].ir for f in funcs), conns))
        total_runs.append((int(total.group(1)), conns))
    case = TlsCase(12, "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "p256", make_chain("rsa2048", "leaf"))
    ours_runs = []
    for repeats in (20, 60):
        ours_out = folder / f"ours-wolfssl-memory-{repeats}.cg"
        res = run_handshakes(_wrapper(folder, paths.agent_path("wolfssl"), ours_out), case, repeats=repeats,
                             warmup=5, timeout=600)
        if res.status != "ok":
            raise SetupError(f"tlsbench wolfssl handshakes under callgrind: {res.status}: {res.message}")
        prof = profile(ours_out)
        handshakes = sum(prof["wolfSSL_new"].calls.values()) // 2  # one per side
        ours_runs.append((sum(prof[f].ir for f in funcs if f in prof), handshakes))
    ours = _steady(ours_runs[0], ours_runs[1])
    return [Row("wolfssl TLS 1.2 ECDHE-RSA handshake, both sides", "tls_bench -m", _steady(lib_runs[0], lib_runs[1]),
                ours, "wolfSSL_new/connect/accept/free of both sides per connection"),
            Row("wolfssl TLS 1.2 ECDHE-RSA handshake, both sides", "tls_bench -m (whole program)",
                _steady(total_runs[0], total_runs[1]), ours, "its whole program (both threads) per connection")]


PAIRS: dict[str, Callable[[Path], list[Row]]] = {
    "aead": aead_seal, "ecdsa-verify": wolfssl_verify, "openssl-handshake": openssl_handshake,
    "wolfssl-handshake": wolfssl_handshake,
}


def collect(names: list[str]) -> list[Row]:
    with tempfile.TemporaryDirectory(prefix="tlsbench-counts-") as tmp:
        return [row for n in names for row in PAIRS[n](Path(tmp))]


def render(rows: list[Row]) -> str:
    lines = [f"{'operation':48} {'tool':30} {'tool instr/op':>14} {'tlsbench':>14} {'ratio':>6}  counted"]
    for r in rows:
        lines.append(f"{r.pair:48} {r.tool:30} {r.tool_per_op:14,.0f} {r.ours_per_op:14,.0f} {r.ratio:6.3f}  {r.what}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    import argparse

    p = argparse.ArgumentParser(prog="fidelity-counts", description=__doc__.splitlines()[0])
    p.add_argument("pairs", nargs="*", metavar="PAIR", help=f"which pairs: {', '.join(PAIRS)} (default: all)")
    args = p.parse_args(argv)
    unknown = [n for n in args.pairs if n not in PAIRS]
    if unknown:
        p.error(f"unknown pair {unknown[0]!r}; known: {', '.join(PAIRS)}")
    try:
        print(render(collect(args.pairs or list(PAIRS))), end="")
    except (SetupError, AgentError, subprocess.CalledProcessError, KeyError) as e:
        print(f"fidelity-counts: {e}", file=__import__("sys").stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
