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
  the agent's two sides in memory (wolfSSL_new, _connect, _accept, _free);
* Mbed TLS RSA-2048 public operation: Mbed TLS's benchmark (its RSA-2048
  part, up to the first mbedtls_rsa_free) against the agent's verify,
  mbedtls_rsa_public on both sides.

With ``--sim`` callgrind also simulates the caches and the branch
predictors (``--cache-sim=yes --branch-sim=yes``, the caches of SIM_CACHES:
a model, not the host's own), and each row adds I1, D1 and last-level
misses and mispredicted branches per operation.

valgrind hides AVX-512 (and ADX) from the programs it runs, so a library
may take another code path than natively; both sides of a pair run under
the same valgrind, so they take the same one. ``scripts/fidelity-counts``
prints the table.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tlsbench import paths, versions
from tlsbench.engine import agent
from tlsbench.engine.case import Case
from tlsbench.engine.protocol import encode_request
from tlsbench.errors import SetupError
from tlsbench.studies.fidelity import REKEYED
from tlsbench.studies.pairs import pair_of

_CALLEE = re.compile(r"^\s*([\d,]+) \([ \d.]+%\)\s+\*\s+\S*?:(\S+) \[")
_CALLER = re.compile(r"^\s*([\d,]+) \([ \d.]+%\)\s+<\s+\S*?:(\S+) \(([\d,]+)x\) \[([^\]]+)\]")


@dataclass(frozen=True)
class Cost:
    ir: int  # inclusive count of the event read (instructions unless another was asked for)
    calls: dict[str, int]  # caller object file -> calls from it
    from_ir: dict[str, int]  # caller object file -> the inclusive instructions of those calls

    def from_object(self, suffix: str) -> tuple[int, int]:
        """(instructions, calls) of the calls made from the object file ending in suffix."""
        keys = [k for k in self.calls if k.endswith(suffix)]
        return sum(self.from_ir[k] for k in keys), sum(self.calls[k] for k in keys)


def profile(out_file: Path, event: str = "Ir") -> dict[str, Cost]:
    """Every function's inclusive count of one event (Ir: instructions) and
    its calls by calling object, read from callgrind_annotate's caller tree."""
    exe = shutil.which("callgrind_annotate")
    if exe is None:
        raise SetupError("callgrind_annotate is not installed (apt-get install valgrind)")
    args = [exe, "--inclusive=yes", "--tree=caller", "--threshold=100", f"--show={event}", f"--sort={event}",
            str(out_file)]
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


# the simulated events summed into each figure of --sim
SIM_EVENTS = {"I1 misses": ("I1mr",), "D1 misses": ("D1mr", "D1mw"), "LL misses": ("DLmr", "DLmw"),
              "mispredicts": ("Bcm", "Bim")}
# the simulated caches, fixed (not read from the CPU) so that every machine
# models the same ones: those of the project's AMD EPYC (Zen 4) hosts, 32 KiB
# 8-way L1I and L1D and a 1 MiB 8-way L2 as the last level, 64-byte lines
SIM_CACHES = ["--I1=32768,8,64", "--D1=32768,8,64", "--LL=1048576,8,64"]
_sim = False


def valgrind() -> list[str]:
    exe = shutil.which("valgrind")
    if exe is None:
        raise SetupError("valgrind is not installed (apt-get install valgrind)")
    return [exe, "--tool=callgrind", *(["--cache-sim=yes", "--branch-sim=yes", *SIM_CACHES] if _sim else [])]


def _wrapper(folder: Path, exe: Path, out: Path) -> Path:
    """A program that runs the agent under callgrind (the TLS runners take an
    executable's path); its words are quoted, never taken from input."""
    script = folder / exe.name
    words = " ".join(shlex.quote(w) for w in [*valgrind(), f"--callgrind-out-file={out}", str(exe)])
    script.write_text(f'#!/bin/sh\nexec {words} "$@" 2>/dev/null\n')
    script.chmod(0o700)
    return script


@dataclass(frozen=True)
class Runs:
    """One side's runs under callgrind: two of different lengths (one
    operation's count is the difference of the counts over the difference
    of the operations, so first-use costs cancel) or one (its count over its
    operations). The count is the named functions' inclusive one, or only
    that of their calls made from the object file ending in ``caller``."""
    files: tuple[Path, ...]
    ops: tuple[int, ...]
    funcs: tuple[str, ...]
    caller: str | None = None

    def count(self, i: int, event: str = "Ir") -> int:
        prof = profile(self.files[i], event)
        if self.caller is not None:
            return sum(prof[f].from_object(self.caller)[0] for f in self.funcs if f in prof)
        return sum(prof[f].ir for f in self.funcs if f in prof)

    def per_op(self, event: str = "Ir") -> float:
        if len(self.files) == 1:
            return self.count(0, event) / self.ops[0]
        return _steady((self.count(0, event), self.ops[0]), (self.count(1, event), self.ops[1]))


@dataclass
class Row:
    pair: str
    tool: str
    tool_per_op: float
    ours_per_op: float
    what: str
    sim: dict[str, tuple[float, float]] = field(default_factory=dict)  # event -> (tool, ours) per operation

    @property
    def ratio(self) -> float:
        return self.ours_per_op / self.tool_per_op


def _row(pair: str, tool: str, theirs: Runs, ours: Runs | tuple[Runs, ...], what: str) -> Row:
    """A row from both sides' runs (ours: one or several parts added), with
    the simulated events per operation when callgrind simulated them."""
    parts = ours if isinstance(ours, tuple) else (ours,)

    def per_op(event: str) -> tuple[float, float]:
        return theirs.per_op(event), sum(p.per_op(event) for p in parts)

    ir = per_op("Ir")
    sim: dict[str, tuple[float, float]] = {}
    for label, events in SIM_EVENTS.items() if _sim else ():
        counts = [per_op(e) for e in events]
        sim[label] = (sum(c[0] for c in counts), sum(c[1] for c in counts))
    return Row(pair, tool, ir[0], ir[1], what, sim)


def _bench_ours(folder: Path, library: str, kind: str, alg: str, op: str, size: int | None,
                repeats: int = 100, rekey: int = 0) -> Path:
    """The agent's callgrind file over ``repeats`` + 1 single operations
    (min_ns=0: the calibration batch is one operation too)."""
    from tlsbench.families.primitive import keys as keys_mod
    from tlsbench.families.primitive.family import bench_fields

    out = folder / f"ours-{library}-{alg}-{op}-{repeats}-{rekey}.cg"
    case = Case(library, kind, alg, op, size)
    req = encode_request("bench", kind=kind, alg=alg, op=op, warmup=0, repeats=repeats, min_ns=0,
                         **bench_fields(case, keys_mod.generate()), **({"rekey": 1} if rekey else {}))
    agent.call(paths.agent_path(library), [req], 900, f"callgrind {case.name}",
               wrapper=(*valgrind(), f"--callgrind-out-file={out}"))
    return out


def _per_call(prof: dict[str, Cost], func: str) -> float:
    return prof[func].ir / sum(prof[func].calls.values())


def _steady(a: tuple[float, int], b: tuple[float, int]) -> float:
    """One operation's count from two runs of different lengths ((count,
    operations) each): first-use costs (lazy set-up, caches) cancel out."""
    (ir_a, n_a), (ir_b, n_b) = sorted([a, b], key=lambda x: x[1])
    if n_b <= n_a:
        raise SetupError("the two runs made the same number of operations: no difference to divide")
    return (ir_b - ir_a) / (n_b - n_a)


def _ours_runs(folder: Path, library: str, kind: str, alg: str, op: str, size: int | None,
               funcs: tuple[str, ...], per: str, rekey: int = 0) -> Runs:
    files, ops = [], []
    for repeats in (40, 120):
        out = _bench_ours(folder, library, kind, alg, op, size, repeats, rekey)
        files.append(out)
        ops.append(sum(profile(out)[per].calls.values()))
    return Runs(tuple(files), tuple(ops), funcs)


def aead_seal(folder: Path) -> list[Row]:
    exe = shutil.which("openssl")
    if exe is None:
        raise SetupError("the openssl command is not installed (apt-get install openssl)")
    rows = []
    for alg, title in (("aes-128-gcm", "AES-128-GCM"), ("chacha20-poly1305", "ChaCha20-Poly1305")):
        # the agent of the system's OpenSSL: the version `openssl speed` is
        ours = _ours_runs(folder, versions.system_identifier("openssl"), "aead", alg, "encrypt", 16384,
                          ("tb_openssl_sym_run",), "tb_openssl_sym_run")
        for aead in (False, True):
            # two runs of different lengths: the difference of their counts over the
            # difference of their operations is one operation's, set-up excluded
            files, ops = [], []
            for seconds in (1, 3):
                out = folder / f"speed-{alg}-{aead}-{seconds}.cg"
                r = subprocess.run([*valgrind(), f"--callgrind-out-file={out}", exe, "speed", "-seconds",
                                    str(seconds), *(["-aead"] if aead else []), "-evp", alg, "-bytes", "16384"],
                                   capture_output=True, text=True, timeout=600)
                m = re.search(r"16384 size blocks: (\d+) ", r.stdout + r.stderr)
                if m is None:
                    raise SetupError("openssl speed under callgrind printed no operation count")
                files.append(out)
                ops.append(int(m.group(1)))
            # its EVP calls made from the openssl binary itself (the timed loop's)
            theirs = Runs(tuple(files), tuple(ops), ("EVP_CipherInit_ex", "EVP_EncryptUpdate", "EVP_CIPHER_CTX_ctrl",
                                                     "EVP_EncryptFinal_ex"), caller="/openssl")
            rows.append(_row(f"openssl {title} encrypt 16384 B", "openssl speed" + (" -aead" if aead else ""),
                             theirs, ours,
                             "theirs: its EVP calls per operation; ours: the whole seal (nonce, AAD, message, tag)"))
        if alg in REKEYED:
            rekeyed = _ours_runs(folder, "openssl", "aead", alg, "encrypt", 16384, ("tb_openssl_sym_run",),
                                 "tb_openssl_sym_run", rekey=1)
            rows.append(_row(f"openssl {title} encrypt 16384 B", "openssl speed -aead", theirs, rekeyed,
                             "ours with rekey=1: the key set again before every seal, as the command does"))
    return rows


def wolfssl_verify(folder: Path) -> list[Row]:
    from tlsbench.studies.fidelity_peers import PEERS, build_peer

    ours = _ours_runs(folder, "wolfssl", "sig", "ecdsa-p256-sha256", "verify", None, ("wc_ecc_verify_hash",),
                      "wc_ecc_verify_hash")
    hashed = _ours_runs(folder, "wolfssl", "sig", "ecdsa-p256-sha256", "verify", None, ("wc_Hash",), "wc_Hash")
    exe = build_peer(PEERS["wolfssl"])
    out = folder / "peer-wolfssl-ecc.cg"
    subprocess.run([*valgrind(), f"--callgrind-out-file={out}", exe, "-csv", "-ecc", "-p256"], capture_output=True,
                   timeout=900, check=True)
    theirs = Runs((out,), (sum(profile(out)["wc_ecc_verify_hash"].calls.values()),), ("wc_ecc_verify_hash",))
    return [_row("wolfssl ECDSA P-256 verify", "wolfCrypt benchmark", theirs, ours, "wc_ecc_verify_hash on both sides"),
            _row("wolfssl ECDSA P-256 verify", "wolfCrypt benchmark", theirs, (ours, hashed),
                 "ours with the message's SHA-256 (wc_Hash) added")]


def mbedtls_rsa_public(folder: Path) -> list[Row]:
    """Mbed TLS's benchmark generates an RSA key of each size (2048, 3072,
    4096) and times its raw public operation on it; callgrind dumps the
    profile when the 2048-bit context is freed, so the first dump holds the
    RSA-2048 calls only."""
    from tlsbench.studies.fidelity_peers import PEERS, build_peer

    ours = _ours_runs(folder, "mbedtls", "sig", "rsa2048-pkcs1-sha256", "verify", None, ("mbedtls_rsa_public",),
                      "mbedtls_rsa_public")
    whole = _ours_runs(folder, "mbedtls", "sig", "rsa2048-pkcs1-sha256", "verify", None, ("adapter_run",),
                       "adapter_run")
    exe = build_peer(PEERS["mbedtls"])
    out = folder / "peer-mbedtls-rsa.cg"
    subprocess.run([*valgrind(), f"--callgrind-out-file={out}", "--dump-after=mbedtls_rsa_free", exe, "rsa"],
                   capture_output=True, timeout=1800, check=True)
    first = folder / "peer-mbedtls-rsa.cg.1"
    if not first.exists():
        raise SetupError("callgrind wrote no dump at the first mbedtls_rsa_free of Mbed TLS's benchmark")
    # the first call also computes R^2 mod N for the context, once: over the
    # hundreds of calls of the 3-second window that is a small share (it cannot
    # be told apart from the same function's calls during key generation)
    theirs = Runs((first,), (sum(profile(first)["mbedtls_rsa_public"].calls.values()),), ("mbedtls_rsa_public",))
    return [_row("mbedtls RSA-2048 public operation", "Mbed TLS benchmark", theirs, ours,
                 "mbedtls_rsa_public on both sides (theirs: its first call's R^2 mod N included)"),
            _row("mbedtls RSA-2048 public operation", "Mbed TLS benchmark", theirs, whole,
                 "ours: the whole PKCS#1 v1.5 verify (hash, padding check, public operation)")]


def openssl_handshake(folder: Path, seconds: int = 4) -> list[Row]:
    from dataclasses import replace

    from cryptography.hazmat.primitives import serialization

    from tlsbench.families.tls import net
    from tlsbench.families.tls.cases import TlsCase
    from tlsbench.families.tls.certs import make_chain
    from tlsbench.studies.fidelity_handshakes import T13

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
        files, ops = [], []
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
            files.append(out)
            ops.append(sum(profile(out)["SSL_connect"].calls.values()))
        theirs = Runs(tuple(files), tuple(ops), ("SSL_do_handshake",))
        files, ops = [], []
        for repeats in (20, 60):
            ours_out = folder / f"ours-openssl-client-{case.verify_peer}-{repeats}.cg"
            ours_agent = paths.agent_path(versions.system_identifier("openssl"))  # the version s_time is
            r = net.run_over_tcp(_wrapper(folder, ours_agent, ours_out), "openssl-s_server", case,
                                 repeats=repeats, warmup=5, timeout=600)
            if r.status != "ok":
                raise SetupError(f"tlsbench openssl client under callgrind: {r.status}: {r.message}")
            files.append(ours_out)
            ops.append(sum(profile(ours_out)["SSL_new"].calls.values()))
        rows.append(_row(f"openssl TLS 1.3 handshake, client, {how}", "openssl s_time -new", theirs,
                         Runs(tuple(files), tuple(ops), ("SSL_do_handshake",)), "SSL_do_handshake per connection"))
    return rows


def wolfssl_handshake(folder: Path, seconds: int = 5) -> list[Row]:
    from tlsbench.families.tls.cases import TlsCase, run_handshakes
    from tlsbench.families.tls.certs import make_chain
    from tlsbench.studies.fidelity_handshakes import parse_tls_bench, tls_bench_args
    from tlsbench.studies.fidelity_peers import build_peer_target

    exe = build_peer_target("peer-wolfssl-tls-bench")
    funcs = ("wolfSSL_new", "wolfSSL_connect", "wolfSSL_accept", "wolfSSL_free")
    files, conns, totals = [], [], []
    for seconds_ in (seconds, 3 * seconds):
        out = folder / f"tls_bench-{seconds_}.cg"
        r = subprocess.run([*valgrind(), f"--callgrind-out-file={out}",
                            *tls_bench_args(exe, "ECDHE-RSA-AES128-GCM-SHA256", seconds_)],
                           capture_output=True, text=True, timeout=900, check=True)
        conns.append(parse_tls_bench(r.stdout + r.stderr)["client"][0])
        total = re.search(r"Collected : (\d+)", r.stderr)
        if total is None:
            raise SetupError("callgrind printed no total for tls_bench")
        files.append(out)
        totals.append(int(total.group(1)))
    theirs = Runs(tuple(files), tuple(conns), funcs)
    case = TlsCase(12, "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "p256", make_chain("rsa2048", "leaf"))
    ours_files, ours_ops = [], []
    for repeats in (20, 60):
        ours_out = folder / f"ours-wolfssl-memory-{repeats}.cg"
        res = run_handshakes(_wrapper(folder, paths.agent_path("wolfssl"), ours_out), case, repeats=repeats,
                             warmup=5, timeout=600)
        if res.status != "ok":
            raise SetupError(f"tlsbench wolfssl handshakes under callgrind: {res.status}: {res.message}")
        ours_files.append(ours_out)
        ours_ops.append(sum(profile(ours_out)["wolfSSL_new"].calls.values()) // 2)  # one per side
    ours = Runs(tuple(ours_files), tuple(ours_ops), funcs)
    whole = _steady((totals[0], conns[0]), (totals[1], conns[1]))
    return [_row("wolfssl TLS 1.2 ECDHE-RSA handshake, both sides", "tls_bench -m", theirs, ours,
                 "wolfSSL_new/connect/accept/free of both sides per connection"),
            Row("wolfssl TLS 1.2 ECDHE-RSA handshake, both sides", "tls_bench -m (whole program)", whole,
                ours.per_op(), "its whole program (both threads) per connection")]


PAIRS: dict[str, Callable[[Path], list[Row]]] = {
    "aead": aead_seal, "ecdsa-verify": wolfssl_verify, "rsa-verify": mbedtls_rsa_public,
    "openssl-handshake": openssl_handshake, "wolfssl-handshake": wolfssl_handshake,
}


def collect(names: list[str], sim: bool = False) -> list[Row]:
    global _sim
    _sim = sim
    try:
        with tempfile.TemporaryDirectory(prefix="tlsbench-counts-") as tmp:
            return [row for n in names for row in PAIRS[n](Path(tmp))]
    finally:
        _sim = False


def render(rows: list[Row]) -> str:
    lines = [f"{'operation':48} {'tool':30} {'tool instr/op':>14} {'tlsbench':>14} {'ratio':>6}  counted"]
    for r in rows:
        lines.append(f"{r.pair:48} {r.tool:30} {r.tool_per_op:14,.0f} {r.ours_per_op:14,.0f} {r.ratio:6.3f}  {r.what}")
        for label, (tool, ours) in r.sim.items():
            lines.append(f"{'':48} {'  ' + label + ' per operation':30} {tool:14,.1f} {ours:14,.1f}")
    return "\n".join(lines) + "\n"


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("fidelity-counts", help="instructions per operation under callgrind, each library's own"
                       " benchmark program against tlsbench (scripts/fidelity-counts)",
                       description=__doc__.splitlines()[0])
    p.add_argument("pairs", nargs="*", metavar="PAIR", type=pair_of(PAIRS),
                   help=f"which pairs: {', '.join(PAIRS)} (default: all)")
    p.add_argument("--sim", action="store_true",
                   help="also simulate caches and branch predictors: D1 and LL misses, mispredicts per operation")
    p.set_defaults(func=command)


def command(args: argparse.Namespace) -> int:
    try:
        print(render(collect(args.pairs or list(PAIRS), args.sim)), end="")
    except (subprocess.CalledProcessError, KeyError) as e:
        raise SetupError(f"fidelity-counts: {e}") from None
    return 0
