"""A board profile's crypto peripherals (its ``[accelerators.NAME]``
tables): per algorithm and mode, what one block costs the peripheral, what
setting it up costs, and how the data reaches it, each with its source.

The cycle model charges these figures when the firmware's driver hands the
peripheral a block (docs/cycle-model.md, "Crypto accelerators"); the
driver's own instructions are counted like any others. A figure nobody can
cite is left out: an algorithm the profile does not declare runs in
software, and an accelerated build for it is refused with the reason.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass

from tlsbench.errors import PlanError

# the algorithms an accelerated firmware build can hand to a peripheral, and their block size in bytes;
# 0: a whole operation at once (a public-key accelerator's: its figure is per operation, not per block)
ALGORITHMS: dict[str, int] = {
    "sha1": 64, "sha256": 64, "aes-ecb": 16, "aes-cbc": 16, "aes-ctr": 16, "aes-gcm": 16,
    "ecdsa-p256-sign": 0, "ecdsa-p256-verify": 0, "ecc-p256-mul": 0,
    # RSA-2048's modular exponentiation with the private key (CRT) and with the public one (e = 65537)
    "rsa-2048-private": 0, "rsa-2048-public": 0,
}
OPERATIONS = tuple(name for name, size in ALGORITHMS.items() if size == 0)
# the ones with associated data (a header phase of their own)
AEAD_ALGORITHMS = ("aes-gcm",)
# how the data reaches the peripheral: the CPU writes it word by word (its stores are the driver's
# counted instructions), or a DMA channel moves it (the load cycles are then the peripheral's own)
DATA_MOVEMENT = ("cpu", "dma")
# key -> (type, required of every accelerator; the per-block or per-operation figure: required_keys)
KEYS: dict[str, tuple[type, bool]] = {
    "peripheral": (str, True),  # the reference manual's name for it: "HASH", "CRYP"
    "cycles_per_block": (int, False),  # processing one block, in core clock cycles (the block algorithms')
    "cycles_per_operation": (int, False),  # one whole operation (OPERATIONS' figure instead of a block's)
    "load_cycles_per_block": (int, False),  # the least time to load one block into it
    "setup_cycles": (int, False),  # once per operation (key preparation, final padding block)
    # an AEAD's associated-data blocks, where the manual gives them their own figure (default: cycles_per_block)
    "header_cycles_per_block": (int, False),
    "data_movement": (str, True),
    "source": (str, True),  # the manual, section and table the figures come from
}
# a block taking more than this many cycles is a typo, never a peripheral
MAX_CYCLES = 1_000_000
# nor an operation more than this (an RSA-4096 exponentiation on a PKA is ~4.5e8)
MAX_OPERATION_CYCLES = 2_000_000_000


@dataclass(frozen=True)
class Accelerator:
    algorithm: str
    peripheral: str
    data_movement: str
    source: str
    cycles_per_block: int = 0  # 0 for an operation's accelerator (OPERATIONS)
    cycles_per_operation: int = 0  # 0 for a block's
    load_cycles_per_block: int = 0
    setup_cycles: int = 0
    header_cycles_per_block: int | None = None

    @property
    def block_bytes(self) -> int:
        return ALGORITHMS[self.algorithm]

    @property
    def busy_cycles_per_block(self) -> int:
        """What the core waits per block: with the CPU moving the data, its
        own stores already take the load time (one per word, counted)."""
        load = self.load_cycles_per_block if self.data_movement == "dma" else 0
        return self.cycles_per_block + load

    @property
    def busy_cycles_per_header_block(self) -> int:
        """The same for an associated-data block (GCM's header phase)."""
        load = self.load_cycles_per_block if self.data_movement == "dma" else 0
        header = self.cycles_per_block if self.header_cycles_per_block is None else self.header_cycles_per_block
        return header + load

    def summary(self) -> str:
        if self.algorithm in OPERATIONS:
            return (f"{self.peripheral} {self.algorithm}: {self.cycles_per_operation:,} cycles per operation,"
                    f" data by {self.data_movement}")
        setup = f" + {self.setup_cycles} set-up" if self.setup_cycles else ""
        if self.header_cycles_per_block is not None:
            setup = f", {self.header_cycles_per_block} per header block{setup}"
        load = f" (+{self.load_cycles_per_block} to load)" if self.load_cycles_per_block else ""
        return (f"{self.peripheral} {self.algorithm}: {self.cycles_per_block} cycles per {self.block_bytes}-byte"
                f" block{load}{setup}, data by {self.data_movement}")


Err = Callable[[str | None, str, str | None], PlanError]


def parse_table(table: object, err: Err) -> dict[str, Accelerator]:
    """The ``accelerators`` table of a profile, checked; ``err(key, message,
    table)`` makes the error that names the file and line."""
    if not isinstance(table, dict):
        raise err("accelerators", "must be a table of [accelerators.NAME] tables, NAME one of "
                  f"{', '.join(ALGORITHMS)}", None)
    out: dict[str, Accelerator] = {}
    for name, body in table.items():
        where = f"accelerators.{name}"
        if name not in ALGORITHMS:
            near = difflib.get_close_matches(name, ALGORITHMS, n=2)
            hint = f" (did you mean {', '.join(near)}?)" if near else ""
            raise err(None, f"unknown algorithm{hint}; allowed: {', '.join(ALGORITHMS)}", where)
        if not isinstance(body, dict):
            raise err(name, f"must be a table ([{where}]) with {', '.join(KEYS)}", "accelerators")
        for key in body:
            if key not in KEYS:
                near = difflib.get_close_matches(key, KEYS, n=2)
                hint = f" (did you mean {', '.join(near)}?)" if near else ""
                raise err(key, f"unknown key{hint}; allowed: {', '.join(KEYS)}", where)
        _check_block_or_operation(name, body, err, where)
        required = required_keys(name)
        every = "every operation accelerator" if name in OPERATIONS else "every accelerator"
        values: dict[str, object] = {}
        for key, (kind, _) in KEYS.items():
            if key not in body:
                if key in required:
                    raise err(None, f"{key} missing ({every} sets: {', '.join(required)})", where)
                continue
            v = body[key]
            top = MAX_OPERATION_CYCLES if key == "cycles_per_operation" else MAX_CYCLES
            if kind is int and (isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= top):
                raise err(key, f"must be a whole number of cycles 0..{top:,}, got {v!r}", where)
            if kind is str and (not isinstance(v, str) or not v.strip()):
                raise err(key, f"must be a non-empty string, got {v!r}", where)
            values[key] = v
        for key in ("cycles_per_block", "cycles_per_operation", "header_cycles_per_block"):
            if values.get(key) == 0:
                raise err(key, "must be at least 1 (a peripheral takes time)", where)
        if "header_cycles_per_block" in values and name not in AEAD_ALGORITHMS:
            raise err("header_cycles_per_block", f"is an AEAD's (associated-data blocks): only for"
                      f" {', '.join(AEAD_ALGORITHMS)}", where)
        if values["data_movement"] not in DATA_MOVEMENT:
            raise err("data_movement", f"must be one of {', '.join(DATA_MOVEMENT)}, got"
                      f" {values['data_movement']!r}", where)
        out[name] = Accelerator(algorithm=name, **values)  # type: ignore[arg-type]
    return out


# a block algorithm's keys, which an operation's accelerator does not take (its one figure holds all)
BLOCK_KEYS = ("cycles_per_block", "load_cycles_per_block", "setup_cycles", "header_cycles_per_block")


def required_keys(name: str) -> list[str]:
    """The keys an accelerator must set: its figure is per block, or per operation (OPERATIONS)."""
    figure = "cycles_per_operation" if name in OPERATIONS else "cycles_per_block"
    return ["peripheral", figure, "data_movement", "source"]


def _check_block_or_operation(name: str, values: dict[str, object], err: Err, where: str) -> None:
    """A block's figures are not an operation's, nor the other way round."""
    if name in OPERATIONS:
        for key in BLOCK_KEYS:
            if key in values:
                raise err(key, f"is a block's figure: {name} takes cycles_per_operation", where)
    else:
        if "cycles_per_operation" in values:
            raise err("cycles_per_operation", f"is an operation's figure (only for {', '.join(OPERATIONS)}):"
                      f" {name} takes cycles_per_block", where)
