"""Where agents run: the host, an emulated Cortex-M board under QEMU, or a
real board over a serial port.

Every target looks the same to the runner: an executable that reads request
lines on stdin and answers records on stdout. For the host that is the
agent itself; for firmware it is a small launcher (written next to the
firmware by ``tlsbench build --target ...``) that runs ``tlsbench.targets.bridge``,
which carries the same lines over the emulated or real UART.
"""

from __future__ import annotations

import difflib
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from tlsbench import paths
from tlsbench.errors import PlanError
from tlsbench.targets import sources, userconfig

# QEMU's -icount shift: every instruction advances virtual time by 2**7 ns.
ICOUNT = "shift=7,sleep=off"


@dataclass(frozen=True)
class Toolchain:
    """What builds and runs one instruction set's firmware."""
    prefix: str  # of gcc, nm, size: "arm-none-eabi-"
    cmake_file: str  # agent/cmake/<file>
    packages: str  # the Debian packages that install the compiler and C library
    qemu: tuple[str, ...]  # the emulator and its machine-independent options


TOOLCHAINS = {
    "arm": Toolchain("arm-none-eabi-", "arm-none-eabi.cmake", "gcc-arm-none-eabi libnewlib-arm-none-eabi",
                     ("qemu-system-arm",)),
    # the RV32 class: QEMU's generic rv32 core without A, F, D (RV32IMC + Zicsr),
    # started at DRAM with no firmware of QEMU's own, 16 MiB of DRAM (the image uses 8)
    "riscv32": Toolchain("riscv64-unknown-elf-", "riscv32-unknown-elf.cmake",
                         "gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf",
                         ("qemu-system-riscv32", "-cpu", "rv32,a=off,f=off,d=off", "-m", "16M", "-bios", "none")),
}


@dataclass(frozen=True)
class Board:
    name: str
    platform: str  # agent/platform/<platform>
    cpu: str  # -mcpu (Arm), the ISA string -march (RISC-V)
    machine: str | None  # the emulator's -M (None: a real board)
    ram_bytes: int
    counter: str  # instructions (exact, emulated) | cycles (a real core's counter)
    description: str
    arch: str = "arm"  # TOOLCHAINS key
    uart: int = 0  # which of QEMU's -serial ports the firmware talks on (netduino2's USART2 is the second)
    qemu_args: tuple[str, ...] = ()  # what the machine needs to match the board (e.g. its RAM size)

    @property
    def toolchain(self) -> Toolchain:
        return TOOLCHAINS[self.arch]


BOARDS: dict[str, Board] = {b.name: b for b in (
    Board("mps2-an385", "mps2", "cortex-m3", "mps2-an385", 4 << 20, "instructions",
          "Arm MPS2 AN385, Cortex-M3 (QEMU; exact instruction counts)"),
    Board("mps2-an386", "mps2", "cortex-m4", "mps2-an386", 4 << 20, "instructions",
          "Arm MPS2 AN386, Cortex-M4 (QEMU; exact instruction counts)"),
    Board("mps2-an500", "mps2", "cortex-m7", "mps2-an500", 4 << 20, "instructions",
          "Arm MPS2 AN500, Cortex-M7 (QEMU; exact instruction counts)"),
    Board("mps2-an505", "mps2-an505", "cortex-m33", "mps2-an505", 4 << 20, "instructions",
          "Arm MPS2+ AN505, Cortex-M33 (Armv8-M mainline, Secure state; QEMU; exact instruction counts)"),
    Board("rv32-virt", "rv32-virt", "rv32imc", "virt", 4 << 20, "instructions",
          "RV32 class core (RV32IMC) on QEMU's riscv32 virt machine (NS16550A UART, minstret; exact instruction"
          " counts)", arch="riscv32"),
    Board("netduinoplus2", "netduinoplus2", "cortex-m4", "netduinoplus2", 128 << 10, "instructions",
          "Netduino Plus 2, STM32F405 Cortex-M4 (QEMU, through its USART; exact instruction counts)"),
    Board("microbit", "microbit", "cortex-m0", "microbit", 16 << 10, "instructions",
          "BBC micro:bit, nRF51822 Cortex-M0, 16 KiB RAM (QEMU; exact instruction counts; what does not fit"
          " is reported with the bytes it needed)"),
    Board("nucleo-f446re", "nucleo-f446re", "cortex-m4", None, 128 << 10, "cycles",
          "ST Nucleo-F446RE, STM32F446RE Cortex-M4 at 16 MHz (HSI), a real board over its ST-LINK serial port"
          " (DWT cycle counter)"),
    Board("nucleo-f103rb", "nucleo-f103rb", "cortex-m3", None, 20 << 10, "cycles",
          "ST Nucleo-F103RB, STM32F103RB Cortex-M3 at 72 MHz, a real board over its ST-LINK serial port"
          " (DWT cycle counter; never run on hardware)"),
    Board("nucleo-l073rz", "nucleo-l073rz", "cortex-m0", None, 20 << 10, "cycles",
          "ST Nucleo-L073RZ, STM32L073RZ Cortex-M0+ at 32 MHz, a real board over its ST-LINK serial port"
          " (SysTick cycle counter; never run on hardware)"),
    Board("nucleo-f746zg", "nucleo-f746zg", "cortex-m7", None, 320 << 10, "cycles",
          "ST Nucleo-F746ZG, STM32F746ZG Cortex-M7 at 216 MHz, a real board over its ST-LINK serial port"
          " (DWT cycle counter; never run on hardware)"),
    Board("microbit-roomy", "microbit", "cortex-m0", "microbit", 4 << 20, "instructions",
          "the micro:bit's Cortex-M0 (QEMU) with its flash and RAM set to 4 MiB each: an ARMv6-M"
          " core with room for a whole in-memory handshake, as the MPS2 boards are for the others (no real"
          " nRF51 has this much; exact instruction counts)",
          qemu_args=("-global", "nrf51-soc.flash-size=4194304", "-global", "nrf51-soc.sram-size=4194304")),
    # a board's image layout (its own linker script's memory sizes) on the closest emulated machine
    Board("nucleo-f103rb-on-netduino2", "nucleo-f103rb", "cortex-m3", "netduino2", 20 << 10, "instructions",
          "the Nucleo-F103RB image (20 KiB RAM, 128 KiB flash, USART2) on QEMU's Netduino 2 (STM32F205"
          " Cortex-M3; exact instruction counts)", uart=1),
    Board("nucleo-l073rz-on-microbit", "nucleo-l073rz", "cortex-m0", "microbit", 20 << 10, "instructions",
          "the Nucleo-L073RZ memory layout (20 KiB RAM, 192 KiB flash) on QEMU's micro:bit Cortex-M0 with its"
          " RAM set to 20 KiB (micro:bit UART and timer; exact instruction counts)",
          qemu_args=("-global", "nrf51-soc.sram-size=20480")),
    Board("nucleo-f746zg-on-mps2-an500", "nucleo-f746zg", "cortex-m7", "mps2-an500", 320 << 10, "instructions",
          "the Nucleo-F746ZG memory layout (320 KiB RAM, 1 MiB flash) on QEMU's MPS2 AN500 Cortex-M7 (MPS2 UART"
          " and timer; exact instruction counts)"),
)}


@dataclass(frozen=True)
class Target:
    name: str  # "host", "qemu:mps2-an386", "serial:/dev/ttyACM0"
    kind: str  # host | qemu | serial
    board: Board | None = None
    port: str | None = None  # serial device
    # library -> build profile (agent/adapters/<lib>/profiles/<name>.h), when not the library's default
    profiles: tuple[tuple[str, str], ...] = ()
    # the lean image for one side of a handshake on the device (tls-device): one painted stack, no in-memory
    # link, a request line and records sized for one side's chunks (agent/CMakeLists.txt, TB_ONE_SIDE)
    one_side: bool = False
    # labgrid: the coordinator's HOST:PORT; on one place's own target, that place (port is then its serial URL)
    coordinator: str | None = None
    place: str | None = None
    flasher: str | None = None  # one place's labgrid flashing driver, when it has one
    user: userconfig.UserBuild = userconfig.NONE  # the user's config files and compiler options (--config, --cflags)

    @property
    def deterministic(self) -> bool:
        # a labgrid place whose board is an emulated one (QEMU behind the farm) counts instructions exactly too
        return self.kind == "qemu" or (self.kind == "labgrid" and self.board is not None
                                       and self.board.machine is not None)

    @property
    def build_name(self) -> str:
        """The build folder under build/: one per board (a serial target
        shares its board's firmware build)."""
        if self.board is None:
            return "host" + userconfig.suffix(self.user)
        suffix = "".join(f"-{lib}.{prof}" for lib, prof in self.profiles) + ("-oneside" if self.one_side else "")
        suffix += _user_trees_suffix() + userconfig.suffix(self.user)
        return f"{'qemu' if self.board.machine else 'board'}-{self.board.name}{suffix}"

    def build_dir(self) -> Path:
        return paths.root() / "build" / self.build_name

    def agent_path(self, library: str) -> Path:
        """The executable the runner starts for this library (a launcher for firmware)."""
        if self.kind == "host":
            return paths.agent_path(library, self.build_name)
        if self.kind == "serial":
            port = re.sub(r"[^A-Za-z0-9]+", "_", self.port or "")
            return self.build_dir() / f"serial{port}" / f"tlsbench-agent-{library}"
        if self.kind == "labgrid":
            place = re.sub(r"[^A-Za-z0-9]+", "_", self.place or "")
            return self.build_dir() / f"labgrid_{place}" / f"tlsbench-agent-{library}"
        return self.build_dir() / f"tlsbench-agent-{library}"

    def flash_state(self) -> Path:
        """What tlsbench last flashed on this labgrid place in this run (labgrid_places.ensure_image)."""
        return self.agent_path("any").parent / "flashed.json"

    def cmake_dir(self) -> Path:
        return self.build_dir() / "cmake"

    def firmware_path(self, library: str) -> Path:
        # "mbedtls@3.6.7" -> tlsbench-agent-mbedtls-3.6.7 (CMake names have no '@')
        return self.cmake_dir() / ("tlsbench-agent-" + library.replace("@", "-"))

    def map_path(self, library: str) -> Path:
        return self.cmake_dir() / ("tlsbench-agent-" + library.replace("@", "-") + ".map")


HOST = Target("host", "host")


def known_names() -> list[str]:
    return ["host", *(f"qemu:{b}" for b, v in BOARDS.items() if v.machine), "serial:PORT --board BOARD",
            "labgrid:PLACE[,PLACE...] or labgrid:tag=KEY=VALUE [--board BOARD]"]


def _user_trees_suffix() -> str:
    """Firmware from a user-supplied library tree (TLSBENCH_<LIB>_SOURCE, e.g.
    wolfSSL 5.9.2 for post-quantum images) gets its own build folder, named by
    the tree's folder, so the default trees' images are not rebuilt over."""
    out = ""
    for lib in ("mbedtls", "wolfssl"):  # the firmware libraries (targets.build.FIRMWARE_LIBRARIES)
        tree = sources.user_source(lib)
        if tree is not None:
            out += f"-{lib}.tree-" + re.sub(r"[^A-Za-z0-9._-]+", "_", tree.name)
    return out


def available_profiles(library: str) -> list[str]:
    folder = paths.root() / "agent" / "adapters" / library / "profiles"
    return sorted(p.stem for p in folder.glob("*.h")) if folder.is_dir() else []


def parse_profiles(text: str | None) -> tuple[tuple[str, str], ...]:
    """'mbedtls=small,wolfssl=sp-asm' -> sorted pairs; unknown names are errors."""
    out = {}
    for item in (t.strip() for t in (text or "").split(",") if t.strip()):
        lib, sep, prof = item.partition("=")
        known = available_profiles(lib)
        if not sep or not known:
            raise PlanError(f"--profile expects LIBRARY=PROFILE, e.g. mbedtls=small (got {item!r})")
        if prof not in known:
            raise PlanError(f"unknown {lib} profile {prof!r}; {lib} profiles: {', '.join(known)}")
        out[lib] = prof
    return tuple(sorted(out.items()))


def parse(name: str, board: str | None = None, profiles: str | None = None, coordinator: str | None = None) -> Target:
    """'host', 'qemu:<board>', 'serial:<device>' (with board=...) or
    'labgrid:<places>' (the board from --board or the places' board tag);
    profiles ('mbedtls=small,...') pick library build profiles for firmware."""
    prof = parse_profiles(profiles)
    if name == "host":
        if prof:
            raise PlanError("--profile selects firmware builds; host agents use each library's host profile")
        return HOST
    kind, _, rest = name.partition(":")
    if kind == "qemu":
        b = BOARDS.get(rest)
        if b is None or b.machine is None:
            emulated = [n for n, v in BOARDS.items() if v.machine]
            near = difflib.get_close_matches(rest, emulated, n=3)
            hint = f" (did you mean {', '.join('qemu:' + n for n in near)}?)" if near else ""
            raise PlanError(f"unknown emulated board {rest!r}{hint}; known: {', '.join(emulated)}")
        return Target(name, "qemu", b, profiles=prof)
    if kind == "serial":
        if not re.fullmatch(r"/dev/[A-Za-z0-9_./-]+", rest):
            raise PlanError(f"serial target needs a device path, e.g. serial:/dev/ttyACM0 (got {name!r})")
        if board is None or board not in BOARDS:
            raise PlanError(f"serial target needs --board, one of: {', '.join(BOARDS)}")
        return Target(name, "serial", BOARDS[board], rest, profiles=prof)
    if kind == "labgrid":
        from tlsbench.targets import labgrid_places

        labgrid_places.parse_selection(rest)
        address = labgrid_places.coordinator(coordinator)
        # the places must exist before a run is stored for them
        board = labgrid_places.board_of(labgrid_places.resolve(address, rest), board)
        if board not in BOARDS:
            raise PlanError(f"labgrid target: unknown board {board!r} (--board or the places' board tag); known:"
                            f" {', '.join(BOARDS)}")
        return Target(name, "labgrid", BOARDS[board], rest, profiles=prof, coordinator=address)
    near = difflib.get_close_matches(name, known_names(), n=3)
    hint = f" (did you mean {', '.join(near)}?)" if near else ""
    raise PlanError(f"unknown target {name!r}{hint}; known: {', '.join(known_names())}")


def qemu_command(board: Board, firmware: Path, serial: str = "stdio") -> list[str]:
    """The emulator command line: no display or monitor, the UART on
    ``serial``, semihosting for the firmware's exit, and instruction counting
    that makes virtual time a pure function of the instructions run."""
    assert board.machine is not None
    return [*board.toolchain.qemu, "-M", board.machine, *board.qemu_args, "-display", "none", "-monitor", "none",
            *["-serial", "null"] * board.uart, "-serial", serial, "-semihosting-config", "enable=on,target=native",
            "-icount", ICOUNT, "-kernel", str(firmware)]


def write_launcher(target: Target, library: str) -> Path:
    """The executable the runner starts: it runs tlsbench.targets.bridge for this
    target and firmware. Built from our own fixed values, never from input
    (repr() quotes them)."""
    path = target.agent_path(library)
    path.parent.mkdir(parents=True, exist_ok=True)
    if target.kind == "qemu":
        args = ["qemu", "--board", target.board.name, "--firmware", str(target.firmware_path(library))]
    else:  # a serial board, or one labgrid place (its port: the place's serial resource)
        args = ["serial", "--port", target.port, "--board", target.board.name, "--library", library,
                "--firmware", str(target.firmware_path(library))]
        if target.flasher is not None:  # flashed through the place's labgrid driver, not TLSBENCH_FLASH_COMMAND
            args += ["--labgrid-coordinator", str(target.coordinator), "--labgrid-place", str(target.place),
                     "--flash-state", str(target.flash_state())]
    path.write_text(
        f"#!{sys.executable}\n"
        "# Written by tlsbench build: runs this firmware's agent behind a pipe.\n"
        "import sys\n"
        "from tlsbench.targets import bridge\n"
        f"sys.exit(bridge.main({args!r}))\n"
    )
    path.chmod(0o755)
    return path
