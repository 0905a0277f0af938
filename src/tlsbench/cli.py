"""Command line: each subcommand maps to one handler. Errors are caught here
once and printed as one line on stderr with a non-zero exit."""

from __future__ import annotations

import argparse
import difflib
import json
import logging
import math
import os
import shlex
import signal
import sys
import textwrap
from pathlib import Path

from tlsbench import doctor, fidelity, paths, versions
from tlsbench.engine import labels as run_labels
from tlsbench.engine import machine, metrics, parallel, plan_size, runner, stopping
from tlsbench.engine.stats import parse_policy
from tlsbench.engine.store import NOTHING_MEASURED, Store
from tlsbench.engine.store_backends import SQLITE, db_errors, is_url, redacted
from tlsbench.engine.store_faults import explain, resume_command
from tlsbench.errors import PlanError, RunInterrupted, TlsbenchError
from tlsbench.families.primitive.catalog import ALGORITHMS, BENCH_OPS, DEFAULT_KINDS, KINDS
from tlsbench.families.tls import catalog as tls_catalog
from tlsbench.families.tls import certs
from tlsbench.families.tls import support as tls_support
from tlsbench.outfile import write_whole
from tlsbench.plans import runenv, where
from tlsbench.plans.plan import (
    MAX_SIZE,
    METHOD_BOUNDS,
    PLAN_KINDS,
    Method,
    Plan,
    all_ops,
    load_plan,
    load_preset,
    method_value_problem,
    presets,
    validate,
)
from tlsbench.report import compare, compare_html, compare_text, export
from tlsbench.report import html as html_report
from tlsbench.report import tables as report
from tlsbench.targets import build, userconfig
from tlsbench.targets import target as targets
from tlsbench.targets.libraries import LibraryInfo


def _csv(text: str) -> list[str]:
    return [t.strip() for t in text.split(",") if t.strip()]


def _sizes(text: str) -> list[int]:
    try:
        sizes = sorted({int(t) for t in _csv(text)})
    except ValueError:
        raise PlanError(f"--sizes must be a comma-separated list of integers, got {text!r}") from None
    if not sizes or sizes[0] < 1 or sizes[-1] > MAX_SIZE:
        raise PlanError(f"--sizes must list byte counts 1..{MAX_SIZE}, got {text!r}")
    return sizes


def _percent(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a percentage, e.g. 5, got {text!r}") from None
    if not 0 <= value < 1000 or math.isnan(value):
        raise argparse.ArgumentTypeError(f"must be a percentage from 0 to 1000, got {text!r}")
    return value


def _choose(what: str, text: str, allowed: list[str], see: str) -> list[str]:
    """A comma-separated selection; an unknown name suggests the nearest."""
    chosen = _csv(text)
    for name in chosen:
        if name not in allowed:
            near = difflib.get_close_matches(name, allowed, n=3, cutoff=0.5)
            hint = f" (did you mean {', '.join(near)}?)" if near else ""
            raise PlanError(f"unknown {what} {name!r}{hint}; see: {see}")
    return chosen


def _choose_libraries(text: str) -> list[str]:
    """--libraries: bare names (the default version) or name@version, e.g. openssl@3.5."""
    names = _csv(text)
    _choose("library", ",".join(versions.base(n) for n in names), list(versions.VERSIONS), "tlsbench list libraries")
    chosen = [versions.canonical(name) for name in names]  # one line listing the versions allowed
    if len(set(chosen)) != len(chosen):
        raise PlanError(f"--libraries {text}: names a library version twice")
    return chosen


# run flags that set the TLS matrix (the [tls] table of a plan): name, allowed values, where to see them
TLS_FLAGS = (
    ("suites", tls_catalog.SUITES, "tlsbench list suites"),
    ("groups", tls_catalog.GROUPS, "tlsbench run --help"),
    ("certs", tls_catalog.KEY_TYPES, "tlsbench run --help"),
    ("handshakes", tuple(tls_catalog.HANDSHAKES), "tlsbench run --help"),
)
TLS_FLAG_WHAT = {"suites": "suite", "groups": "group", "certs": "certificate key type", "handshakes": "handshake kind"}


def _plan_from_args(a: argparse.Namespace) -> tuple[Plan, str]:
    if a.plan and a.preset:
        raise PlanError("give either --plan or --preset, not both")
    if a.plan:
        plan, source = load_plan(Path(a.plan)), Path(a.plan).read_text()
    elif a.preset:
        plan, source = load_preset(a.preset)
    else:
        plan, source = load_preset("default")
    flags = []
    known_algs = [x for algs in ALGORITHMS.values() for x in algs]
    if a.libraries:
        plan.libraries = _choose_libraries(a.libraries)
        flags.append(f"--libraries {a.libraries}")
    if a.kinds:
        plan.kinds = _choose("kind", a.kinds, list(PLAN_KINDS), "tlsbench run --help")
        if not a.algorithms:  # the flag narrows the plan: its algorithms of the other kinds go too
            plan.algorithms = [x for x in plan.algorithms
                               if any(x in ALGORITHMS[k] for k in plan.kinds if k in ALGORITHMS)]
        flags.append(f"--kinds {a.kinds}")
    if a.algorithms:
        plan.algorithms = _choose("algorithm", a.algorithms, known_algs, "tlsbench list algorithms")
        if not a.kinds:
            plan.kinds = [k for k in KINDS if any(x in ALGORITHMS[k] for x in plan.algorithms)]
        flags.append(f"--algorithms {a.algorithms}")
    if a.ops:
        plan.ops = _choose("operation", a.ops, all_ops(), "tlsbench run --help")
        flags.append(f"--ops {a.ops}")
    if a.sizes:
        plan.sizes = _sizes(a.sizes)
        flags.append(f"--sizes {a.sizes}")
    if a.device_side:
        plan.tls.device_side = a.device_side
        flags.append(f"--device-side {a.device_side}")
    for name, allowed, see in TLS_FLAGS:  # the TLS matrix, as a plan's [tls] table would set it
        text = getattr(a, f"tls_{name}")
        if text:
            setattr(plan.tls, name, _choose(TLS_FLAG_WHAT[name], text, list(allowed), see))
            if "tls" not in plan.kinds:
                plan.kinds = [*plan.kinds, "tls"] if a.kinds else ["tls"]
            flags.append(f"--{name} {text}")
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


def _refuse_too_big(plan: Plan, a: argparse.Namespace, timed: bool) -> None:
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
            target = _with_user_build(targets.parse(a.target, a.board, a.profile), a)
            parallel.checked_jobs(a.jobs, target.one_at_a_time())  # before anything is built
            if target.default_preset is not None and not a.plan and not a.preset:
                a.preset = target.default_preset  # e.g. a firmware target's default plan
            plan, source = _plan_from_args(a)
            target.prepare_user_build(plan.libraries, log=lambda m: print(m, file=sys.stderr))
            where.check(plan, target.name, target.runs_firmware, "preset" if a.preset else "plan")  # before any build
            _refuse_too_big(plan, a, not target.deterministic)  # a clock, not counts: sampling takes time
            labels = run_labels.parse(a.label)
            if target.models_cycles and a.board:
                from tlsbench.targets import boardprofiles, cyclemodel

                # a board profile (shipped, or the user's file): the cycle model, recorded in the run's environment
                profile = boardprofiles.resolve(a.board)
                assert target.board is not None
                cyclemodel.check_target(profile, target.board)
                cyclemodel.build_plugin(log=lambda m: print(m, file=sys.stderr))
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


def _with_user_build(target: targets.Target, a: argparse.Namespace) -> targets.Target:
    """The target with the user's --config files and --cflags (none: the target as it was)."""
    return target.with_user_build(userconfig.parse(a.config, a.cflags))


def _check_measured(data: report.RunData, metric: str) -> None:
    """A metric the run never measured is an error that names what it did
    measure: the per-side names first when the run has them (a TLS run)."""
    measured = sorted({m for c in data.cases for m in c["results"]})
    if metric in measured:
        return
    sided = [m for m in measured if m.endswith(f"_{metric}") and any(f"{s}_" in m for s in metrics.SIDES)]
    hint = f"per side: {', '.join(sided)}; " if sided else ""
    raise PlanError(f"run {data.run.id} did not measure {metric}; {hint}"
                    f"it measured: {', '.join(measured) or 'nothing'}")


def cmd_report(a: argparse.Namespace) -> int:
    if a.metric is not None:
        metrics.get(a.metric)  # an unknown name: the nearest known ones
    store = Store(a.db, read_only=True)
    try:
        run_id = a.run if a.run is not None else store.latest_run_id()
        data = report.load(store, run_id)
    finally:
        store.close()
    if a.metric is not None:
        _check_measured(data, a.metric)
    if a.format in export.FORMATS:
        for path in export.export(data, a.format, a.output):
            print(path)
        return 0
    text = html_report.render(data) if a.format == "html" else report.render(data, a.format, a.metric, a.view)
    if a.output:
        write_whole(a.output, text)  # whole or not at all: a full disk leaves no empty file
        print(f"{a.output}: {len(text.encode()):,} bytes", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


# --fail-on-regression: 0 no regression, 1 a regression, 2 an error, 3 a case
# that could hide a regression but the samples cannot tell (inconclusive).
EXIT_INCONCLUSIVE = 3


def _version_pair(text: str | None) -> tuple[str, str] | None:
    """--versions A,B: two versions of one library (bare name = its default)."""
    if text is None:
        return None
    names = _csv(text)
    if len(names) != 2:
        raise PlanError(f"--versions {text}: give two versions of one library, e.g. openssl@3.0,openssl@3.5")
    pair = (versions.canonical(names[0]), versions.canonical(names[1]))
    if versions.base(pair[0]) != versions.base(pair[1]):
        raise PlanError(f"--versions {text}: {pair[0]} and {pair[1]} are not versions of one library")
    return pair


def cmd_compare(a: argparse.Namespace) -> int:
    store = Store(a.db, read_only=True)
    try:
        result = compare.compare(store, a.run_a, a.run_b, metric=a.metric, alpha=a.alpha,
                                 min_effect=a.min_effect / 100, versions=_version_pair(a.versions))
    finally:
        store.close()
    if a.export == "ci-json":
        text = json.dumps(compare_text.ci_json(result), indent=1) + "\n"
    elif a.export == "bmf":
        text = json.dumps(compare_text.bmf_json(result), indent=1) + "\n"
    elif a.format == "html":
        text = compare_html.render(result, only_changes=a.changes)
    else:
        text = compare_text.render(result, a.format, only_changes=a.changes)
    if a.output:
        write_whole(a.output, text)  # whole or not at all: a full disk leaves no empty file
    else:
        sys.stdout.write(text)
    if result.context_differences:
        print("note: the runs were made differently (see above); differences may not be the libraries'",
              file=sys.stderr)
    if a.fail_on_regression is not None:
        worse = compare.regressions(result, a.fail_on_regression)
        for r in worse:
            print(f"regression: {r.name} {r.metric}: B/A {r.ratio:.3f} ({r.verdict}, more than"
                  f" {a.fail_on_regression:g}%)", file=sys.stderr)
        if worse:
            return 1
        unknown = compare.undecided(result, a.fail_on_regression)
        for r in unknown:
            print(f"inconclusive: {r.name} {r.metric}: {r.note}", file=sys.stderr)
        if unknown:
            return EXIT_INCONCLUSIVE
    return 0


def cmd_history(a: argparse.Namespace) -> int:
    from tlsbench.report import history, history_html

    store = Store(a.db, read_only=True)
    try:
        h = history.read(store, a.cases, since=a.since, labels=a.label, metric=a.metric, alpha=a.alpha,
                         min_effect=a.min_effect / 100)
    finally:
        store.close()
    text = history_html.render(h) if a.format == "html" else history.render_text(h)
    if a.output:
        write_whole(a.output, text)  # whole or not at all: a full disk leaves no empty file
        print(f"{a.output}: {len(text.encode()):,} bytes", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


def cmd_runs(a: argparse.Namespace) -> int:
    import time as _t

    wanted = run_labels.parse(a.label, recorded_ok=True)
    store = Store(a.db, read_only=True)
    try:
        rows = [r for r in store.list_runs() if run_labels.matches(r["labels"], wanted)]
    finally:
        store.close()
    if not rows:
        print(f"no runs in {store.path}" + (" with " + ", ".join(a.label) if wanted else ""))
        return 0
    header = ["run", "created", "status", "target", "board", "plan", "cases", "ok", "tlsbench", "labels"]
    body = []
    for r in rows:
        created = _t.strftime("%Y-%m-%d %H:%M:%S", _t.localtime(r["created"]))
        status = r["status"] if r["status"] in ("complete", NOTHING_MEASURED) else "incomplete"
        # the user's labels (the recorded ones are in the columns or `--label` filters)
        own = ",".join(f"{k}={v}" for k, v in r["labels"].items() if not k.startswith(run_labels.RECORDED_PREFIXES))
        # a model run's board is its profile's (the emulated machine is in the target column)
        board = f"{r['board_profile']} (model)" if r["board_profile"] else r["board"] or "-"
        body.append([str(r["id"]), created, status, r["target"], board, r["plan_name"],
                     str(r["cases"]), str(r["ok"]), r["tlsbench_version"], own or "-"])
    # columns as wide as their longest value: a long plan name shifts, never breaks, the table
    widths = [max(len(row[i]) for row in [header, *body]) for i in range(len(header))]
    right = {0, 6, 7}
    for row in [header, *body]:
        cells = (v.rjust(w) if i in right else v.ljust(w) for i, (v, w) in enumerate(zip(row, widths, strict=True)))
        print("  ".join(cells).rstrip())
    return 0


def cmd_db_check(a: argparse.Namespace) -> int:
    from tlsbench.engine import store_salvage

    store = Store(a.db, read_only=True)
    try:
        damage = store.check(quick=False)
        if a.salvage and store.dialect is not SQLITE:
            raise PlanError("--salvage copies a SQLite file; a PostgreSQL server keeps its own consistency")
        if damage and a.salvage:
            copied = store_salvage.salvage(store, Path(a.salvage))
        elif damage:
            read = store_salvage.readable(store)
    finally:
        store.close()
    if not damage:
        print(f"{store.path}: ok ({store.check_name})" + ("; nothing to salvage" if a.salvage else ""))
        return 0
    print(f"{store.path}: damaged ({len(damage)} finding(s) of {store.check_name}):", file=sys.stderr)
    for line in damage[:20]:
        print(f"  {line}", file=sys.stderr)
    if a.salvage:
        print(f"salvaged into {a.salvage}: " + "; ".join(t.describe() for t in copied))
        print(f"check what it holds with: tlsbench runs --db {shlex.quote(a.salvage)}")
        return 0
    print("readable: " + "; ".join(t.describe() for t in read), file=sys.stderr)
    print(f"copy what is readable into a new file with: tlsbench db check --db {shlex.quote(str(store.path))}"
          " --salvage NEW.sqlite", file=sys.stderr)
    return 1


def cmd_db_push(a: argparse.Namespace) -> int:
    from tlsbench.engine import push

    source = Store(a.db, read_only=True)
    try:
        dest = Store(a.to)
        try:
            pushed = push.push(source, dest, a.runs)
        finally:
            dest.close()
    finally:
        source.close()
    for p in pushed:
        what = "pushed as" if p.copied else "already there as"
        print(f"run {p.run_id}: {what} run {p.dest_id} ({p.cases} cases)")
    copied = sum(p.copied for p in pushed)
    print(f"{copied} run(s) pushed, {len(pushed) - copied} already there, to {dest.path}")
    return 0


def _probe_on(target: targets.Target, lib: str) -> LibraryInfo:
    """Ask a library's agent on this target (firmware: through its launcher) what it supports."""
    return target.listing_probe(lib)


def cmd_list(a: argparse.Namespace) -> int:
    what = a.what
    target = _with_user_build(targets.parse(a.target, a.board, a.profile), a)
    libraries = target.listed_libraries()
    note = target.listing_note(libraries)
    if note is not None and what in ("libraries", "algorithms", "suites"):
        print(note)
    if what == "libraries":
        for lib in libraries:
            print("\n".join(target.library_lines(lib)))
    elif what == "algorithms":
        support: dict[str, set] = {}
        for lib in libraries:
            try:
                support[lib] = _probe_on(target, lib).support
            except TlsbenchError:
                support[lib] = None  # type: ignore[assignment]
        header = ["kind", "algorithm", "ops"] + libraries
        body = []
        for kind, algs in ALGORITHMS.items():
            if kind not in DEFAULT_KINDS and not any(  # a kind only other versions have: shown where one is listed
                    s and any(k == kind for k, _, _ in s) for s in support.values()):
                continue
            for alg in algs:
                row = [kind, alg, ",".join(BENCH_OPS[kind])]
                for lib in libraries:
                    s = support[lib]
                    if s is None:
                        row.append("not built")
                    else:
                        ops = [op for op in BENCH_OPS[kind] if (kind, alg, op) in s]
                        row.append("yes" if len(ops) == len(BENCH_OPS[kind]) else ("partial: " + ",".join(ops)
                                   if ops else "unsupported"))
                body.append(row)
        print(report.aligned(header, body))
    elif what == "suites":
        agents: dict[str, Path] = {}
        images: dict[str, str] = {}  # each image's answers are kept by its SHA-256
        for lib in libraries:
            try:
                info = _probe_on(target, lib)
            except TlsbenchError:
                continue
            agents[lib], images[lib] = info.path, info.agent_sha256
        # an emulated handshake costs seconds: firmware is asked by set-up unless --check (the host: handshakes)
        check = target.suites_by_handshake or a.check
        header, body = tls_support.support_matrix(agents, libraries, images,
                                                  log=lambda m: print(m, file=sys.stderr, flush=True), check=check)
        print(report.aligned(header, body))
        for answer, meaning in tls_support.LEGEND.items():
            if any(answer in row for row in body):
                print(f"{answer}: {meaning}")
    elif what == "targets":
        print(f"{'host':28}  {targets.HOST.describe()}")
        for b in targets.BOARDS.values():
            name = f"qemu:{b.name}" if b.machine else f"serial:PORT --board {b.name}"
            print(f"{name:28}  {b.description}; {b.ram_bytes // 1024} KiB RAM; counter: {b.counter}")
        for lib in build.FIRMWARE_LIBRARIES:
            print(f"{'':28}  --profile {lib}=" + "|".join(targets.available_profiles(lib)))
        print(f"{'labgrid:PLACE[,PLACE...]':28}  places of a labgrid coordinator (--labgrid-coordinator or"
              " LG_COORDINATOR), any board above via --board or the places' board= tag;"
              " labgrid:tag=KEY=VALUE selects by tag (docs/labgrid.md)")
        from tlsbench.targets import boardprofiles

        print("cycle model (tlsbench run --target qemu:BOARD --board PROFILE; docs/cycle-model.md):")
        listed = [boardprofiles.load(name) for name in boardprofiles.names()]
        if a.board and boardprofiles.is_file(a.board):  # the user's own file, checked like the shipped ones
            listed.append(boardprofiles.resolve(a.board))
        for p in listed:
            print(f"  --board {p.ref:19}  {p.summary().split(': ', 1)[1]}")
    elif what == "metrics":
        def kind(m: metrics.Metric) -> str:
            if not m.exact:
                return "noisy"
            return "exact" if metrics.exact_between_runs(m.name, "host") else "exact (host: drawn)"

        rows = [[m.name, m.unit, kind(m), "lower" if m.lower_is_better else "higher", m.label]
                for m in metrics.REGISTRY.values()]
        print(report.aligned(["metric", "unit", "kind", "better", "what"], rows))
        print("\nexact: a count; a run whose repeats of it differ reports it as varies (its range shown, compared as"
              " varying), e.g. Mbed TLS RSA private-key operations on firmware, whose blinding draws from the random"
              " generator (and in a handshake with an RSA certificate, both sides' instructions move with it)."
              "\nexact (host: drawn): on the host it depends on the keys and random values each run draws (bignum"
              " sizes, a DER signature's length), so two host runs may differ within the spread each run measures:"
              " compare calls that varies, and only a larger difference changed; on firmware it is exact")
    elif what == "links":
        from tlsbench.links.profiles import all_profiles

        for name, lp in all_profiles().items():
            energy = f"radio {lp.tx_nj_per_byte:g}/{lp.rx_nj_per_byte:g} nJ/B tx/rx" if lp.energy_source else (
                "no radio energy")
            print(f"{name:18}  {lp.one_way_latency_ms:g} ms one way, {lp.up_kbit_s:g}/{lp.down_kbit_s:g} kbit/s"
                  f" up/down, {'TCP' if lp.tcp else 'no TCP'}, {energy}")
            print(f"{'':18}  {lp.description}")
    elif what == "presets":
        for name, path in presets().items():
            plan, _ = load_preset(name)
            print(name)
            print(textwrap.fill(plan.description, width=110, initial_indent="    ", subsequent_indent="    "))
            print(f"    runs on: {where.summary(plan)}")
            print(f"    {path}")
    return 0


def cmd_link(a: argparse.Namespace) -> int:
    from tlsbench.links import profiles as link_profiles
    from tlsbench.links import view as link_view

    profile = link_profiles.get_profile(a.link)
    store = Store(a.db, read_only=True)
    try:
        run_id = a.run if a.run is not None else store.latest_run_id()
        data = report.load(store, run_id)
    finally:
        store.close()
    board = link_view.board_for(data, a.board)
    sys.stdout.write(link_view.render(data, profile, board, False if a.no_tcp_handshake else None, a.format))
    return 0


def cmd_doctor(a: argparse.Namespace) -> int:
    findings = doctor.diagnose()
    bad = 0
    for f in findings:
        mark = "note" if f.note else "ok " if f.ok else "MISSING"
        print(f"{mark:8} {f.what}: {f.detail}")
        if f.fix:
            print(f"         -> {f.fix}")
        bad += not f.ok
    print("everything needed is installed" if not bad else f"{bad} thing(s) missing")
    return 0 if not bad else 1


def cmd_build(a: argparse.Namespace) -> int:
    libs = _csv(a.libraries) if a.libraries else None
    log = lambda m: print(m, file=sys.stderr)  # noqa: E731
    target = _with_user_build(targets.parse(a.target, a.board, a.profile), a)
    target.build(libs, opt=a.opt, jobs=a.jobs, one_side=a.one_side, log=log)
    if target.builds_cycle_plugin:  # the emulator's cycle model (a run with --board)
        from tlsbench.targets import cyclemodel

        cyclemodel.build_plugin(log=log)
    return 0


def cmd_sizes(a: argparse.Namespace) -> int:
    from tlsbench.families.size import probes as sizeprobes

    target = targets.parse(a.target, a.board, a.profile)
    if not target.runs_firmware:
        raise PlanError("tlsbench sizes measures firmware images: give --target qemu:BOARD (tlsbench list targets)")
    libs = _csv(a.libraries) if a.libraries else None
    store = Store(a.db)
    try:
        run_id = sizeprobes.run(target, store, libs, opt=a.opt, jobs=a.jobs, log=lambda m: print(m, file=sys.stderr),
                                probes=_csv(a.probes) if a.probes else None)
        text = report.render(report.load(store, run_id), a.format)
    finally:
        store.close()
    sys.stdout.write(text)
    print(f"run {run_id} stored in {store.path} (tlsbench report {run_id})", file=sys.stderr)
    return 0


def cmd_board(a: argparse.Namespace) -> int:
    from tlsbench.targets import boardprofiles, boardtemplate

    if a.board_command == "new":
        profile = boardtemplate.write_new(a.base, Path(a.output))
        print(f"{a.output}: a board profile started from {a.base}; edit its figures and sources, then"
              f" tlsbench run --target qemu:BOARD --board {profile.path}", file=sys.stderr)
        return 0
    sys.stdout.write(boardtemplate.show(boardprofiles.resolve(a.profile)))
    return 0


def cmd_fits(a: argparse.Namespace) -> int:
    from tlsbench.report import fits as fits_view

    store = Store(Path(a.db), read_only=True)
    try:
        data = report.load(store, a.run if a.run is not None else store.latest_run_id())
    finally:
        store.close()
    if not any(c["kind"] == "min-ram" for c in data.cases):
        raise PlanError(f"run {data.run.id} has no min-ram cases (tlsbench run --preset min-ram makes them)")
    md = a.format == "markdown"
    boards = None
    if a.board:  # the boards asked for (shipped names or the user's files) instead of every shipped one
        from tlsbench.targets import boardprofiles

        boards = [boardprofiles.resolve(ref) for ref in a.board]
    view = fits_view.fits(data.cases, data.code_sizes, boards)
    sys.stdout.write(fits_view.render(view, report.markdown if md else report.aligned, md))
    return 0


def cmd_fidelity(a: argparse.Namespace) -> int:
    if a.handshakes:  # each library's own handshake benchmark (fidelity_handshakes.py)
        from tlsbench import fidelity_handshakes as fh

        before = os.getloadavg()
        rows = fh.compare(rounds=a.rounds or 3, seconds=a.seconds)
        print(fh.render(rows, (before, os.getloadavg())), end="")
        return 0
    if a.peers:  # the embedded libraries' own benchmark programs (fidelity_peers.py)
        from tlsbench import fidelity_peers

        print(fidelity_peers.render(fidelity_peers.compare(rounds=a.rounds or 3), rounds=a.show_rounds), end="")
        return 0
    rows = fidelity.compare(a.rounds or 7)
    print(fidelity.render(rows))
    outside = [r for r in rows if not r.within]
    for r in outside:
        print(f"OUTSIDE: {r.alg} differs {100 * abs(r.ratio - 1):.1f}% (bound {100 * r.bound:.0f}%)")
    if not outside:
        print("every algorithm within its bound (" + ", ".join(f"{r.alg} {100 * r.bound:.0f}%" for r in rows) + ")")
    return 1 if outside else 0


def _output_folder(text: str) -> Path:
    """--out: a folder that exists or can be made (one line, not a traceback, when not)."""
    out = Path(text)
    if out.exists() and not out.is_dir():
        raise TlsbenchError(f"--out {text}: is a file, not a folder; give a folder (it is made if missing)")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise TlsbenchError(f"--out {text}: cannot make the folder ({e.strerror}); give a folder that exists"
                            " or can be made") from None
    return out


def cmd_certs(a: argparse.Namespace) -> int:
    key_types = _choose("key type", a.key_types, list(certs.KEY_TYPES), "tlsbench certs --help")
    kinds = _choose("chain kind", a.kinds, list(certs.CHAIN_KINDS), "tlsbench certs --help")
    roles = _choose("role", a.roles, list(certs.ROLES), "tlsbench certs --help")
    out = _output_folder(a.out)
    for key_type in key_types:
        for kind in kinds:
            for role in roles:
                try:
                    files = certs.make_chain(key_type, kind, role).write(out)
                except OSError as e:  # e.g. the disk filled, or the folder became read-only
                    raise TlsbenchError(f"--out {a.out}: cannot write the certificates ({e.strerror})") from None
                print(f"{key_type:10} {kind:4} {role:6} {files['chain']}")
    return 0


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="tlsbench", description="Benchmarks of TLS libraries and their cryptography.")
    p.add_argument("--version", action=_Version, help="print tlsbench's version (and its git revision) and exit")
    db_help = ("results database: a SQLite file or postgresql://user@host[:port]/dbname (a team store); default:"
               " $TLSBENCH_DB, else " + str(paths.default_database()))
    p.add_argument("--db", default=os.environ.get("TLSBENCH_DB") or str(paths.default_database()), help=db_help)
    # --db is accepted after the subcommand too (tlsbench run --db X)
    db = argparse.ArgumentParser(add_help=False)
    db.add_argument("--db", default=argparse.SUPPRESS, help=db_help)
    sub = p.add_subparsers(dest="command", required=True)

    r = sub.add_parser("run", parents=[db], help="run a plan (default: the 'default' preset)")
    r.add_argument("--plan", help="plan file (TOML)")
    r.add_argument("--preset", help="named plan (tlsbench list presets)")
    r.add_argument("--resume", type=int, metavar="RUN", help="finish an interrupted run")
    r.add_argument("--libraries", help="comma-separated, e.g. openssl,mbedtls (default: the plan's; all four)")
    r.add_argument("--kinds", help=f"comma-separated: {','.join(PLAN_KINDS)} (default: the plan's)")
    r.add_argument("--algorithms", help="comma-separated algorithm names (default: every algorithm of the kinds;"
                   " tlsbench list algorithms)")
    r.add_argument("--ops", help="comma-separated operations, e.g. encrypt,sign (default: every benchmarked op)")
    r.add_argument("--sizes", help="message sizes in bytes, e.g. 64,1024,16384 (default: the plan's)")
    for name, allowed, _see in TLS_FLAGS:
        shown = ", ".join(allowed) if len(allowed) < 12 else f"{len(allowed)} IANA names (tlsbench list suites)"
        r.add_argument(f"--{name}", dest=f"tls_{name}", metavar=name.upper(),
                       help=f"TLS cases: comma-separated {TLS_FLAG_WHAT[name]}s, of: {shown} (default: the plan's;"
                            " sets the plan to TLS unless --kinds says more)")
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
    _user_build_options(r)
    _parallel_options(r)
    r.add_argument("--labgrid-coordinator", dest="labgrid_coordinator", metavar="HOST:PORT",
                   help="the labgrid coordinator of a labgrid:PLACE target (default: $LG_COORDINATOR)")
    r.add_argument("--device-side", dest="device_side", choices=("client", "server"),
                   help="firmware: only this side of each handshake on the device, its peer the host agent of"
                        " the same library (the case name says device=SIDE)")
    r.add_argument("--label", action="append", metavar="KEY=VALUE",
                   help="a label for the run (repeatable), e.g. --label branch=tuning; the commit, library"
                        " versions and machine are recorded as labels already (tlsbench runs --label); not"
                        " with --resume (a run keeps the labels it started with)")
    r.add_argument("-q", "--quiet", action="store_true",
                   help="no progress, no table, no notes: only errors on stderr (the run is stored)")
    r.set_defaults(func=cmd_run)

    rep = sub.add_parser("report", parents=[db], help="show a stored run")
    rep.add_argument("run", nargs="?", type=int, help="run id (default: the latest)")
    rep.add_argument("--format", choices=(*report.FORMATS, "html", *export.FORMATS), default="table",
                     help="table, markdown, csv, json; html (one self-contained page: context, charts, every"
                          " table); svg, png (the charts, as files into the -o folder); md (Markdown tables with"
                          " the charts as SVG files, into the -o folder)")
    rep.add_argument("-o", "--output", help="write to this file (svg, png, md: this folder)")
    rep.add_argument("--view", choices=("cases", "tls", "interop"), default="cases",
                     help="cases (default: a row per case, a column per library), tls (a row per TLS case, a column"
                          " per metric and side) or interop (TLS over TCP: client library x server)")
    rep.add_argument("--metric", help="show this metric instead of the headline one (default: time/throughput on the"
                     " host, instructions on firmware), e.g. heap_peak_bytes, stack_bytes, allocations, cpu_ns, tsc;"
                     " TLS metrics are per side, e.g. client_heap_peak_bytes (tlsbench list metrics)")
    rep.set_defaults(func=cmd_report)

    cmp = sub.add_parser("compare", parents=[db], help="compare two stored runs case by case")
    cmp.add_argument("run_a", type=int)
    cmp.add_argument("run_b", type=int)
    cmp.add_argument("--metric", help="compare on this metric only (default: each case's headline metrics both runs"
                     " measured, per side for TLS: " + ", ".join(metrics.HEADLINE) + "; every metric: tlsbench"
                     " list metrics)")
    cmp.add_argument("--format", choices=(*compare_text.FORMATS, "html"), default="table",
                     help="table, markdown, json, html (one self-contained page)")
    cmp.add_argument("-o", "--output", help="write to this file")
    cmp.add_argument("--export", choices=["ci-json", "bmf"],
                     help="ci-json: run B's medians as a list of {name, unit, value, range, extra}"
                          " (github-action-benchmark's customSmallerIsBetter); bmf: run B's medians as"
                          " {case: {metric: {value}}} (Bencher Metric Format); instead of --format")
    cmp.add_argument("--fail-on-regression", dest="fail_on_regression", type=_percent, metavar="PCT",
                     help="exit with code 1 when a case is significantly slower (a count: larger) by more than PCT%%,"
                          " 3 when no case is but one is inconclusive and could be (too few samples, too wide an"
                          " interval); 0 otherwise (default: no gate)")
    cmp.add_argument("--changes", action="store_true", help="show only the cases that changed")
    cmp.add_argument("--versions", metavar="A,B",
                     help="two versions of one library, e.g. openssl@3.0,openssl@3.5: run A's cases of the first"
                          " against run B's of the second, case by case (A and B may be the same run)")
    cmp.add_argument("--alpha", type=float, default=compare.ALPHA, help="significance level (default 0.01)")
    cmp.add_argument("--min-effect", dest="min_effect", type=float, default=100 * compare.MIN_EFFECT,
                     help="smallest change in percent that counts (default 5; raise it on a noisy machine)")
    cmp.set_defaults(func=cmd_compare)
    from tlsbench.report import stability  # the command lives in its own module

    stability.add_parser(sub, db)
    from tlsbench.report import resultsdoc  # the results pages, from stored runs

    resultsdoc.add_parser(sub, db)

    hi = sub.add_parser("history", parents=[db], help="cases over many runs: a trend per case, changes marked by"
                        " compare's test (table, or one HTML page)")
    hi.add_argument("cases", nargs="+", metavar="CASE", help="case names (tlsbench report RUN), or shell patterns"
                    " such as 'openssl/hash/*/hash/1024'")
    hi.add_argument("--since", help="only runs made since this UTC date (YYYY-MM-DD or YYYY-MM-DDTHH:MM)")
    hi.add_argument("--label", action="append", metavar="KEY=VALUE",
                    help="only runs with this label (repeatable), e.g. machine=lab-2, git.dirty=false")
    hi.add_argument("--metric", help="draw this metric (default: each case's first headline metric; tlsbench list"
                    " metrics)")
    hi.add_argument("--format", choices=("table", "html"), default="table", help="table (default) or html")
    hi.add_argument("-o", "--output", help="write to this file")
    hi.add_argument("--alpha", type=float, default=compare.ALPHA, help="significance level (default 0.01)")
    hi.add_argument("--min-effect", dest="min_effect", type=float, default=100 * compare.MIN_EFFECT,
                    help="smallest change in percent that counts (default 5)")
    hi.set_defaults(func=cmd_history)

    rn = sub.add_parser("runs", parents=[db], help="list stored runs")
    rn.add_argument("--label", action="append", metavar="KEY=VALUE",
                    help="only runs with this label (repeatable: all must match), e.g. board=lab-2,"
                         " git.commit=abc123def456, lib.openssl=3.0.15")
    rn.set_defaults(func=cmd_runs)

    dbp = sub.add_parser("db", help="the results database")
    dbsub = dbp.add_subparsers(dest="db_command", required=True)
    ck = dbsub.add_parser("check", parents=[db], help="check the database file for damage (SQLite integrity_check);"
                          " a damaged file: what is still readable")
    ck.add_argument("--salvage", metavar="NEW", help="a damaged SQLite file: copy every readable row into this new"
                    " file (never overwritten), which a run can store into")
    ck.set_defaults(func=cmd_db_check)
    pu = dbsub.add_parser("push", parents=[db], help="copy finished runs from --db into another store (a team"
                          " store on PostgreSQL, or a SQLite file), keeping their identity: a run pushed twice is"
                          " copied once")
    pu.add_argument("runs", nargs="+", type=int, metavar="RUN", help="run ids in --db (tlsbench runs)")
    pu.add_argument("--to", required=True, metavar="DB", help="postgresql://user@host[:port]/dbname or a SQLite file")
    pu.set_defaults(func=cmd_db_push)

    ls = sub.add_parser("list", help="libraries, algorithms, suites, targets, presets, metrics or links")
    ls.add_argument("what", choices=["libraries", "algorithms", "suites", "targets", "presets", "metrics", "links"])
    ls.add_argument("--target", default="host", help="libraries, algorithms, suites: what this target's agents or"
                    " firmware support (default: host; qemu:BOARD, serial:DEVICE with --board)")
    ls.add_argument("--board", help="the board behind a serial target; with `targets`, also a board profile file"
                    " of yours, checked and listed")
    ls.add_argument("--profile", help="firmware library build profiles, e.g. mbedtls=small (default: each default)")
    _user_build_options(ls)
    ls.add_argument("--check", action="store_true", help="suites on firmware: run a real handshake per suite (slow"
                    " under emulation; kept per image) instead of each side's set-up (default: set-up on firmware;"
                    " the host always runs handshakes)")
    ls.set_defaults(func=cmd_list)

    lk = sub.add_parser("link", parents=[db], help="model: a stored run's TLS handshakes over a link (time to"
                        " the first application byte, energy)")
    lk.add_argument("run", nargs="?", type=int, help="run id (default: the latest)")
    lk.add_argument("--link", required=True, help="a link profile (tlsbench list links) or a .toml file")
    lk.add_argument("--board", help="a board profile of the cycle model (energy per cycle, clock), shipped or"
                    " your own .toml file; default: the run's own")
    lk.add_argument("--no-tcp-handshake", action="store_true", help="leave out the TCP handshake's round trip")
    lk.add_argument("--format", choices=("table", "markdown"), default="table",
                    help="table (default) or markdown")
    lk.set_defaults(func=cmd_link)

    sub.add_parser("doctor", help="what is installed, what is missing").set_defaults(func=cmd_doctor)

    b = sub.add_parser("build", help="fetch the pinned library sources and build the agents")
    b.add_argument("--libraries", help="comma-separated (default: all)")
    b.add_argument("--jobs", type=int, help="parallel build jobs (default: all cores)")
    b.add_argument("--target", default="host", help="host (default) or qemu:BOARD / serial:DEVICE: the firmware")
    b.add_argument("--board", help="the board behind a serial target")
    b.add_argument("--profile", help="firmware library build profiles, e.g. mbedtls=small,wolfssl=sp-asm")
    b.add_argument("--opt", default="Os", choices=list(build.OPT_LEVELS), help="firmware optimisation (default Os)")
    _user_build_options(b)
    b.add_argument("--one-side", dest="one_side", action="store_true",
                   help="the lean image of device-side runs (one side of each handshake on the device; a run with"
                        " --device-side builds it itself)")
    b.set_defaults(func=cmd_build)
    sz = sub.add_parser("sizes", parents=[db], help="code size per primitive: minimal firmware images minus an"
                        " empty one, stored as a run")
    sz.add_argument("--target", required=True, help="qemu:BOARD or serial:DEVICE (the board's firmware build)")
    sz.add_argument("--board", help="the board behind a serial target")
    sz.add_argument("--profile", help="firmware library build profiles, e.g. mbedtls=small,wolfssl=small-stack")
    sz.add_argument("--libraries", help="comma-separated (default: every firmware library)")
    sz.add_argument("--probes", help="comma-separated probe names, e.g. sha256,x25519 (default: every one;"
                                     " each library's empty image is built too)")
    sz.add_argument("--opt", default="Os", choices=list(build.OPT_LEVELS), help="firmware optimisation (default Os)")
    sz.add_argument("--jobs", type=int, help="parallel build jobs (default: all cores)")
    sz.add_argument("--format", choices=("table", "markdown", "json"), default="table",
                    help="table (default), markdown or json")
    sz.set_defaults(func=cmd_sizes)
    ce = sub.add_parser("certs", help="generate test certificate chains (root, intermediate, leaf)")
    ce.add_argument("--out", required=True, help="folder for the PEM/DER files")
    ce.add_argument("--key-types", dest="key_types", default=",".join(certs.KEY_TYPES),
                    help=f"comma-separated, of: {', '.join(certs.KEY_TYPES)} (default: all)")
    ce.add_argument("--kinds", default=",".join(certs.CHAIN_KINDS),
                    help="full (leaf + intermediate), leaf (default: both)")
    ce.add_argument("--roles", default=",".join(certs.ROLES),
                    help=f"comma-separated, of: {', '.join(certs.ROLES)} (default: all)")
    ce.set_defaults(func=cmd_certs)

    bd = sub.add_parser("board", help="board profiles of the cycle model: start your own, show one")
    bdsub = bd.add_subparsers(dest="board_command", required=True)
    bn = bdsub.add_parser("new", help="write a commented board profile to edit, started from a shipped one")
    bn.add_argument("--from", dest="base", default="nucleo-f446re", metavar="NAME|FILE",
                    help="the profile to start from (default: nucleo-f446re; tlsbench list targets)")
    bn.add_argument("-o", "--output", required=True, metavar="FILE", help="the new file (never overwritten)")
    bs = bdsub.add_parser("show", help="a board profile's figures, each with its source (after the same checks"
                          " as a run)")
    bs.add_argument("profile", metavar="NAME|FILE", help="a shipped profile or your own .toml file")
    bd.set_defaults(func=cmd_board)
    ft = sub.add_parser("fits", parents=[db], help="which RAM sizes and boards a min-ram run's handshakes fit"
                        " (heap + stack + static RAM)")
    ft.add_argument("run", nargs="?", type=int, help="run id (default: the latest)")
    ft.add_argument("--format", choices=("table", "markdown"), default="table",
                    help="aligned text (default) or Markdown tables")
    ft.add_argument("--board", action="append", metavar="NAME|FILE",
                    help="a board column: a shipped board profile or your own .toml file (repeatable;"
                         " default: every shipped profile)")
    ft.set_defaults(func=cmd_fits)
    fi = sub.add_parser("fidelity", help="compare OpenSSL figures with `openssl speed` (instrument check)")
    fi.add_argument("--rounds", type=int, help="alternations of the two tools (default 7; with --peers 3)")
    fi.add_argument("--peers", action="store_true",
                    help="Mbed TLS and wolfSSL against their own benchmark programs, built like our agents")
    fi.add_argument("--show-rounds", action="store_true",
                    help="with --peers: each round's figures as well as the best")
    fi.add_argument("--handshakes", action="store_true",
                    help="handshakes against each library's own handshake benchmark (openssl s_time,"
                         " gnutls-cli --benchmark-tls-kx, wolfSSL tls_bench), CPU time per handshake")
    fi.add_argument("--seconds", type=int, default=3, choices=range(1, 61), metavar="1..60",
                    help="with --handshakes: seconds per run of a time-window tool (default 3)")
    fi.set_defaults(func=cmd_fidelity)
    _say_defaults(p)
    return p


def _parallel_options(p: argparse.ArgumentParser) -> None:
    """run: sessions side by side and the result cache, for exact counts (engine/parallel.py, result_cache.py)."""
    p.add_argument("--jobs", type=int, metavar="N",
                   help="emulator sessions at once where the metrics are exact (qemu:BOARD), results stored in plan"
                        " order (default: the machine's cores there; 1 elsewhere: host timings run one case at a"
                        " time and refuse more)")
    p.add_argument("--no-cache", dest="no_cache", action="store_true",
                   help="measure every exact case again, even when a stored one had the same image, emulator,"
                        " board profile and requests (default: such cases are reused, marked reused)")


def _user_build_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", action="append", metavar="LIB=[full:]PATH",
                   help="your own library configuration (repeatable; Mbed TLS, wolfSSL), built in a folder of its own"
                        f" and stored with the run: {userconfig.help_text()}; refused before building when it turns"
                        " off what the harness needs (default: ours)")
    p.add_argument("--cflags", metavar='"FLAGS"',
                   help='your compiler options for every object and the link, after --opt, e.g. "-O2 -flto"'
                        " (split like a shell would, never run by one; recorded; default: none)")


# what leaving an option out means, where "none" or "off" would not say it
_ABSENT = {
    "--plan": "the --preset, else the target's default preset", "--preset": "'default' on the host, 'cortex-m'"
    " on a firmware target", "--resume": "a new run", "--board": "none",
    "--profile": "each library's default profile", "--device-side": "both sides on the device",
    "--format": "table", "--output": "stdout", "--runs": "the two runs just made", "--since": "every run",
}


def _say_defaults(p: argparse.ArgumentParser) -> None:
    """Every option's help says what happens without it: those whose help does
    not name a default get one here (a flag is off; a value is _ABSENT's or none)."""
    for action in p._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                _say_defaults(sub)
            continue
        if (not action.option_strings or action.required or isinstance(action, (argparse._HelpAction, _Version))
                or not action.help or "default" in action.help):
            continue
        if isinstance(action, argparse._StoreTrueAction):
            action.help += " (default: off)"
        else:
            action.help += f" (default: {_ABSENT.get(action.option_strings[-1], 'none')})"


class _Version(argparse.Action):
    """--version, with the git revision looked up only when asked."""

    def __init__(self, option_strings: list[str], dest: str, help: str | None = None):
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help=help)

    def __call__(self, parser: argparse.ArgumentParser, namespace: object, values: object,
                 option_string: str | None = None) -> None:
        print(f"tlsbench {machine.tlsbench_revision()}")
        parser.exit()


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    logging.raiseExceptions = False  # a log that cannot be written (a full disk) never adds a traceback
    log_dir = paths.data_dir() / "logs"
    try:
        log_dir.mkdir(parents=True, exist_ok=True)
        logging.basicConfig(filename=log_dir / "tlsbench.log", level=logging.DEBUG,
                            format="%(asctime)s %(levelname)s %(message)s")
    except OSError:
        pass
    try:
        with stopping.like_ctrl_c():  # a scheduler's SIGTERM, a closed terminal's SIGHUP: as Ctrl-C
            rc = args.func(args)
        sys.stdout.flush()  # a closed pipe shows here, not as a traceback at exit
        return rc
    except RunInterrupted as e:
        where = str(getattr(args, "db", ""))
        again = resume_command(redacted(where) if is_url(where) else where, e.run_id)
        print(f"tlsbench: {getattr(e, 'why', 'interrupted')}: run {e.run_id} keeps what it measured; finish it with:"
              f" {again}",
              file=sys.stderr)
        return e.exit_code
    except TlsbenchError as e:
        logging.exception("command failed")
        print(f"tlsbench: error: {e}", file=sys.stderr)
        return 2
    except db_errors() as e:  # outside a run (a run says how to resume itself)
        logging.exception("database error")
        where = getattr(args, "db", "?")
        print(f"tlsbench: error: {explain(e, redacted(where) if is_url(where) else where)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as e:
        signum = getattr(e, "signum", signal.SIGINT)
        print("tlsbench: interrupted" if signum == signal.SIGINT else f"tlsbench: stopped by {e}", file=sys.stderr)
        return 128 + signum
    except BrokenPipeError:  # e.g. `tlsbench list presets | head -1`: the reader has what it wanted
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
