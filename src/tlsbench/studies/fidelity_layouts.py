"""Does code layout move an own-benchmark comparison? (`scripts/fidelity-layouts`)

The agent is relinked whenever our code changes, the peer program never, so
a figure that moved between builds of the same library code points at where
the code lands. This tool tests that on purpose: it relinks both the peer
program and our agent with a block of N bytes of code placed ahead of every
other object (all of the program's code, the library's included, then starts
N bytes later, rounded up to each section's alignment), for several N, and
times every variant alternately, several rounds, best round of each, in CPU
time on both sides (fidelity_peers). If layout were the cause, some N would
move a side's own figure by about as much as the gap.

Nothing here is a quiet-machine figure: run it where the load is known and
read the ratios within one run.
"""

from __future__ import annotations

import argparse
import os
import random
import shlex
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from tlsbench import paths
from tlsbench.errors import SetupError
from tlsbench.studies import fidelity_peers as fp


@dataclass(frozen=True)
class Subject:
    library: str
    agent_target: str  # the agent's CMake target (and executable)
    peer_args: tuple[str, ...]  # the peer program's arguments that time this operation
    pair: fp.Pair


def _pair(library: str, alg: str, op: str) -> fp.Pair:
    return next(p for p in fp.PEERS[library].pairs if p.alg == alg and p.op == op)


SUBJECTS = {
    "wolfssl-ecdsa-verify": Subject("wolfssl", "tlsbench-agent-wolfssl", ("-csv", "-ecc", "-p256"),
                                    _pair("wolfssl", "ecdsa-p256-sha256", "verify")),
    "mbedtls-rsa-verify": Subject("mbedtls", "tlsbench-agent-mbedtls", ("rsa",),
                                  _pair("mbedtls", "rsa2048-pkcs1-sha256", "verify")),
}
DEFAULT_PADS = (0, 16, 32, 48, 64, 256, 1024, 2048)


def link_command(folder: Path, target: str) -> list[str]:
    """The compiler command that links `target` in the host build (ninja's own)."""
    r = subprocess.run(["ninja", "-C", str(folder), "-t", "commands", target], capture_output=True, text=True)
    if r.returncode != 0 or not r.stdout.strip():
        raise SetupError(f"ninja knows no commands for {target} in {folder}: {r.stderr.strip()[-200:]}")
    line = r.stdout.strip().splitlines()[-1]
    words = shlex.split(line)
    # ninja wraps a link as ": && cc ... && :"
    if words[:2] == [":", "&&"]:
        words = words[2:]
    if words[-2:] == ["&&", ":"]:
        words = words[:-2]
    if "-o" not in words:
        raise SetupError(f"the last command for {target} is not a link: {line[:120]}")
    return words


def pad_object(folder: Path, size: int) -> Path:
    """An object holding `size` bytes of code (int3), aligned to 1."""
    src = folder / f"pad{size}.s"
    src.write_text('.section .note.GNU-stack,"",@progbits\n.text\n.p2align 0\n'
                   f".globl tb_layout_pad\ntb_layout_pad:\n.skip {max(size, 1)}, 0xcc\n")
    obj = folder / f"pad{size}.o"
    subprocess.run(["cc", "-c", str(src), "-o", str(obj)], check=True)
    return obj


def relink(build: Path, target: str, pad: Path | None, out: Path) -> Path:
    """`target` linked again into `out`, with `pad` ahead of its first object."""
    words = link_command(build, target)
    at = words.index("-o")
    words[at + 1] = str(out)
    if pad is not None:
        first = next(i for i, w in enumerate(words) if w.endswith(".o"))
        words.insert(first, str(pad))
    r = subprocess.run(words, cwd=build, capture_output=True, text=True)
    if r.returncode != 0:
        raise SetupError(f"relinking {target} failed: {r.stderr.strip()[-300:]}")
    return out


def run(subject: Subject, pads: tuple[int, ...], rounds: int, work: Path) -> dict[tuple[str, int], list[float]]:
    """op/s of every variant, every round: keys ("peer" | "ours", pad)."""
    from tlsbench.families.primitive import keys as keys_mod

    build = paths.build_dir("host")
    peer = fp.PEERS[subject.library]
    fp.build_peer(peer)
    variants: dict[tuple[str, int], Path] = {}
    for n in pads:
        obj = pad_object(work, n) if n else None
        variants[("peer", n)] = relink(build, peer.target, obj, work / f"peer-{n}")
        variants[("ours", n)] = relink(build, subject.agent_target, obj, work / f"agent-{n}")
    keys = keys_mod.generate()
    figures: dict[tuple[str, int], list[float]] = {v: [] for v in variants}
    for r in range(rounds):
        order = list(variants)
        random.Random(r).shuffle(order)  # a slow phase falls on different variants in each round
        for side, n in order:
            exe = variants[(side, n)]
            if side == "peer":
                out = subprocess.run([str(exe), *subject.peer_args], capture_output=True, text=True, timeout=600)
                figures[(side, n)].append(peer.parse(out.stdout)[subject.pair.peer_key])
            else:
                figures[(side, n)].append(fp.ours(subject.library, subject.pair, keys, exe))
        print(f"round {r + 1}/{rounds} done (load {os.getloadavg()[0]:.1f})", file=sys.stderr, flush=True)
    return figures


def render(figures: dict[tuple[str, int], list[float]], pads: tuple[int, ...]) -> str:
    lines = [f"{'side':5} {'pad B':>6} {'best op/s':>11} {'/ pad 0':>8} {'median op/s':>12}"]
    for side in ("peer", "ours"):
        ref = max(figures[(side, pads[0])])
        for n in pads:
            xs = sorted(figures[(side, n)])
            lines.append(f"{side:5} {n:6} {xs[-1]:11,.0f} {xs[-1] / ref:8.3f} {xs[len(xs) // 2]:12,.0f}")
    best = {side: max(max(figures[(side, n)]) for n in pads) for side in ("peer", "ours")}
    worst = {side: min(max(figures[(side, n)]) for n in pads) for side in ("peer", "ours")}
    lines.append(f"ours / peer, unpadded: {max(figures[('ours', pads[0])]) / max(figures[('peer', pads[0])]):.3f}; "
                 f"over all layouts: {worst['ours'] / best['peer']:.3f}-{best['ours'] / worst['peer']:.3f}")
    return "\n".join(lines) + "\n"


def _pads(text: str) -> tuple[int, ...]:
    """--pads: byte counts of code placed ahead, 0..1 MiB each."""
    try:
        pads = tuple(int(x) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: comma-separated byte counts, e.g. 0,64,1024") from None
    if any(n < 0 or n > 1 << 20 for n in pads):
        raise argparse.ArgumentTypeError(f"{text!r}: pads must be 0..1048576 bytes (comma-separated byte counts)")
    return pads


def _rounds(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: --rounds must be at least 1")
    return int(text)


def add_parser(sub: argparse._SubParsersAction) -> None:
    ap = sub.add_parser("layouts", help="does code layout move an own-benchmark comparison? (peer program and"
                        " agent relinked with N bytes of code ahead, timed alternately)",
                        description=__doc__.splitlines()[0])
    ap.add_argument("subject", choices=sorted(SUBJECTS))
    ap.add_argument("--pads", type=_pads, default=DEFAULT_PADS,
                    help="bytes of code placed ahead of the program's own (comma-separated, first is the reference;"
                         f" default {','.join(map(str, DEFAULT_PADS))})")
    ap.add_argument("--rounds", type=_rounds, default=7, help="alternations (default 7)")
    ap.set_defaults(func=command)


def command(a: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory(prefix="tlsbench-layouts-") as tmp:
        figures = run(SUBJECTS[a.subject], a.pads, a.rounds, Path(tmp))
    print(render(figures, a.pads), end="")
    return 0
