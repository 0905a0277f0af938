"""Plan files: every mistake names the file, the line and the allowed values."""

from __future__ import annotations

from pathlib import Path

import pytest

from tlsbench.errors import PlanError
from tlsbench.plans.plan import load_plan, load_preset, parse_plan, presets


def test_presets_are_valid() -> None:
    assert {"default", "quick", "hashes"} <= set(presets())
    for name in presets():
        plan, _ = load_preset(name)
        assert plan.name == name


def test_a_full_plan_is_read() -> None:
    plan = parse_plan('name = "x"\n[select]\nlibraries = ["openssl"]\nsizes = [64, 16]\n'
                      '[method]\nrepeats = 5\noutliers = "trim:2"\n')
    assert plan.libraries == ["openssl"] and plan.sizes == [16, 64]
    assert plan.method.repeats == 5 and plan.method.outliers == "trim:2"


@pytest.mark.parametrize(
    "text, message",
    [
        ('[select]\nlibraries = ["openssl"]\nalgoritms = ["sha256"]\n',
         r"p.toml:3: \[select\] algoritms: unknown key; allowed keys: libraries"),
        ('[select]\nlibraries = ["opensll"]\n',
         r"p.toml:2: \[select\] libraries: unknown value 'opensll' \(did you mean openssl\?\); allowed: mbedtls"),
        ('[select]\nalgorithms = ["sha-256"]\n', r"p.toml:2: .*did you mean .*sha256"),
        ('[method]\nwarmup = 1\nrepeats = "ten"\n', r"p.toml:3: \[method\] repeats: must be integer 1..100000"),
        ('[method]\nrepeats = 0\n', r"p.toml:2: \[method\] repeats: must be integer 1..100000"),
        ('[method]\noutliers = "iqr"\n', r"p.toml:2: .*allowed: none, tukey or trim:K"),
        ('[select]\nsizes = [64, 0]\n', r"p.toml:2: \[select\] sizes: must be a non-empty list"),
        ('colour = "red"\n', r"p.toml:1: colour: unknown key"),
        ('[select]\nkinds = ["hash"]\nalgorithms = ["x25519"]\n', r"'x25519' is not of the selected kinds"),
        ('[select\n', r"p.toml: not valid TOML"),
        ('[method]\nrepeats = 1000000000000000000\n', r"p.toml:2: \[method\] repeats: must be integer 1..100000"),
        ('[method]\ntimeout_s = nan\n', r"p.toml:2: \[method\] timeout_s: must be number > 0 and <= 86400"),
        ('[method]\nmin_sample_ms = inf\n', r"p.toml:2: \[method\] min_sample_ms: must be number > 0"),
        ('[method]\nrepeats = 10\nrounds = 1000000000000\n', r"p.toml:3: \[method\] rounds: must be integer 1..rep"),
        ('[method]\nenv = { A = "x\\u0000y" }\n', r"p.toml:2: \[method\] env: A: the value contains a NUL"),
        ('[method]\nenv = { LD_PRELOAD = "/tmp/x.so" }\n', r"p.toml:2: \[method\] env: LD_PRELOAD changes which code"),
        ('[method]\nenv = { PATH = "/tmp" }\n', r"p.toml:2: \[method\] env: PATH changes which code"),
        ('[select]\nlibraries = []\n', r"p.toml:2: \[select\] libraries: must name at least one library"),
        ('[select]\nkinds = []\n', r"p.toml:2: \[select\] kinds: must name at least one kind"),
        ('[select]\nsizes = [2000000]\n', r"p.toml:2: \[select\] sizes: must be .* 1..1048576"),
        ("a = " + "[" * 5000 + "]" * 5000 + "\n", r"p.toml: not a plan: arrays or tables nested too deeply"),
        ("a = 1979-13-27\n", r"p.toml: not valid TOML"),
    ],
)
def test_mistakes_point_at_the_line(tmp_path: Path, text: str, message: str) -> None:
    f = tmp_path / "p.toml"
    f.write_text(text)
    with pytest.raises(PlanError, match=message):
        load_plan(f)


def test_unknown_preset_suggests_one() -> None:
    with pytest.raises(PlanError, match="did you mean quick"):
        load_preset("quik")


def test_loader_variables_are_allowed_when_the_plan_says_so() -> None:
    plan = parse_plan('[method]\nallow_loader_env = true\nenv = { LD_BIND_NOW = "1" }\n')
    assert plan.method.env == {"LD_BIND_NOW": "1"} and plan.method.allow_loader_env


def test_a_file_that_is_not_utf8_names_its_line(tmp_path: Path) -> None:
    f = tmp_path / "p.toml"
    f.write_bytes(b'name = "x"\ndescription = "caf\xe9"\n')
    with pytest.raises(PlanError, match=r"p.toml:2: not UTF-8 text \(byte 0xe9\)"):
        load_plan(f)
