"""Native instruction counts by single-stepping: a program whose operation
is straight-line code (so objdump's listing of it is its exact count) is
counted exactly, a 4 KiB `rep stosb` counts as one instruction, a loop's
turn adds exactly the loop's own instructions, and the vector mix names
the register widths the operation used. The readers of /proc/PID/maps and
nm are checked on fixed text."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tlsbench import cli
from tlsbench.studies import stepcount

PROGRAM = r"""
char fill[4096];
__attribute__((noinline)) void op(void)
{
    __asm__ volatile(".rept 1000\n\tnop\n\t.endr\n\t"
                     "vpxor %%ymm0, %%ymm0, %%ymm0\n\t"
                     "pxor %%xmm1, %%xmm1\n\t"
                     "lea fill(%%rip), %%rdi\n\t"
                     "mov $4096, %%ecx\n\t"
                     "xor %%eax, %%eax\n\t"
                     "rep stosb\n\t"
                     "vzeroupper"
                     ::: "rax", "rcx", "rdi", "xmm0", "xmm1", "memory");
}
__attribute__((noinline)) void inner(void)
{
    __asm__ volatile(".rept 100\n\tnop\n\t.endr");
}
__attribute__((noinline)) void outer(void)
{
    __asm__ volatile("nop");
    inner(); /* a tail call at -O2: jmp, one return for both */
}
int main(void)
{
    for (;;) {
        op();
        outer();
    }
}
"""

needs_native = pytest.mark.skipif(
    shutil.which("cc") is None or shutil.which("objdump") is None or "avx" not in Path("/proc/cpuinfo").read_text(),
    reason="needs cc, objdump and an x86-64 CPU with AVX")


@pytest.fixture(scope="module")
def program(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("steps")
    (d / "op.c").write_text(PROGRAM)
    exe = d / "op"
    subprocess.run(["cc", "-O2", "-fcf-protection=none", "-o", str(exe), str(d / "op.c")], check=True)
    return exe


def _listing(exe: Path, func: str) -> list[str]:
    """objdump's instructions of one straight-line function, up to its ret or
    tail jump (the alignment padding after it never runs)."""
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", str(exe)], capture_output=True, text=True,
                         check=True).stdout
    body = out.split(f"<{func}>:\n", 1)[1].split("\n\n", 1)[0]
    lines = []
    for line in body.splitlines():
        m = re.match(r"^\s*[0-9a-f]+:\s+(\S+)", line)
        if m:
            lines.append(line)
            if m.group(1) in ("ret", "jmp"):
                break
    return lines


def _traced(exe: Path) -> tuple[subprocess.Popen, stepcount.Tracee]:
    proc = subprocess.Popen([str(exe)])
    stepcount.wait_mapped(proc.pid, exe.name)
    return proc, stepcount.Tracee(proc.pid)


@needs_native
def test_a_call_is_counted_exactly_and_rep_counts_once(program: Path) -> None:
    listing = _listing(program, "op")
    assert sum("rep stos" in line for line in listing) == 1
    proc, t = _traced(program)
    try:
        entry = t.address(t.mapped(program.name), "op")
        ops = stepcount.count_calls(t, entry, {entry: "op"}, 2)
    finally:
        t.kill()
        proc.wait()
    # straight-line code: each listed instruction runs once, the 4,096 stores of rep stosb as one
    assert [o.instructions for o in ops] == [len(listing)] * 2
    assert [o.calls for o in ops] == [{"op": len(listing)}] * 2
    assert ops[0].by_file == {program.name: len(listing)}
    assert ops[0].signals == 0


@needs_native
def test_a_loop_turn_adds_the_loops_own_instructions(program: Path) -> None:
    proc, t = _traced(program)
    try:
        entry = t.address(t.mapped(program.name), "op")
        ops = stepcount.count_loop(t, entry, {entry: "op"}, 2)
        mix = stepcount.vector_mix(t, ops[1])
    finally:
        t.kill()
        proc.wait()
    n = len(_listing(program, "op"))
    m = len(_listing(program, "outer")) + len(_listing(program, "inner"))
    # main's loop at -O2 is `call op; call outer; jmp back`
    assert [o.instructions for o in ops] == [n + m + 3] * 2
    assert [o.calls for o in ops] == [{"op": n}] * 2
    assert mix == {"ymm": 1, "xmm": 1, "none": n + m + 3 - 2}


@needs_native
def test_a_tail_call_returns_from_both_functions(program: Path) -> None:
    assert any("jmp" in line and "<inner>" in line for line in _listing(program, "outer"))
    proc, t = _traced(program)
    try:
        exe = t.mapped(program.name)
        outer, inner = t.address(exe, "outer"), t.address(exe, "inner")
        ops = stepcount.count_calls(t, outer, {outer: "outer", inner: "inner"}, 2)
    finally:
        t.kill()
        proc.wait()
    m = len(_listing(program, "outer")) + len(_listing(program, "inner"))
    # the outermost watched call only, counted once, with what it jumped to
    assert [o.calls for o in ops] == [{"outer": m}] * 2


MAPS = """\
55d0c0a00000-55d0c0a01000 r--p 00000000 08:01 1234 /tmp/x/op
55d0c0a01000-55d0c0a02000 r-xp 00001000 08:01 1234 /tmp/x/op
7f1e2c000000-7f1e2c100000 r--p 00000000 08:01 99 /usr/lib/x86_64-linux-gnu/libcrypto.so.3
7f1e2c100000-7f1e2c400000 r-xp 00100000 08:01 99 /usr/lib/x86_64-linux-gnu/libcrypto.so.3
7ffc1a000000-7ffc1a021000 rw-p 00000000 00:00 0 [stack]
7ffc1a100000-7ffc1a102000 rw-p 00000000 00:00 0
"""


def test_maps_and_symbols_are_read_exactly() -> None:
    maps = stepcount.parse_maps(MAPS)
    assert [m.path for m in maps][-2:] == ["[stack]", ""]
    assert stepcount.load_base(maps, "/usr/lib/x86_64-linux-gnu/libcrypto.so.3") == 0x7F1E2C000000
    assert stepcount.load_base(maps, "/tmp/x/op") == 0x55D0C0A00000
    with pytest.raises(stepcount.SetupError, match="not mapped"):
        stepcount.load_base(maps, "/nowhere")
    nm = "0000000000001139 T op\n0000000000004040 B fill\n0000000000001040 T main\n" \
         "00000000001a2b30 T EVP_EncryptUpdate@@OPENSSL_3.0.0\n                 U memset\n"
    assert stepcount.parse_nm(nm) == {"op": 0x1139, "main": 0x1040, "EVP_EncryptUpdate": 0x1A2B30}


def test_an_unknown_pair_is_one_clear_error(capsys) -> None:
    with pytest.raises(SystemExit):
        cli.main(["study", "native-counts", "aes"])
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert "unknown pair 'aes'; known: aead, ecdsa-verify, rsa-verify" in err
