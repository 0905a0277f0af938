"""What there is and how to make it: list, doctor, build, sizes, board, certs."""

from __future__ import annotations

import argparse
import sys
import textwrap
from pathlib import Path

from tlsbench import doctor
from tlsbench.cli.args import choose, comma_list, output_folder, user_build_options, with_user_build
from tlsbench.engine import metrics
from tlsbench.engine.store import Store
from tlsbench.errors import PlanError, SetupError, TlsbenchError
from tlsbench.families.primitive.catalog import ALGORITHMS, BENCH_OPS, DEFAULT_KINDS
from tlsbench.families.tls import certs
from tlsbench.families.tls import support as tls_support
from tlsbench.plans import where
from tlsbench.plans.plan import (
    load_preset,
    presets,
)
from tlsbench.report import tables as report
from tlsbench.targets import build
from tlsbench.targets import target as targets
from tlsbench.targets.libraries import LibraryInfo


def _probe_on(target: targets.Target, lib: str) -> LibraryInfo:
    """Ask a library's agent on this target (firmware: through its launcher) what it supports."""
    return target.listing_probe(lib)


def cmd_list(a: argparse.Namespace) -> int:
    what = a.what
    target = with_user_build(targets.parse(a.target, a.board, a.profile), a)
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
        header, body = tls_support.support_matrix(agents, libraries, images, check=check)
        print(report.aligned(header, body))
        for answer, meaning in tls_support.LEGEND.items():
            if any(answer in row for row in body):
                print(f"{answer}: {meaning}")
    elif what == "targets":
        for kind in targets.KINDS.values():
            for name, what in kind.listing():
                print(f"{name:28}  {what}")
        for lib in build.FIRMWARE_LIBRARIES:
            print(f"{'':28}  --profile {lib}=" + "|".join(targets.available_profiles(lib)))
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
            return "exact" if metrics.exact_between_runs(m.name, host_run=True) else "exact (host: drawn)"

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
    libs = comma_list(a.libraries) if a.libraries else None
    target = with_user_build(targets.parse(a.target, a.board, a.profile), a)
    target.build(libs, opt=a.opt, jobs=a.jobs, one_side=a.one_side)
    if target.builds_cycle_plugin:  # the emulator's cycle model (a run with --board)
        from tlsbench.targets import cyclemodel

        cyclemodel.build_plugin()
    return 0


def cmd_sizes(a: argparse.Namespace) -> int:
    from tlsbench.families.size import probes as sizeprobes

    target = targets.parse(a.target, a.board, a.profile)
    if not target.runs_firmware:
        raise PlanError("tlsbench sizes measures firmware images: give --target qemu:BOARD (tlsbench list targets)")
    libs = comma_list(a.libraries) if a.libraries else None
    store = Store(a.db)
    try:
        run_id = sizeprobes.run(target, store, libs, opt=a.opt, jobs=a.jobs,
                                probes=comma_list(a.probes) if a.probes else None)
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
    if a.board_command == "count-profiles":
        from tlsbench.targets import hwcount

        try:
            written = hwcount.write_count_profiles(a.name, a.folder)
        except OSError as e:  # a folder that cannot be made or written: one line, as every error
            raise SetupError(f"{a.folder}: cannot write the count profiles: {e.strerror or e}") from e
        for path in written:
            print(path)
        return 0
    sys.stdout.write(boardtemplate.show(boardprofiles.resolve(a.profile)))
    return 0


def cmd_certs(a: argparse.Namespace) -> int:
    key_types = choose("key type", a.key_types, list(certs.KEY_TYPES), "tlsbench certs --help")
    kinds = choose("chain kind", a.kinds, list(certs.CHAIN_KINDS), "tlsbench certs --help")
    roles = choose("role", a.roles, list(certs.ROLES), "tlsbench certs --help")
    out = output_folder(a.out)
    for key_type in key_types:
        for kind in kinds:
            for role in roles:
                try:
                    files = certs.make_chain(key_type, kind, role).write(out)
                except OSError as e:  # e.g. the disk filled, or the folder became read-only
                    raise TlsbenchError(f"--out {a.out}: cannot write the certificates ({e.strerror})") from None
                print(f"{key_type:10} {kind:4} {role:6} {files['chain']}")
    return 0


def add_parsers(sub: argparse._SubParsersAction, db: argparse.ArgumentParser) -> None:
    ls = sub.add_parser("list", help="libraries, algorithms, suites, targets, presets, metrics or links")
    ls.add_argument("what", choices=["libraries", "algorithms", "suites", "targets", "presets", "metrics", "links"])
    ls.add_argument("--target", default="host", help="libraries, algorithms, suites: what this target's agents or"
                    " firmware support (default: host; qemu:BOARD, serial:DEVICE with --board)")
    ls.add_argument("--board", help="the board behind a serial target; with `targets`, also a board profile file"
                    " of yours, checked and listed")
    ls.add_argument("--profile", help="firmware library build profiles, e.g. mbedtls=small (default: each default)")
    user_build_options(ls)
    ls.add_argument("--check", action="store_true", help="suites on firmware: run a real handshake per suite (slow"
                    " under emulation; kept per image) instead of each side's set-up (default: set-up on firmware;"
                    " the host always runs handshakes)")
    ls.set_defaults(func=cmd_list)
    sub.add_parser("doctor", help="what is installed, what is missing").set_defaults(func=cmd_doctor)

    b = sub.add_parser("build", help="fetch the pinned library sources and build the agents")
    b.add_argument("--libraries", help="comma-separated (default: all)")
    b.add_argument("--jobs", type=int, help="parallel build jobs (default: all cores)")
    b.add_argument("--target", default="host", help="host (default) or qemu:BOARD / serial:DEVICE: the firmware")
    b.add_argument("--board", help="the board behind a serial target")
    b.add_argument("--profile", help="firmware library build profiles, e.g. mbedtls=small,wolfssl=sp-asm")
    b.add_argument("--opt", default="Os", choices=list(build.OPT_LEVELS), help="firmware optimisation (default Os)")
    user_build_options(b)
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

    bd = sub.add_parser("board", help="board profiles of the cycle model: start your own, show one, count an"
                        " accelerator's work")
    bdsub = bd.add_subparsers(dest="board_command", required=True)
    bn = bdsub.add_parser("new", help="write a commented board profile to edit, started from a shipped one")
    bn.add_argument("--from", dest="base", default="nucleo-f446re", metavar="NAME|FILE",
                    help="the profile to start from (default: nucleo-f446re; tlsbench list targets)")
    bn.add_argument("-o", "--output", required=True, metavar="FILE", help="the new file (never overwritten)")
    bs = bdsub.add_parser("show", help="a board profile's figures, each with its source (after the same checks"
                          " as a run)")
    bs.add_argument("profile", metavar="NAME|FILE", help="a shipped profile or your own .toml file")
    bc = bdsub.add_parser("count-profiles", help="write a board profile's count profiles (one per accelerator: its"
                          " figure per doorbell one cycle higher; docs/cycle-model.md, \"Crypto accelerators\")")
    bc.add_argument("name", metavar="board", help="a shipped board profile with [accelerators]")
    bc.add_argument("folder", type=Path)
    bd.set_defaults(func=cmd_board)
