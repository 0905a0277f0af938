"""The result cache of exact metrics: a case measured on an emulator gives
the same counts whenever everything that decides them is the same, so a run
reuses a stored outcome whose key matches instead of measuring it again.

The key is the SHA-256 of its parts (below): the image, the emulator and
its cycle-model plugin, the board profile, the case, the method and
material its request lines are written from, the code that writes them and
the agent protocol. A part that cannot be known makes the case uncached
(measured). Nothing here reads the store: the runner asks it for a key.
"""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from pathlib import Path

from tlsbench.engine.case import Case
from tlsbench.engine.protocol import PROTOCOL_VERSION

# outcomes worth reusing: what the image itself answered (a failure may be passing trouble: measured again)
REUSABLE = ("ok", "unsupported", "does_not_fit")
# the version of the key's recipe: raised when a part is added or changes meaning (old keys then never match)
KEY_VERSION = 1
_PACKAGE = Path(__file__).resolve().parents[1]
# the code every case's request passes through besides its family's own: the protocol and the board bridge
_SHARED_CODE = ("engine/protocol.py", "engine/agent.py", "targets/bridge.py", "targets/cyclemodel.py",
                "targets/board.py")
# the code that asks an image what it is and supports (hello, list) and reads its answer
_PROBE_CODE = ("targets/libraries.py", *_SHARED_CODE)


def sha256_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@lru_cache(maxsize=16)
def code_sha256(family_module: str) -> str:
    """The SHA-256 of the code that writes a family's request lines and carries them to the image: its
    package's modules and the shared ones (a change to how requests are written re-measures)."""
    package = _PACKAGE.joinpath(*family_module.split(".")[1:-1])
    return _files_sha256([*sorted(package.rglob("*.py")), *(_PACKAGE / p for p in _SHARED_CODE)])


@lru_cache(maxsize=1)
def probe_code_sha256() -> str:
    return _files_sha256([_PACKAGE / p for p in _PROBE_CODE])


def _files_sha256(files: list[Path]) -> str:
    h = hashlib.sha256()
    for f in files:
        h.update(str(f.relative_to(_PACKAGE)).encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()


def key_parts(*, case: Case, rnd: int, family_module: str, target_name: str, build_name: str, image_sha256: str,
              emulator: str, plugin_sha256: str, board_profile_text: str, method: dict, tls: dict,
              material: dict) -> dict[str, str]:
    """Every part of a case's key, by name, as text (stored with the key, so a miss can be explained)."""
    return {
        "key_version": str(KEY_VERSION),
        "protocol_version": str(PROTOCOL_VERSION),
        "target": target_name,
        "build": build_name,  # profiles, one-side image, the user's configuration
        "image_sha256": image_sha256,
        "emulator": emulator,  # its version line and options (-icount)
        "cycle_plugin_sha256": plugin_sha256,  # "" without a board profile
        "board_profile_sha256": hashlib.sha256(board_profile_text.encode()).hexdigest() if board_profile_text else "",
        "case": case.name,
        "round": str(rnd),
        "method_sha256": _json_sha256(method),  # repeats, warm-ups, timeout, environment
        "tls_sha256": _json_sha256(tls),  # e.g. bulk bytes, capacity seconds
        "material_sha256": _json_sha256(material),  # keys, chains, frozen clock: the request's fields
        "request_code_sha256": code_sha256(family_module),
    }


def probe_key_parts(*, library: str, target_name: str, build_name: str, image_sha256: str, emulator: str,
                    plugin_sha256: str, board_profile_text: str) -> dict[str, str]:
    """Every part of the key of an image's answer to the probe (hello, list): the answer comes from the
    image alone, yet it is keyed by everything a case's key names besides the case (the cycle model's
    plugin and profile may add counters), so it is reused exactly where the cases are."""
    return {
        "key_version": str(KEY_VERSION),
        "protocol_version": str(PROTOCOL_VERSION),
        "library": library,
        "target": target_name,
        "build": build_name,
        "image_sha256": image_sha256,
        "emulator": emulator,
        "cycle_plugin_sha256": plugin_sha256,
        "board_profile_sha256": hashlib.sha256(board_profile_text.encode()).hexdigest() if board_profile_text else "",
        "probe_code_sha256": probe_code_sha256(),
    }


def key_of(parts: dict[str, str]) -> str:
    return _json_sha256(parts)


def _json_sha256(value: object) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


__all__ = ["KEY_VERSION", "REUSABLE", "code_sha256", "key_of", "key_parts", "probe_code_sha256", "probe_key_parts",
           "sha256_file"]
