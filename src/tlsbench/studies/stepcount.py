"""Exact native instruction counts of a running process, by single-stepping
it under ptrace (x86-64 Linux).

valgrind runs a program on its own model of the CPU, which has no AVX-512
and no ADX: a library that picks its code by CPUID (OpenSSL's AES-GCM,
wolfSSL's SP maths) takes another path under callgrind than natively, and
callgrind's counts describe that path. Single-stepping runs the real code
on the real CPU and stops after every instruction, so the count is the
instructions the native process retires (a rep-prefixed string instruction
is counted once, as the CPU counts it, not once per element). It is slow
(microseconds per instruction), so it counts a few operations, not a run.

The process is one we started; we attach to it, stop it at a function's
entry with a breakpoint, count, and kill it.
"""

from __future__ import annotations

import bisect
import ctypes
import os
import platform
import re
import signal
import subprocess
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from tlsbench.errors import SetupError

_PEEKDATA, _POKEDATA, _CONT, _SINGLESTEP = 2, 5, 7, 9
_GETREGS, _SETREGS, _ATTACH = 12, 13, 16
_WORD = (1 << 64) - 1


class _Regs(ctypes.Structure):  # struct user_regs_struct, x86-64
    _fields_ = [(n, ctypes.c_ulonglong) for n in (
        "r15", "r14", "r13", "r12", "rbp", "rbx", "r11", "r10", "r9", "r8", "rax", "rcx", "rdx", "rsi",
        "rdi", "orig_rax", "rip", "cs", "eflags", "rsp", "ss", "fs_base", "gs_base", "ds", "es", "fs", "gs")]


def _libc() -> ctypes.CDLL:
    if platform.system() != "Linux" or platform.machine() not in ("x86_64", "AMD64"):
        raise SetupError(f"native instruction counts need x86-64 Linux (this is {platform.system()} "
                         f"{platform.machine()})")
    libc = ctypes.CDLL(None, use_errno=True)
    libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p]
    libc.ptrace.restype = ctypes.c_long
    return libc


@dataclass(frozen=True)
class Mapping:
    start: int
    end: int
    offset: int
    path: str


def parse_maps(text: str) -> list[Mapping]:
    """/proc/PID/maps: `start-end perms offset dev inode [path]`."""
    out = []
    for line in text.splitlines():
        f = line.split(None, 5)
        if len(f) < 5:
            continue
        lo, hi = (int(x, 16) for x in f[0].split("-"))
        out.append(Mapping(lo, hi, int(f[2], 16), f[5].strip() if len(f) == 6 else ""))
    return sorted(out, key=lambda m: m.start)


def load_base(maps: list[Mapping], path: str) -> int:
    """Where the file's offset 0 is mapped (PIE executables and shared libraries)."""
    first = min((m for m in maps if m.path == path), key=lambda m: m.start, default=None)
    if first is None:
        raise SetupError(f"{path} is not mapped in the process")
    return first.start - first.offset


def parse_nm(text: str) -> dict[str, int]:
    """`nm --defined-only` lines `0000000000123abc T name`: text symbols only."""
    found: dict[str, int] = {}
    for line in text.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in "TtWi":
            found.setdefault(f[2].split("@")[0], int(f[0], 16))
    return found


def symbols(path: str, exported: bool = True) -> dict[str, int]:
    """The file's function symbols: its full table, else (if `exported`) the
    dynamic one of a stripped library."""
    for args in (["nm", "--defined-only", path], *([["nm", "-D", "--defined-only", path]] if exported else [])):
        r = subprocess.run(args, capture_output=True, text=True)
        if r.returncode == 0 and r.stdout.strip():
            return parse_nm(r.stdout)
    raise SetupError(f"no symbols in {path} (nm: install binutils)")


def _is_dyn(path: str) -> bool:
    with open(path, "rb") as f:
        head = f.read(18)
    return head[:4] == b"\x7fELF" and int.from_bytes(head[16:18], "little") == 3  # ET_DYN


@dataclass
class Op:
    """One operation's counts: all its instructions, the inclusive counts of
    the watched functions it called (outermost watched calls only), the
    instructions by mapped file, and how many signals arrived meanwhile."""
    instructions: int = 0
    calls: dict[str, int] = field(default_factory=dict)
    by_file: Counter = field(default_factory=Counter)
    at: Counter = field(default_factory=Counter)  # instruction address -> times executed
    lines: list[int] = field(default_factory=list)  # the 64-byte code lines in the order they were entered
    args: dict[str, tuple[int, ...]] = field(default_factory=dict)  # a watched function's first call's arguments
    signals: int = 0


class Tracee:
    """A child process we started, attached to and stopped."""

    def __init__(self, pid: int):
        self.libc = _libc()
        self.pid = pid
        self._call(_ATTACH, 0, 0)
        self._wait_stop()
        self.maps = parse_maps(Path(f"/proc/{pid}/maps").read_text())
        self._starts = [m.start for m in self.maps]

    def _call(self, req: int, addr: int, data: int) -> int:
        ctypes.set_errno(0)
        r = self.libc.ptrace(req, self.pid, ctypes.c_void_p(addr), ctypes.c_void_p(data))
        err = ctypes.get_errno()
        if r == -1 and err:
            raise SetupError(f"ptrace({req}) on process {self.pid}: {os.strerror(err)}")
        return r & _WORD

    def _wait_stop(self) -> int:
        _, status = os.waitpid(self.pid, 0)
        if not os.WIFSTOPPED(status):
            raise SetupError(f"process {self.pid} ended while counted (status {status})")
        return os.WSTOPSIG(status)

    def regs(self) -> _Regs:
        r = _Regs()
        self._call(_GETREGS, 0, ctypes.addressof(r))
        return r

    def set_regs(self, r: _Regs) -> None:
        self._call(_SETREGS, 0, ctypes.addressof(r))

    def peek(self, addr: int) -> int:
        return self._call(_PEEKDATA, addr, 0)

    def poke(self, addr: int, word: int) -> None:
        self._call(_POKEDATA, addr, word)

    def address(self, path: str, name: str) -> int:
        """A function's address in the process (path: the file as mapped)."""
        syms = symbols(path)
        if name not in syms:
            raise SetupError(f"{name} is not a function of {path}")
        return syms[name] + (load_base(self.maps, path) if _is_dyn(path) else 0)

    def mapped(self, suffix: str) -> str:
        """The mapped file whose path ends in suffix."""
        for m in self.maps:
            if m.path.endswith(suffix):
                return m.path
        raise SetupError(f"no file ending in {suffix} is mapped in process {self.pid}")

    def file_of(self, addr: int) -> str:
        i = bisect.bisect_right(self._starts, addr) - 1
        if i >= 0 and addr < self.maps[i].end:
            return Path(self.maps[i].path).name or "[anon]"
        return "?"

    def run_to(self, addr: int, deliver: bool) -> int:
        """Lets the process run until it enters addr (a breakpoint, removed on
        arrival); signals that arrive meanwhile are passed on if `deliver`,
        else dropped (a benchmark's end-of-window alarm: it would end the loop
        being counted). Returns how many were dropped or passed on."""
        word = self.peek(addr)
        self.poke(addr, (word & ~0xFF) | 0xCC)
        seen, sig = 0, 0
        while True:
            self._call(_CONT, 0, sig)
            got = self._wait_stop()
            if got == signal.SIGTRAP:
                r = self.regs()
                if r.rip == addr + 1:
                    break
                sig = 0
            else:
                seen += 1
                sig = got if deliver else 0
        self.poke(addr, word)
        r.rip = addr
        self.set_regs(r)
        return seen

    def step(self, deliver: bool) -> tuple[_Regs, int]:
        """One instruction (or one element of a rep-prefixed one)."""
        sig, seen = 0, 0
        while True:
            self._call(_SINGLESTEP, 0, sig)
            got = self._wait_stop()
            if got == signal.SIGTRAP:
                return self.regs(), seen
            seen += 1
            sig = got if deliver else 0

    def kill(self) -> None:
        try:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass


def count_calls(t: Tracee, entry: int, watched: dict[int, str], ops: int, deliver: bool = False,
                max_steps: int = 50_000_000) -> list[Op]:
    """`ops` calls of the function at `entry`, each from its first instruction
    to its return (inclusive)."""
    out = []
    for _ in range(ops):
        op = Op(signals=t.run_to(entry, deliver))
        r = t.regs()
        ret, sp = t.peek(r.rsp), r.rsp + 8
        _walk(t, op, r, watched, lambda rr, ret=ret, sp=sp: rr.rip == ret and rr.rsp == sp, deliver, max_steps)
        out.append(op)
    return out


def count_loop(t: Tracee, entry: int, watched: dict[int, str], ops: int, deliver: bool = False,
               max_steps: int = 50_000_000) -> list[Op]:
    """`ops` turns of a loop, each from one entry of the function at `entry`
    to the next: the operation with everything the loop does around it."""
    signals = t.run_to(entry, deliver)
    r = t.regs()
    out = []
    for _ in range(ops):
        op = Op(signals=signals)
        r = _walk(t, op, r, watched, lambda rr: rr.rip == entry, deliver, max_steps)
        signals = 0
        out.append(op)
    return out


def _walk(t: Tracee, op: Op, r: _Regs, watched: dict[int, str], done, deliver: bool, max_steps: int) -> _Regs:
    open_calls: list[tuple[str, int, int, int]] = []  # (name, return address, stack after return, count at entry)
    if r.rip in watched:
        name = watched[r.rip]
        op.args.setdefault(name, (r.rdi, r.rsi, r.rdx, r.rcx, r.r8, r.r9, t.peek(r.rsp + 8), t.peek(r.rsp + 16)))
        open_calls.append((name, t.peek(r.rsp), r.rsp + 8, 0))
    steps = 0
    while True:
        at = r.rip
        r, seen = t.step(deliver)
        op.signals += seen
        steps += 1
        if steps > max_steps:
            raise SetupError(f"no end of the operation after {max_steps:,} steps")
        if r.rip != at:  # a rep-prefixed instruction stays put until its last element
            op.instructions += 1
            op.at[at] += 1
            if not op.lines or op.lines[-1] != at >> 6:
                op.lines.append(at >> 6)
        # a watched function that tail-calls another (jmp) returns from both at once
        while open_calls and r.rip == open_calls[-1][1] and r.rsp == open_calls[-1][2]:
            name, _, _, n0 = open_calls.pop()
            if not open_calls:
                op.calls[name] = op.calls.get(name, 0) + op.instructions - n0
        if done(r):
            for a, n in op.at.items():
                op.by_file[t.file_of(a)] += n
            return r
        if r.rip in watched:
            name = watched[r.rip]
            if name not in op.args:  # the System V argument registers, then two words of the stack
                op.args[name] = (r.rdi, r.rsi, r.rdx, r.rcx, r.r8, r.r9, t.peek(r.rsp + 8), t.peek(r.rsp + 16))
            open_calls.append((name, t.peek(r.rsp), r.rsp + 8, op.instructions))


def by_function(t: Tracee, op: Op, top: int = 8) -> list[tuple[str, int, int]]:
    """The op's most executed functions: (name, instructions, the function's
    address in the process), from each mapped file's full symbol table; a
    stripped library's code counts as one entry, `file (no symbols)` (its
    exported names would wrongly name its internal functions)."""
    tables: dict[str, tuple[list[int], list[str]]] = {}
    found: Counter = Counter()
    where: dict[str, int] = {}
    for a, n in op.at.items():
        i = bisect.bisect_right(t._starts, a) - 1
        path = t.maps[i].path if i >= 0 and a < t.maps[i].end else ""
        if not path.startswith("/"):
            found["?"] += n
            continue
        if path not in tables:
            base = load_base(t.maps, path) if _is_dyn(path) else 0
            try:
                syms = sorted((v + base, k) for k, v in symbols(path, exported=False).items())
            except SetupError:
                syms = []
            tables[path] = ([v for v, _ in syms], [k for _, k in syms])
        starts, names = tables[path]
        j = bisect.bisect_right(starts, a) - 1
        name = names[j] if j >= 0 else f"{Path(path).name} (no symbols)"
        found[name] += n
        where.setdefault(name, starts[j] if j >= 0 else 0)
    return [(k, v, where.get(k, 0)) for k, v in found.most_common(top)]


def icache_misses(lines: list[int], size: int = 32768, ways: int = 8) -> tuple[int, int]:
    """Misses of an LRU instruction cache of 64-byte lines (default: 32 KiB,
    8 ways, as the L1I of AMD Zen 2-4) on the second of two passes over an
    operation's code lines, i.e. in a loop of it; and the most lines of the
    operation that fall into one set (more than `ways`: conflict misses)."""
    sets = size // 64 // ways
    cache: list[list[int]] = [[] for _ in range(sets)]
    misses = 0
    for rnd in (0, 1):
        for ln in lines:
            s = cache[ln % sets]
            if ln in s:
                s.remove(ln)
            else:
                misses += rnd
                if len(s) == ways:
                    s.pop(0)
            s.append(ln)
    crowd = Counter(ln % sets for ln in set(lines))
    return misses, max(crowd.values(), default=0)


def vector_mix(t: Tracee, op: Op) -> dict[str, int]:
    """The op's instructions by the widest vector register they name
    (zmm: AVX-512, ymm: AVX/AVX2, xmm: SSE/AVX-128, none), from objdump's
    disassembly of the executed addresses."""
    mix: Counter = Counter()
    by_file: dict[str, list[int]] = {}
    for a in op.at:
        i = bisect.bisect_right(t._starts, a) - 1
        if i >= 0 and a < t.maps[i].end and t.maps[i].path.startswith("/"):
            by_file.setdefault(t.maps[i].path, []).append(a)
        else:
            mix["unknown"] += op.at[a]
    for path, addrs in by_file.items():
        base = load_base(t.maps, path) if _is_dyn(path) else 0
        text = _disassemble(path, sorted(a - base for a in addrs))
        for a in addrs:
            ins = text.get(a - base)
            width = "unknown" if ins is None else next((w for w in ("zmm", "ymm", "xmm") if f"%{w}" in ins), "none")
            mix[width] += op.at[a]
    return dict(mix)


_INS = re.compile(r"^\s*([0-9a-f]+):\s+(\S.*)$")


def _disassemble(path: str, addrs: list[int]) -> dict[int, str]:
    """objdump's text of the instructions at addrs (file virtual addresses),
    one disassembly per cluster of nearby addresses."""
    out: dict[int, str] = {}
    i = 0
    while i < len(addrs):
        j = i
        while j + 1 < len(addrs) and addrs[j + 1] - addrs[j] < 4096:
            j += 1
        r = subprocess.run(["objdump", "-d", "--no-show-raw-insn", f"--start-address={addrs[i]:#x}",
                            f"--stop-address={addrs[j] + 16:#x}", path], capture_output=True, text=True)
        for line in r.stdout.splitlines():
            m = _INS.match(line)
            if m:
                out[int(m.group(1), 16)] = m.group(2)
        i = j + 1
    return out


def wait_mapped(pid: int, suffix: str, timeout: float = 30) -> None:
    """Waits until the process has mapped a file ending in suffix (its
    libraries are loaded after exec, by the dynamic loader)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            if any(m.path.endswith(suffix) for m in parse_maps(Path(f"/proc/{pid}/maps").read_text())):
                return
        except FileNotFoundError:
            break
        time.sleep(0.01)
    raise SetupError(f"process {pid} did not map {suffix} within {timeout:.0f} s")
