"""The boards tlsbench builds firmware for, the toolchains that build and
emulate them, and the emulator's command line for one image."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

# QEMU's -icount shift: every instruction advances virtual time by 2**7 ns.
ICOUNT = "shift=7,sleep=off"
# The frozen clock (Unix seconds) a firmware agent's bridge passes it: the run's material sets it
# (families/primitive/keys.py); here, so that a bridge starts without that module and its imports
FIRMWARE_CLOCK_ENV = "TLSBENCH_FIRMWARE_CLOCK"


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

    def summary(self) -> str:
        """One line for `tlsbench list targets`."""
        return f"{self.description}; {self.ram_bytes // 1024} KiB RAM; counter: {self.counter}"


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


def qemu_command(board: Board, firmware: Path, serial: str = "stdio") -> list[str]:
    """The emulator command line: no display or monitor, the UART on
    ``serial``, semihosting for the firmware's exit, and instruction counting
    that makes virtual time a pure function of the instructions run."""
    assert board.machine is not None
    return [*board.toolchain.qemu, "-M", board.machine, *board.qemu_args, "-display", "none", "-monitor", "none",
            *["-serial", "null"] * board.uart, "-serial", serial, "-semihosting-config", "enable=on,target=native",
            "-icount", ICOUNT, "-kernel", str(firmware)]
