"""A target kind is one module and one registration line: a throwaway kind written into a temporary folder
(`demo:NAME`, this machine's host agents under another prefix), registered by one line in the kinds table
before tlsbench reads it, is parsed, listed and runs a case through `tlsbench run` like the shipped kinds
(against tests/fake_agent.py: no build)."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

# the kind's module: the Target interface's required parts, nothing of tlsbench changed
DEMO_KIND = '''
from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from tlsbench import paths, versions
from tlsbench.errors import PlanError
from tlsbench.targets.base import Target
from tlsbench.targets.libraries import probe


class DemoTarget(Target):
    kind: ClassVar[str] = "demo"
    paced: ClassVar[bool] = True  # timed on this machine's clock, as the host

    @classmethod
    def known_names(cls):
        return ["demo:NAME"]

    @classmethod
    def from_spec(cls, name, rest, board, profiles, coordinator):
        if not rest or board or profiles:
            raise PlanError("demo:NAME takes a name, and no --board or --profile")
        return cls(name)

    def describe(self):
        return f"{self.name}: the host agents under another name"

    def launcher(self, library):
        return paths.agent_path(library)

    def agent_path(self, library):
        return self.launcher(library)

    def probe_library(self, library, timeout=None):
        return probe(library, path=self.launcher(library))

    def build(self, libraries, opt, jobs, one_side):
        raise PlanError("a demo target runs the host agents: tlsbench build --target host")

    def listed_libraries(self):
        return versions.identifiers()

    def library_lines(self, library):
        return [library]
'''

# tlsbench with the kind registered: the line below "the one line" is targets/target.py's entry for it
WITH_DEMO = '''
import sys
sys.path.insert(0, sys.argv.pop(1))
from tlsbench.targets import target
from demo_kind.target import DemoTarget
target.KINDS["demo"] = DemoTarget  # the one line
from tlsbench.cli.main import main
sys.exit(main(sys.argv[1:]))
'''


def _tlsbench_with_demo(folder: Path, *args: str) -> subprocess.CompletedProcess:
    (folder / "demo_kind").mkdir(exist_ok=True)
    (folder / "demo_kind" / "__init__.py").write_text("")
    (folder / "demo_kind" / "target.py").write_text(DEMO_KIND)
    return subprocess.run([sys.executable, "-c", WITH_DEMO, str(folder), *args], capture_output=True, text=True,
                          timeout=120)


def test_a_kind_from_one_module_runs_a_case(fake_agent_dir: Path, tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    p = _tlsbench_with_demo(tmp_path, "--db", str(db), "run", "--target", "demo:here", "--libraries", "openssl",
                            "--algorithms", "sha256", "--ops", "hash", "--sizes", "64", "--repeats", "2",
                            "--rounds", "1", "--warmup", "0", "--no-progress", "-q")
    assert (p.returncode, p.stderr) == (0, "")
    with sqlite3.connect(db) as c:
        (target,) = c.execute("SELECT target FROM runs").fetchone()
        cases = c.execute("SELECT name, status, rounds_done FROM cases").fetchall()
        samples = c.execute("SELECT idx, counter FROM samples ORDER BY rowid").fetchall()
    assert target == "demo:here"
    assert cases == [("openssl/hash/sha256/hash/64", "ok", 1)]
    assert samples == [(0, "wall_ns"), (0, "cpu_ns"), (1, "wall_ns"), (1, "cpu_ns")]


def test_a_kind_is_listed_and_its_names_are_checked(tmp_path: Path) -> None:
    p = _tlsbench_with_demo(tmp_path, "list", "targets")
    assert p.returncode == 0 and "\ndemo:NAME " in p.stdout
    p = _tlsbench_with_demo(tmp_path, "--db", str(tmp_path / "r.sqlite"), "run", "--target", "demo:here", "--board",
                            "stm32f405")
    assert (p.returncode, p.stderr) == (2, "tlsbench: error: demo:NAME takes a name, and no --board or --profile\n")
