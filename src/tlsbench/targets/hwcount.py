"""How many blocks (or operations) a case handed to each modelled crypto peripheral, counted by the cycle model.

The model adds an accelerator's figure each time the driver rings its doorbell: once per block, or per
operation for a public-key accelerator (docs/cycle-model.md, "Crypto accelerators"). So a run on a copy of
the board profile whose one algorithm's figure is one cycle higher differs from the run on the profile
itself by exactly that algorithm's count, per case and per side, with the instructions unchanged. This
module writes those copies ("count profiles": `tlsbench board count-profiles`) and recognises them in stored
runs.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from tlsbench.errors import PlanError
from tlsbench.targets import boardprofiles
from tlsbench.targets.accelerators import Accelerator

# the figures the model charges per doorbell; a count profile raises each one its algorithm has by one
PER_DOORBELL = ("cycles_per_block", "header_cycles_per_block", "cycles_per_operation")
SEPARATOR = "+count-"  # a count profile's file name: BOARD+count-ALGORITHM.toml


def _raised(accel: Accelerator) -> Accelerator:
    changes = {key: getattr(accel, key) + 1 for key in PER_DOORBELL if getattr(accel, key)}
    return dataclasses.replace(accel, **changes)


def count_profile_text(profile: boardprofiles.Profile, algorithm: str) -> str:
    """The profile's own text with `algorithm`'s per-block (and header) or per-operation figure one higher."""
    if algorithm not in profile.accelerators:
        raise PlanError(f"board profile {profile.name} declares no accelerator {algorithm!r}; it declares"
                        f" {', '.join(profile.accelerators) or 'none'}")
    head = f"[accelerators.{algorithm}]"
    start = profile.text.index(head)
    end = profile.text.find("\n[", start + len(head))
    end = len(profile.text) if end < 0 else end
    table = profile.text[start:end]
    for key in PER_DOORBELL:
        table = re.sub(rf"(?m)^({key}\s*=\s*)([0-9_]+)",
                       lambda m: f"{m.group(1)}{int(m.group(2).replace('_', '')) + 1}", table)
    note = (f"# A count profile (tlsbench.targets.hwcount): {profile.name}'s own, with {algorithm}'s figure per"
            " doorbell one cycle higher.\n")
    return note + profile.text[:start] + table + profile.text[end:]


def write_count_profiles(name: str, folder: Path) -> list[Path]:
    """One count profile per accelerator the shipped profile `name` declares, written into folder."""
    profile = boardprofiles.load(name)
    if not profile.accelerators:
        raise PlanError(f"board profile {name} declares no [accelerators]: nothing to count")
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for algorithm in profile.accelerators:
        path = folder / f"{name}{SEPARATOR}{algorithm}.toml"
        path.write_text(count_profile_text(profile, algorithm))
        if counted_algorithm(boardprofiles.parse(path)) != (name, algorithm):
            raise PlanError(f"{path}: the count profile does not differ from {name} in {algorithm}'s figures alone")
        paths.append(path)
    return paths


def counted_algorithm(profile: boardprofiles.Profile) -> tuple[str, str] | None:
    """(the shipped profile, the algorithm) when `profile` is a count profile: the shipped one with exactly one
    accelerator's per-doorbell figures one higher and nothing else changed; else None."""
    if SEPARATOR not in profile.name:
        return None
    base_name, algorithm = profile.name.split(SEPARATOR, 1)
    if base_name not in boardprofiles.names():
        return None
    base = boardprofiles.load(base_name)
    if algorithm not in base.accelerators:
        return None
    want = dict(base.accelerators, **{algorithm: _raised(base.accelerators[algorithm])})
    same = dataclasses.replace(base, name=profile.name, path=profile.path, text=profile.text, shipped=profile.shipped,
                               accelerators=want)
    return (base_name, algorithm) if same == profile else None
