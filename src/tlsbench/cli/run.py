"""`tlsbench run`: a plan from a file, a preset and flags, refused before anything is built when it cannot
run where asked; then the runner."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from tlsbench.cli.args import choose, choose_libraries, user_build_options, with_user_build
from tlsbench.engine import labels as run_labels
from tlsbench.engine import parallel, plan_size, runner, timed_cpu
from tlsbench.engine.stats import parse_policy
from tlsbench.engine.store import NOTHING_MEASURED, Store
from tlsbench.errors import PlanError
from tlsbench.families import registry
from tlsbench.plans import runenv, where
from tlsbench.plans.plan import (
    METHOD_BOUNDS,
    PLAN_KINDS,
    Method,
    Plan,
    load_plan,
    load_preset,
    method_value_problem,
    validate,
)
from tlsbench.report import tables as report
from tlsbench.targets import target as targets


def plan_from_args(a: argparse.Namespace) -> tuple[Plan, str]:
    if a.plan and a.preset:
        raise PlanError("give either --plan or --preset, not both")
    if a.plan:
        plan, source = load_plan(Path(a.plan)), Path(a.plan).read_text()
    elif a.preset:
        plan, source = load_preset(a.preset)
    else:
        plan, source = load_preset("default")
    flags = []
    if a.libraries:
        plan.libraries = choose_libraries(a.libraries)
        flags.append(f"--libraries {a.libraries}")
    if a.kinds:
        plan.kinds = choose("kind", a.kinds, list(PLAN_KINDS), "tlsbench run --help")
        flags.append(f"--kinds {a.kinds}")
    for section in registry.plan_sections():  # each family's own flags (plans.model.PlanSection)
        flags += section.apply_flags(a, plan, kinds_given=bool(a.kinds))
    m = plan.method
    for name in METHOD_BOUNDS:
        value = getattr(a, name)
        if value is not None:
            problem = method_value_problem(name, value)
            if problem:
                raise PlanError(f"--{name.replace('_', '-')} {problem}")
            setattr(m, name, value)
            flags.append(f"--{name.replace('_', '-')} {value}")
    if a.allow_loader_env:
        m.allow_loader_env = True
        flags.append("--allow-loader-env")
    if a.cpu is not None:
        value = int(a.cpu) if a.cpu.isdigit() else a.cpu
        problem = timed_cpu.setting_problem(value)
        if problem:
            raise PlanError(f"--cpu {problem}")
        m.cpu = str(value)
        flags.append(f"--cpu {a.cpu}")
    if a.outliers:
        parse_policy(a.outliers)
        m.outliers = a.outliers
        flags.append(f"--outliers {a.outliers}")
    if a.env:
        m.env = {**m.env, **runenv.parse_assignments(a.env, m.allow_loader_env)}
        flags += [f"--env {item}" for item in a.env]
    validate(plan)
    if flags:
        source += "\n# overridden on the command line: " + " ".join(flags) + "\n"
    return plan, source


def refuse_too_big(plan: Plan, a: argparse.Namespace, timed: bool) -> None:
    """A plan past --max-cases is refused with its size before a case is built or stored (timed: its
    samples last --min-sample-ms, as on the host, so the least sampling time is told too)."""
    size = plan_size.size_of(plan, runner.expand, timed)
    if size.cases > a.max_cases:
        what = f"plan file {a.plan}" if a.plan else f"plan {plan.name!r}"
        raise PlanError(f"{what} expands to {size.describe()}: more than --max-cases {a.max_cases}; narrow it"
                        f" (fewer sizes, algorithms or libraries) or allow it with --max-cases {size.cases}")


def cmd_run(a: argparse.Namespace) -> int:
    store = Store(a.db)
    show_progress = not (a.no_progress or a.quiet)
    if getattr(a, "labgrid_coordinator", None):  # a resumed labgrid run finds its coordinator here too
        os.environ["LG_COORDINATOR"] = a.labgrid_coordinator
    try:
        if a.resume is not None:
            if a.label:  # a run's labels describe all of it: set when it starts, never changed halfway
                raise PlanError(f"--label with --resume: run {a.resume} keeps the labels it was started with"
                                " (tlsbench runs shows them); resume without --label")
            env = store.get_run(a.resume).plan.get("method", {}).get("env", {})
            with runenv.applied(env):
                run_id = runner.run(Plan(), "", store, resume=a.resume, json_out=sys.stdout if a.json else None,
                                    show_progress=show_progress, quiet=a.quiet, jobs=a.jobs, cache=not a.no_cache)
        else:
            target = with_user_build(targets.parse(a.target, a.board, a.profile), a)
            parallel.checked_jobs(a.jobs, target.one_at_a_time())  # before anything is built
            if target.default_preset is not None and not a.plan and not a.preset:
                a.preset = target.default_preset  # e.g. a firmware target's default plan
            plan, source = plan_from_args(a)
            target.prepare_user_build(plan.libraries)
            where.check(plan, target.name, target.runs_firmware, "preset" if a.preset else "plan")  # before any build
            refuse_too_big(plan, a, not target.deterministic)  # a clock, not counts: sampling takes time
            labels = run_labels.parse(a.label)
            if target.models_cycles and a.board:
                from tlsbench.targets import boardprofiles, cyclemodel

                # a board profile (shipped, or the user's file): the cycle model, recorded in the run's environment
                profile = boardprofiles.resolve(a.board)
                assert target.board is not None
                cyclemodel.check_target(profile, target.board)
                cyclemodel.build_plugin()
                plan.method.env.update(cyclemodel.run_env(profile))
            with runenv.applied(plan.method.env):
                run_id = runner.run(plan, source, store, json_out=sys.stdout if a.json else None,
                                    show_progress=show_progress, quiet=a.quiet, target=target, labels=labels,
                                    jobs=a.jobs, cache=not a.no_cache)
        status = store.get_run(run_id).status
        if not a.quiet and not a.json:
            print(report.render(report.load(store, run_id), "table"))
        if not a.quiet:
            print(f"run {run_id} stored in {store.path} (tlsbench report {run_id})", file=sys.stderr)
    finally:
        store.close(discard_unused=True)  # a run refused before it began leaves no new database
    if status == NOTHING_MEASURED:
        print(f"tlsbench: error: run {run_id}: nothing measured, no case came out ok (the reasons are in"
              f" tlsbench report {run_id})", file=sys.stderr)
        return 1
    return 0


def _parallel_options(p: argparse.ArgumentParser) -> None:
    """run: sessions side by side and the result cache, for exact counts (engine/parallel.py, result_cache.py)."""
    p.add_argument("--jobs", type=int, metavar="N",
                   help="emulator sessions at once where the metrics are exact (qemu:BOARD), results stored in plan"
                        " order (default: the machine's cores there; 1 elsewhere: host timings run one case at a"
                        " time and refuse more)")
    p.add_argument("--no-cache", dest="no_cache", action="store_true",
                   help="measure every exact case again, even when a stored one had the same image, emulator,"
                        " board profile and requests (default: such cases are reused, marked reused)")


def add_parsers(sub: argparse._SubParsersAction, db: argparse.ArgumentParser) -> None:
    r = sub.add_parser("run", parents=[db], help="run a plan (default: the 'default' preset)")
    r.add_argument("--plan", help="plan file (TOML)")
    r.add_argument("--preset", help="named plan (tlsbench list presets)")
    r.add_argument("--resume", type=int, metavar="RUN", help="finish an interrupted run")
    r.add_argument("--libraries", help="comma-separated, e.g. openssl,mbedtls (default: the plan's; all four)")
    r.add_argument("--kinds", help=f"comma-separated: {','.join(PLAN_KINDS)} (default: the plan's)")
    for section in registry.plan_sections():  # what each family's cases are: algorithms, sizes, suites...
        section.add_select_flags(r)
    r.add_argument("--repeats", type=int, help=f"measured batches per case (default: the plan's; {Method.repeats} in a"
                   " plan that does not say; at most 3 on an emulated board, whose counts are exact)")
    r.add_argument("--warmup", type=int, help=f"batches run and discarded per round (default: the plan's;"
                   f" {Method.warmup} in a plan that does not say)")
    r.add_argument("--outliers", help=f"none, tukey or trim:K (default: the plan's; {Method.outliers} in a plan that"
                   " does not say; none for exact counts)")
    r.add_argument("--rounds", type=int, help="passes over the plan sharing each case's repeats (spreads them in"
                   f" time; default: the plan's, {Method.rounds} in a plan that does not say)")
    r.add_argument("--min-sample-ms", dest="min_sample_ms", type=float,
                   help=f"a batch repeats the operation for at least this long"
                        f" (default: the plan's; {Method.min_sample_ms:g})")
    r.add_argument("--cpu", help=f"the CPU a timed host run's processes run on: {timed_cpu.HELP} (default: the plan's;"
                   f" {Method.cpu} in a plan that does not say)")
    r.add_argument("--timeout-s", dest="timeout_s", type=float,
                   help=f"a case that hangs longer is killed and recorded failed"
                        f" (default: the plan's; {Method.timeout_s:g})")
    r.add_argument("--json", action="store_true",
                   help="print only JSON lines on stdout: one object per metric of each case (a case that did not run:"
                        " one, metric null, with its reason); 'format' is the version of the fields")
    r.add_argument("--env", action="append", metavar="NAME=VALUE",
                   help="environment variable for every process of the run, recorded with it (repeatable),"
                        " e.g. OPENSSL_ia32cap=~0x200000200000000 masks AES-NI in OpenSSL")
    r.add_argument("--allow-loader-env", action="store_true",
                   help="let --env (or the plan's env) set variables that change what code is measured: LD_*, PATH,"
                        " PYTHONPATH, OPENSSL_CONF, OPENSSL_MODULES, GCONV_PATH and the like")
    r.add_argument("--max-cases", dest="max_cases", type=int, default=plan_size.DEFAULT_MAX_CASES, metavar="N",
                   help="refuse a plan of more cases than this, told its case count and least sampling time"
                        f" before anything is built or stored (default {plan_size.DEFAULT_MAX_CASES:,})")
    r.add_argument("--no-progress", action="store_true", help="no progress line on stderr (default: one)")
    r.add_argument("--target", default="host",
                   help="host (default), qemu:BOARD, serial:DEVICE or labgrid:PLACE[,PLACE]"
                        " (see: tlsbench list targets)")
    r.add_argument("--board", help="the board behind a serial target, e.g. nucleo-f446re; with a qemu target, the"
                                   " board profile whose cycle model the run adds: a shipped one"
                                   " (src/tlsbench/targets/boards/) or your own file, e.g. ./my-board.toml"
                                   " (tlsbench board new)")
    r.add_argument("--profile", help="firmware library build profiles, e.g. mbedtls=small,wolfssl=sp-asm")
    user_build_options(r)
    _parallel_options(r)
    r.add_argument("--labgrid-coordinator", dest="labgrid_coordinator", metavar="HOST:PORT",
                   help="the labgrid coordinator of a labgrid:PLACE target (default: $LG_COORDINATOR)")
    for section in registry.plan_sections():  # how each family's cases run there (e.g. one side on the device)
        section.add_target_flags(r)
    r.add_argument("--label", action="append", metavar="KEY=VALUE",
                   help="a label for the run (repeatable), e.g. --label branch=tuning; the commit, library"
                        " versions and machine are recorded as labels already (tlsbench runs --label); not"
                        " with --resume (a run keeps the labels it started with)")
    r.add_argument("-q", "--quiet", action="store_true",
                   help="no progress, no table, no notes: only errors on stderr (the run is stored)")
    r.set_defaults(func=cmd_run)
