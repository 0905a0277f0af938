"""Accelerated firmware builds (a library's build profile "hw") on the cycle
model: which of a case's work the build hands to a crypto peripheral, the
plugin's hooks that charge the peripheral's time from the board profile and
leave the stand-in out, and the reason a case cannot run so.

The build's driver (agent/adapters/<lib>/hw.c) runs on the emulated core and
is counted like any code; the peripheral's time per block is the board
profile's ([accelerators.NAME], targets/accelerators.py); the result is
computed by a stand-in the model excludes (docs/cycle-model.md, "Crypto
accelerators"). Without a board profile that declares the accelerator, the
case is unsupported, never quietly run in software under the "hw" name.
"""

from __future__ import annotations

from tlsbench.families.primitive.catalog import SIZED_KINDS
from tlsbench.libraries import registry
from tlsbench.targets.accelerators import ALGORITHMS
from tlsbench.targets.boardprofiles import Profile

HW_PROFILE = "hw"
# case kinds that are one symmetric primitive (the sized ones): under "hw" they must be the accelerated
# one (the others, a handshake or a signature, run as built: their hashing goes to the peripheral where
# there is one)
PRIMITIVE_KINDS = SIZED_KINDS
# a route's accelerators that serve alike ("aes-gcm|aes-ecb": GCM's mode, or its counter blocks on ECB)
ALTERNATIVE = "|"
STANDIN_BEGIN, STANDIN_END = "tb_hw_standin_begin", "tb_hw_standin_end"


def symbol_of(kind: str, algorithm: str) -> str:
    """The driver's doorbell for one block ("block"), one associated-data block ("header"), one operation's
    set-up ("setup") or one whole public-key operation ("op")."""
    return f"tb_hw_{kind}_{algorithm.replace('-', '_')}"


def plugin_args(profile: Profile, symbols: dict[str, int]) -> list[str]:
    """The cycle model's hooks for an image with a peripheral driver (none
    for any other image): the stand-in's bounds, each declared
    accelerator's cycles at its doorbells, and the mask of declared ones
    the driver reads (bit i: ALGORITHMS' i-th)."""
    if STANDIN_BEGIN not in symbols or STANDIN_END not in symbols:
        return []
    args = [f"standin={symbols[STANDIN_BEGIN]:#x}:{symbols[STANDIN_END]:#x}"]
    mask = 0
    for bit, name in enumerate(ALGORITHMS):
        accel = profile.accelerators.get(name)
        operation = symbols.get(symbol_of("op", name))
        if accel is not None and operation is not None:  # a public-key operation: one doorbell, one figure
            mask |= 1 << bit
            args.append(f"charge={operation:#x}:{accel.cycles_per_operation}")
            continue
        block = symbols.get(symbol_of("block", name))
        if accel is None or block is None:
            continue
        mask |= 1 << bit
        args.append(f"charge={block:#x}:{accel.busy_cycles_per_block}")
        header = symbols.get(symbol_of("header", name))
        if header is not None:
            args.append(f"charge={header:#x}:{accel.busy_cycles_per_header_block}")
        setup = symbols.get(symbol_of("setup", name))
        if accel.setup_cycles and setup is not None:
            args.append(f"charge={setup:#x}:{accel.setup_cycles}")
    args.append(f"accel={mask:#x}")
    return args


def refusal(library: str, build_profile: str | None, board: Profile | None, kind: str, alg: str) -> str | None:
    """Why a case of a "hw" build cannot run (None: it can)."""
    if build_profile != HW_PROFILE:
        return None
    record = registry.get(library)
    routed = record.hw_routes if record is not None else {}
    need = routed.get(alg)
    if need is None and board is None:
        return (f"{library}={HW_PROFILE} models a crypto peripheral: it needs an emulated target (qemu:...) and"
                " --board with a board profile that"
                " declares its accelerators ([accelerators.NAME])")
    if need is None:
        if kind not in PRIMITIVE_KINDS:
            return None
        return (f"{library}={HW_PROFILE} hands no {alg} to a peripheral (its driver does "
                f"{', '.join(routed) or 'nothing yet'}); run it without {library}={HW_PROFILE} for software")
    tables = ", ".join(_tables(n) for n in need)
    if board is None:
        return (f"{library}={HW_PROFILE} models a crypto peripheral: it needs an emulated target (qemu:...) and"
                " --board with a board profile that"
                f" declares {tables}")
    missing = [n for n in need if not any(a in board.accelerators for a in n.split(ALTERNATIVE))]
    if missing:
        declared = ", ".join(board.accelerators) or "none"
        names = " or ".join(a for n in missing for a in n.split(ALTERNATIVE))
        return (f"board profile {board.name} declares no {names} accelerator"
                f" ({', '.join(_tables(n) for n in missing)}; it declares {declared}):"
                f" {alg} has no peripheral to run on")
    return None


def _tables(need: str) -> str:
    """The tables one route needs: "[accelerators.a]", or "[accelerators.a] or [accelerators.b]"."""
    return " or ".join(f"[accelerators.{a}]" for a in need.split(ALTERNATIVE))
