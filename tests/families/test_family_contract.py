"""A family is one folder and one registration line: a tiny family written
into a temporary folder, registered by one line before tlsbench reads its
registry, owns its plan table and `tlsbench run` flag and runs through the
runner like the shipped ones (against tests/fake_agent.py: no build)."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

# the family's folder: its plan section (the [tiny] table, --tiny-calls) and the family
TINY_FAMILY = '''
from __future__ import annotations

import time

from tlsbench.engine import agent, metrics
from tlsbench.engine.case import Case, Measured, Sample
from tlsbench.errors import PlanError
from tlsbench.families.base import KIND_CHARTS, ReportView, ViewTable
from tlsbench.plans.checks import check_number

KEYS = {"calls": "integer 1..100 (hello requests per batch)"}


class TinySection:
    table = "tiny"
    keys = KEYS

    def defaults(self):
        return {"tiny_calls": 1}

    def parse(self, loc, given, plan):
        if "calls" in given:
            plan.tiny_calls = int(check_number(loc, "tiny", "calls", KEYS["calls"], given["calls"], True, 1, False))

    def validate(self, plan, loc):
        if plan.tiny_calls > 100:
            raise loc.error("tiny", "calls", f"must be {KEYS['calls']}")

    def load(self, stored):
        return {"tiny_calls": stored.get("tiny_calls", 1)}

    def dump(self, plan):
        return {"tiny_calls": plan.tiny_calls}

    def long_lists(self, plan):
        return {}

    def cut(self, plan, keep):
        pass

    def device_side(self, plan):
        return ""

    def firmware_problem(self, plan, target_name, what):
        return None

    def add_select_flags(self, p):
        p.add_argument("--tiny-calls", dest="tiny_calls", type=int, metavar="N",
                       help="tiny cases: hello requests per batch (default: the plan's)")

    def add_target_flags(self, p):
        pass

    def apply_flags(self, a, plan, kinds_given):
        if a.tiny_calls is None:
            return []
        if not 1 <= a.tiny_calls <= 100:
            raise PlanError(f"--tiny-calls must be {KEYS['calls']}, got {a.tiny_calls}")
        plan.tiny_calls = a.tiny_calls
        plan.kinds = [*plan.kinds, "tiny"] if kinds_given else ["tiny"]
        return [f"--tiny-calls {a.tiny_calls}"]


def _hellos(data):
    return [[c["name"], c["status"]] for c in data.cases if c["kind"] == "tiny"]


# its own report view: `tlsbench report --view hellos` and a table on the run's page
HELLOS = ReportView("hellos", lambda data, md: "hellos: " + "; ".join(" ".join(r) for r in _hellos(data)) + "\\n",
                    lambda data: [ViewTable("hellos", "Tiny: hello cases", ["case", "status"], _hellos(data))],
                    lambda data: bool(_hellos(data)))


class TinyFamily:
    name = "tiny"
    kinds = ("tiny",)
    needs_checks = False
    timed = False
    placed = False
    plan_kinds = ("tiny",)
    default_kinds = ()
    plan_section = TinySection()
    views = (KIND_CHARTS,)
    kind_titles = {"tiny": "agent hello"}
    report_views = (HELLOS,)
    sized_kinds = ()

    def expand(self, plan):
        return [Case(lib, "tiny", "agent", "hello", None) for lib in plan.libraries] if "tiny" in plan.kinds else []

    def metrics(self):
        return (metrics.get("wall_ns"),)

    def prepare(self, plan, keys, now):
        pass

    def check(self, agents, support, keys, cases, timeout):
        return []

    def measure(self, case, ctx, rnd):
        calls = ctx.plan.tiny_calls
        start = time.perf_counter_ns()
        res = agent.call(ctx.info.path, ["hello"] * calls, ctx.plan.method.timeout_s, case.name)
        batch = Sample(rnd, False, calls, "wall_ns", time.perf_counter_ns() - start)
        return Measured("ok", "", calls, res.stdout, [batch], [])
'''

# tlsbench with the family registered: the line below "one line" is registry.py's entry for it
WITH_TINY = '''
import sys
sys.path.insert(0, sys.argv.pop(1))
from tlsbench.families import registry
from tiny_family.family import TinyFamily
registry.FAMILIES = (*registry.FAMILIES, TinyFamily())  # the one line
registry._BY_KIND.update(tiny=registry.FAMILIES[-1])
from tlsbench.cli.main import main
sys.exit(main(sys.argv[1:]))
'''


def _tlsbench_with_tiny(folder: Path, *args: str) -> subprocess.CompletedProcess:
    (folder / "tiny_family").mkdir(exist_ok=True)
    (folder / "tiny_family" / "__init__.py").write_text("")
    (folder / "tiny_family" / "family.py").write_text(TINY_FAMILY)
    return subprocess.run([sys.executable, "-c", WITH_TINY, str(folder), *args], capture_output=True, text=True,
                          timeout=120)


def test_a_family_from_one_folder_runs_with_its_own_flag(fake_agent_dir: Path, tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    p = _tlsbench_with_tiny(tmp_path, "--db", str(db), "run", "--libraries", "openssl", "--tiny-calls", "3",
                            "--repeats", "2", "--rounds", "2", "--warmup", "0", "--no-progress", "-q")
    assert (p.returncode, p.stderr) == (0, "")
    with sqlite3.connect(db) as c:
        source, plan = c.execute("SELECT plan_source, plan_json FROM runs").fetchone()
        cases = c.execute("SELECT name, kind, status, iters, rounds_done FROM cases").fetchall()
        samples = c.execute("SELECT idx, iters, counter FROM samples ORDER BY rowid").fetchall()
        transcript = c.execute("SELECT transcript FROM cases").fetchone()[0]
    assert source.endswith("\n# overridden on the command line: --libraries openssl --tiny-calls 3 --warmup 0"
                           " --repeats 2 --rounds 2\n")
    assert json.loads(plan)["kinds"] == ["tiny"] and json.loads(plan)["tiny_calls"] == 3
    assert cases == [("openssl/tiny/agent/hello", "tiny", "ok", 3, 2)]
    assert samples == [(0, 3, "wall_ns"), (1, 3, "wall_ns")]  # a batch of three hello requests per round
    assert transcript.count("tb1 hello proto=2 library=openssl version=fake%201.0") == 6


def test_a_family_hands_the_report_its_own_view(fake_agent_dir: Path, tmp_path: Path) -> None:
    """The family's view is a `--view` choice, rendered by the family, and a table on the run's page."""
    db = tmp_path / "r.sqlite"
    p = _tlsbench_with_tiny(tmp_path, "--db", str(db), "run", "--libraries", "openssl", "--tiny-calls", "1",
                            "--repeats", "1", "--rounds", "1", "--warmup", "0", "--no-progress", "-q")
    assert (p.returncode, p.stderr) == (0, "")
    p = _tlsbench_with_tiny(tmp_path, "--db", str(db), "report", "--view", "hellos")
    assert (p.returncode, p.stdout, p.stderr) == (0, "hellos: openssl/tiny/agent/hello ok\n", "")
    p = _tlsbench_with_tiny(tmp_path, "--db", str(db), "report", "--format", "html")
    assert p.returncode == 0 and '<h2 id="hellos">Tiny: hello cases</h2>' in p.stdout


def test_a_family_table_in_a_plan_file_is_checked_by_its_section(tmp_path: Path) -> None:
    plan = tmp_path / "p.toml"
    plan.write_text('[select]\nkinds = ["tiny"]\n\n[tiny]\ncalls = "many"\n')
    p = _tlsbench_with_tiny(tmp_path, "--db", str(tmp_path / "r.sqlite"), "run", "--plan", str(plan))
    assert p.returncode != 0
    assert p.stderr == (f"tlsbench: error: {plan}:5: [tiny] calls: must be integer 1..100 (hello requests per batch),"
                        " got 'many'\n")
