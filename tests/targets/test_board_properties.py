"""Property test of the board profile loader (`--board FILE`): every shipped
profile, mutated byte by byte, loads or is refused with a PlanError (one line
naming the file), never a traceback. TLSBENCH_FUZZ_EXAMPLES raises the budget;
scripts/fuzz-parsers is the long run."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given
from mutations import fuzz_budget, loaded_or_refused_in_one_line, mutated

from tlsbench.errors import PlanError
from tlsbench.targets import boardprofiles

EXAMPLES = int(os.environ.get("TLSBENCH_FUZZ_EXAMPLES", "200"))
SHIPPED = [(boardprofiles.BOARDS_DIR / f"{n}.toml").read_bytes() for n in boardprofiles.names()]
INTERESTING = [b"\xff", b"\x00", b"[", b"]", b"=", b'"', b"\n", b"nan", b"inf", b"-1", b"1e18", b"[" * 2000,
               b"9223372036854775807", b"1979-05-27", b"true", b'"user"', b"[sources]"]


@fuzz_budget(EXAMPLES)
@given(mutated(SHIPPED, INTERESTING))
def test_mutated_profiles_load_or_are_refused_in_one_line(tmp_path: Path, data: bytes) -> None:
    profile = loaded_or_refused_in_one_line(tmp_path / "board.toml", data, lambda f: boardprofiles.resolve(str(f)))
    if profile is not None:  # what loads is inside every bound
        assert 32_768 <= profile.clock_hz <= 1_000_000_000 and 0 <= profile.flash_wait_states <= 15


def test_not_toml_and_not_utf8_name_the_file(tmp_path: Path) -> None:
    f = tmp_path / "board.toml"
    cases = [(b'core = "cortex-m4"\nclock_hz = = 3\n', f"{f}:2: Invalid value; not valid TOML (https://toml.io)"),
             (b'core = "\xff"\n', f"{f}: not UTF-8 text (byte 8); a board profile is a TOML file"),
             (b"a = " + b"[" * 3000, f"{f}: arrays or tables nested too deeply; not a board profile")]
    for data, message in cases:
        f.write_bytes(data)
        with pytest.raises(PlanError) as e:
            boardprofiles.resolve(str(f))
        assert str(e.value) == message
