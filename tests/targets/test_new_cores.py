"""The Cortex-M33 (qemu:mps2-an505, Armv8-M mainline) and the RV32 class core
(qemu:rv32-virt, RV32IMC with picolibc) run the same firmware as the ARMv7-M
boards: a loop of known length counts exactly, a primitive gives its known
bytes and the same exact instruction count in two fresh emulator runs, and a
TLS 1.3 handshake completes in the image, with the same bytes each way as
on the M4. Both firmware libraries (Mbed TLS and wolfSSL) are built per
core, default profiles only."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from conftest import needs_tools

from tlsbench.engine import agent
from tlsbench.engine.protocol import encode_request
from tlsbench.targets import boardprofiles, build, cyclemodel
from tlsbench.targets import target as targets

pytestmark = needs_tools("qemu-system-arm", "arm-none-eabi-gcc", "qemu-system-riscv32", "riscv64-unknown-elf-gcc")

CORES = ["mps2-an505", "rv32-virt"]
MESSAGE = bytes(range(200))


@pytest.fixture(scope="module", params=CORES)
def core(request: pytest.FixtureRequest, firmware_images) -> targets.Target:
    return firmware_images(targets.parse(f"qemu:{request.param}"))


def _call(t: targets.Target, library: str, requests: list[str]) -> list[agent.Response]:
    return agent.call(targets.write_launcher(t, library), requests, 300, f"{t.name} test").responses


def test_a_loop_of_known_length_counts_exactly_its_length_plus_a_constant(core: targets.Target) -> None:
    """calibrate runs a two-instruction loop n times (subs/bne on the M33,
    addi/bnez on RV32): 2n plus the same few instructions for every n."""
    ns = [1, 1000, 1_000_000]
    cal = [r.of_type("calibrate")[0] for r in _call(core, "selftest", [f"calibrate n={n}" for n in ns])]
    assert {int(c["measured"]) - 2 * int(c["n"]) for c in cal} == {3}
    assert all(int(c["empty"]) == 0 for c in cal)


def test_heap_of_known_size_each_block_counted_once(core: targets.Target) -> None:
    """The selftest double: its state is one calloc, md5 mallocs 100000 bytes
    and frees them, sha1 keeps 5000. picolibc's calloc calls malloc by name:
    counted once, the C library's usable size of the block (newlib 36 B,
    picolibc 44 B for the state), never twice."""
    md5, sha1 = _call(core, "selftest", ["bench kind=hash alg=md5 op=hash size=64 repeats=1 warmup=0",
                                         "bench kind=hash alg=sha1 op=hash size=64 repeats=1 warmup=0"])
    state = {"mps2-an505": 36, "rv32-virt": 44}[core.board.name]
    assert md5.of_type("memory")[0].fields == {"setup_heap_peak": state, "setup_heap_held": state,
                                                "heap_peak": 100_004, "heap_held": 0, "allocs": 1,
                                                "stack": md5.of_type("memory")[0]["stack"]}
    mem = sha1.of_type("memory")[0]
    assert (mem["heap_peak"], mem["heap_held"], mem["allocs"]) == (5_004, 5_004, 1)


@pytest.mark.parametrize("library", build.FIRMWARE_LIBRARIES)
def test_sha256_gives_its_bytes_and_the_same_count_in_two_runs(core: targets.Target, library: str) -> None:
    compute = encode_request("compute", kind="hash", alg="sha256", op="hash", msg=MESSAGE)
    bench = "bench kind=hash alg=sha256 op=hash size=64 repeats=3 warmup=1"
    runs = [_call(core, library, [compute, bench]) for _ in range(2)]
    for out, _ in runs:
        assert out.status == "ok", out.message
        assert out.of_type("out")[0]["data"] == hashlib.sha256(MESSAGE).digest()

    def counts(resp: agent.Response) -> list[int]:
        return [int(s["instructions"]) for s in resp.of_type("sample")]

    first, second = counts(runs[0][1]), counts(runs[1][1])
    assert len(first) == 3 and len(set(first)) == 1 and first == second
    assert 4_000 < first[0] < 20_000  # one 64-byte block and the padding block: thousands, not a stray count
    assert runs[0][1].of_type("memory")[0].fields == runs[1][1].of_type("memory")[0].fields


# bytes each way of the seeded TLS 1.3 handshake below on the M4 (qemu:mps2-an386, the same chain and random
# stream): the ClientHello, key share and Finished; the server's flight with its ECDSA signature. wolfSSL 5.9's
# ClientHello offers ML-DSA-44/65/87 (0x0904-0x0906) among its signature algorithms: 6 bytes more than 5.7.2's 243
M4_BYTES = {"mbedtls": (269, 1705), "wolfssl": (249, 1636)}


@pytest.mark.parametrize("library", build.FIRMWARE_LIBRARIES)
def test_a_tls13_handshake_completes_in_the_image(core: targets.Target, library: str) -> None:
    from tlsbench.families.primitive.keys import MATERIAL_SEED
    from tlsbench.families.primitive.randomness import Source
    from tlsbench.families.tls.cases import TlsCase, handshake_request
    from tlsbench.families.tls.certs import make_chain

    chain = make_chain("ecdsa-p256", src=Source(MATERIAL_SEED))
    req = handshake_request(TlsCase(13, "TLS_AES_128_GCM_SHA256", "x25519", chain), repeats=1, warmup=0)
    resp, again = (_call(core, library, [req])[0] for _ in range(2))  # two fresh boots
    assert resp.status == "ok", resp.message
    mem = resp.of_type("tls_memory")[0]
    assert int(mem["client_heap_peak"]) > 0 and int(mem["server_heap_peak"]) > 0
    sample = resp.of_type("tls")[0]
    assert int(sample["client_instructions"]) > 1_000_000 and int(sample["server_instructions"]) > 1_000_000
    assert (int(sample["c2s_bytes"]), int(sample["s2c_bytes"])) == M4_BYTES[library]  # the same as on the M4
    assert again.of_type("tls")[0].fields == sample.fields  # every count exact: instructions, bytes, records
    assert again.of_type("tls_memory")[0].fields == mem.fields


def test_the_cycle_model_runs_each_core_with_its_own_table(core: targets.Target, tmp_path: Path) -> None:
    """The M33 profile gives the plugin the M33 table; the RV32 class profile
    the RV32 class model, whose loop of known length is exact: addi (1) and
    a backward bnez predicted taken (1) per iteration."""
    profile = boardprofiles.load({"mps2-an505": "nrf5340-app", "rv32-virt": "esp32-c3-class"}[core.board.name])
    cyclemodel.check_target(profile, core.board)
    args = cyclemodel.plugin_args(profile, core.firmware_path("selftest"), tmp_path / "out",
                                  core.board.toolchain.prefix)
    assert args[0] == f"core={profile.core}"
    if core.board.arch == "riscv32":
        cyclemodel.build_plugin()
        import subprocess
        cmd = cyclemodel.qemu_command(core.board, core.firmware_path("selftest"), profile, tmp_path)
        proc = subprocess.run(cmd, input=b"calibrate n=1000\ncalibrate n=100000\nexit\n", capture_output=True,
                              timeout=120)
        cal = [dict(kv.split("=", 1) for kv in line.split()[2:-1])
               for line in proc.stdout.decode().splitlines() if line.startswith("tb1 calibrate ")]
        assert [int(c["model_measured"]) - 2 * int(c["n"]) for c in cal] == [3, 3], cal


# the flash and static RAM SHA-256 adds to Mbed TLS's empty size probe on each core (tlsbench sizes; exact:
# the same sources and toolchain give the same images): Thumb-2 on the M33, RV32IMC code on the RV32 class
SHA256_PROBE = {"mps2-an505": (2_576, 7), "rv32-virt": (4_474, 7)}


def test_a_size_probe_on_each_core_is_the_image_minus_the_empty_one(core: targets.Target, tmp_path: Path) -> None:
    """tlsbench sizes on the core, one library and one probe (CI time): the
    figure is the two images' difference by the core's own size tool, less
    the probe's own object, and both images run to their end without a fault."""
    import json
    import subprocess

    from tlsbench.engine.store import Store
    from tlsbench.families.size import probes as sizeprobes

    store = Store(tmp_path / "sizes.sqlite")
    run_id = sizeprobes.run(core, store, ["mbedtls"], probes=["sha256"])
    (case,) = store.cases(run_id)
    got = {r["metric"]: int(r["median"]) for r in store.results(run_id)}
    assert (case["name"], case["status"]) == ("mbedtls/size/sha256/image", "ok")
    assert (got["flash_bytes"], got["ram_bytes"]) == SHA256_PROBE[core.board.name]
    tool = f"{core.board.toolchain.prefix}size"
    (t1, d1, b1), (t0, d0, b0) = (
        map(int, subprocess.run([tool, "-B", str(core.cmake_dir() / f"tb-sizeprobe-mbedtls-{p}")], check=True,
                                capture_output=True, text=True).stdout.splitlines()[1].split()[:3])
        for p in ("sha256", "empty"))
    # left out: the probe's own object, and tlsbench's platform code the primitive reaches (a product has its own)
    params = json.loads(case["params_json"])
    own, harness = params["probe_own"], params["components"]["tlsbench core + platform (not counted)"]
    assert got["flash_bytes"] == (t1 + d1) - (t0 + d0) - own["flash_bytes"] - harness["flash_bytes"]
    assert got["ram_bytes"] == (d1 + b1) - (d0 + b0) - own["ram_bytes"] - harness["ram_bytes"]
    for p in ("empty", "sha256"):
        proc = subprocess.run(targets.qemu_command(core.board, core.cmake_dir() / f"tb-sizeprobe-mbedtls-{p}"),
                              capture_output=True, timeout=120, check=False)
        assert proc.returncode == 0 and b"fault" not in proc.stdout, (p, proc.stdout[-300:])
    store.close()


# ---- the RV32 class model's rules, exactly (no firmware: a kernel image of a few instructions) ----

RV32_KERNELS = Path(__file__).parents[1] / "data" / "cyclemodel_kernels_rv32.S"
# (model cycles, instructions) per kernel, the call overhead (RET, then the next CALL: 1 + 1) taken off:
#  dependent loads: 8 LW, each addressed by the previous result: 1 + 7 x (1 + 1 stall)
#  independent loads: 8 x 1;  LBU then its use: 1 + (1 + 2);  MUL then its use: 1 + (1 + 4)
#  DIVU: 33 (the E31's upper bound);  loop: LI + 10 x (ADDI + backward BNEZ, predicted): 21
#  forward branch taken: 1 + 3 (mispredicted);  not taken: 1, then the NOP 1
#  indirect jump: AUIPC + ADDI + JR (1 + 3);  CSR read then its use: 1 + (1 + 2)
RV32_EXPECTED = {"empty": (0, 0), "dependent_loads": (15, 8), "independent_loads": (8, 8), "byte_load_use": (4, 2),
                 "mul_use": (6, 2), "divu": (33, 1), "loop": (21, 21), "forward_taken": (4, 1),
                 "forward_not_taken": (2, 2), "indirect_jump": (6, 3), "csr_read_use": (4, 2)}


def test_rv32_micro_kernels_cost_what_the_model_says(tmp_path: Path) -> None:
    import subprocess

    plugin = cyclemodel.build_plugin()
    image = tmp_path / "kernels-rv32.elf"
    subprocess.run(["riscv64-unknown-elf-gcc", "-march=rv32imc", "-mabi=ilp32", "-misa-spec=2.2", "-nostdlib",
                    "-nostartfiles", "-Wl,-Ttext=0x80000000", "-e", "reset", "-o", str(image), str(RV32_KERNELS)],
                   check=True)
    mark = _symbol(image, "mark")
    log = tmp_path / "marks"
    board = targets.BOARDS["rv32-virt"]
    subprocess.run([*board.toolchain.qemu, "-M", board.machine, "-display", "none", "-monitor", "none",
                    "-semihosting-config", "enable=on,target=native", "-icount", targets.ICOUNT, "-kernel", str(image),
                    "-plugin", f"{plugin},core=rv32imc,mark={mark:#x},log={log}"], check=True, timeout=60)
    marks = [tuple(map(int, line.split())) for line in log.read_text().splitlines() if not line.startswith("exit")]
    steps = [(b[0] - a[0], b[1] - a[1]) for a, b in zip(marks, marks[1:], strict=False)]
    assert steps[0] == (2, 2)  # RET + CALL, both predicted
    got = {name: (c - 2, i - 2) for name, (c, i) in zip(RV32_EXPECTED, steps, strict=True)}
    assert got == RV32_EXPECTED


def _symbol(image: Path, name: str) -> int:
    import subprocess

    out = subprocess.run(["riscv64-unknown-elf-nm", str(image)], capture_output=True, text=True, check=True).stdout
    return next(int(a, 16) for a, _t, n in (line.split() for line in out.splitlines()) if n == name)
