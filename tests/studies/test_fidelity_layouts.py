"""scripts/fidelity-layouts relinks a program with a block of code ahead of
all of its own: every function of the library then lands exactly that many
bytes later (the check that the experiment moves what it claims to move)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tlsbench import cli, paths
from tlsbench.studies import fidelity_layouts as fl


def _address(exe: Path, name: str) -> int:
    out = subprocess.run(["nm", str(exe)], capture_output=True, text=True, check=True).stdout
    return next(int(c[0], 16) for c in (line.split() for line in out.splitlines()) if len(c) == 3 and c[2] == name)


@pytest.mark.parametrize("target, function", [
    ("tlsbench-agent-wolfssl", "sp_256_mont_mul_avx2_4"),  # the verify's hottest function (wolfSSL SP asm)
    ("tlsbench-agent-mbedtls", "mbedtls_mpi_core_montmul"),  # the RSA public operation's
])
def test_a_pad_moves_the_library_code_by_its_size(agents, tmp_path: Path, target: str, function: str) -> None:
    build = paths.build_dir("host")
    plain = fl.relink(build, target, None, tmp_path / "plain")
    moved = fl.relink(build, target, fl.pad_object(tmp_path, 1024), tmp_path / "moved")
    assert _address(moved, function) - _address(plain, function) == 1024
    assert _address(plain, function) == _address(build / target, function)  # the unpadded relink is the agent


def test_bad_pads_are_refused_with_what_is_allowed(capsys) -> None:
    with pytest.raises(SystemExit) as e:
        cli.main(["study", "layouts", "wolfssl-ecdsa-verify", "--pads", "0,x"])
    assert e.value.code == 2
    assert "comma-separated byte counts" in capsys.readouterr().err
