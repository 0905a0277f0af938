"""A run's labels: what it was made from (recorded) and what its user says
about it (``--label key=value``). `runs` and `history` filter on them.

Recorded labels:
  git.commit  the project's commit the run was made from (from its tlsbench
              revision; "unknown" outside a git checkout)
  git.dirty   "true" when the checkout had uncommitted changes, else "false"
  machine     the machine's host name
  machine.id  a fingerprint of what makes the machine's numbers what they are
              (CPU, its flags, cores, memory, OS, kernel, compiler, board)
  lib.NAME    each measured library's version (stored as the run probes it)
  build.config.LIB  the SHA-256 (first 16 hex digits) of the user's configuration file of LIB (--config),
                    or of an alias measured beside it (build.config.mbedtls@a2)
  build.cflags      the user's compiler options (--cflags)
"""

from __future__ import annotations

import hashlib
import json
import re

from tlsbench.errors import PlanError

RECORDED_PREFIXES = ("git.", "lib.", "machine", "build.")
KEY_RE = re.compile(r"[a-z][a-z0-9_.-]{0,62}")
# a recorded key names a library identifier: a version or an alias ("lib.openssl@3.5", "build.config.mbedtls@a2")
RECORDED_KEY_RE = re.compile(r"[a-z][a-z0-9_.@-]{0,62}")
MAX_VALUE = 200
ALLOWED = ("KEY=VALUE, KEY of lower-case letters, digits, '_', '.', '-' (starting with a letter, at most 63),"
           f" VALUE printable without spaces at the ends, 1..{MAX_VALUE} characters")
NOT_RECORDED = f"; KEY not starting with {', '.join(RECORDED_PREFIXES)} (recorded by tlsbench)"
# the machine fields behind machine.id (the host name is not: a renamed machine is the same machine)
_FINGERPRINT_FIELDS = ("cpu_model", "cpu_flags", "cores", "memory_mib", "arch", "os", "kernel", "compiler", "board",
                       "board_cpu", "emulator")


def parse_one(text: str, *, recorded_ok: bool = False) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    key_re = RECORDED_KEY_RE if recorded_ok else KEY_RE
    if not sep or not key_re.fullmatch(key) or not (0 < len(value) <= MAX_VALUE) or value != value.strip() \
            or not value.isprintable():
        raise PlanError(f"--label {text!r}: expected {ALLOWED}" + ("" if recorded_ok else NOT_RECORDED))
    if not recorded_ok and key.startswith(RECORDED_PREFIXES):
        raise PlanError(f"--label {text!r}: {key} is recorded by tlsbench itself; expected {ALLOWED}{NOT_RECORDED}")
    return key, value


def parse(items: list[str] | None, *, recorded_ok: bool = False) -> dict[str, str]:
    """--label items (repeatable) -> {key: value}; a key given twice is an error."""
    out: dict[str, str] = {}
    for item in items or ():
        key, value = parse_one(item, recorded_ok=recorded_ok)
        if key in out and out[key] != value:
            raise PlanError(f"--label {key} given twice ({out[key]!r}, {value!r}); give it once")
        out[key] = value
    return out


def machine_id(machine: dict) -> str:
    stable = {k: machine.get(k) for k in _FINGERPRINT_FIELDS}
    return hashlib.sha256(json.dumps(stable, sort_keys=True).encode()).hexdigest()[:12]


def recorded(machine: dict) -> dict[str, str]:
    """The labels a run's machine description gives it."""
    revision = str(machine.get("tlsbench", ""))
    _, plus, rev = revision.partition("+")
    dirty = rev.endswith("-dirty")
    rev = rev.removesuffix("-dirty")
    described = re.fullmatch(r".*-g([0-9a-f]{7,40})", rev)  # git describe's TAG-N-gHASH
    commit = (described.group(1) if described else rev) if plus and rev else "unknown"
    user = machine.get("user_build") or {}
    build = {f"build.config.{lib}": c["sha256"][:16] for lib, c in sorted(user.get("configs", {}).items())}
    if user.get("cflags"):
        build["build.cflags"] = " ".join(user["cflags"])[:MAX_VALUE]
    return {"git.commit": commit, "git.dirty": "true" if dirty else "false",
            "machine": str(machine.get("hostname") or "unknown"), "machine.id": machine_id(machine), **build}


def matches(labels: dict[str, str], wanted: dict[str, str]) -> bool:
    return all(labels.get(k) == v for k, v in wanted.items())
