"""A board owner's own figure as a validation row of the cycle model.

    tlsbench validate add --figures FILE --board-profile NAME|FILE --board TEXT --library LIB[@VER]
        --published-version VER --case ALG/OP --quote LINE [--value N --unit U] --build TEXT
        --source TEXT --match same|build|different [--profile P] [--size N | --model-sizes A,B] ...
    (--from-run RUN instead of --quote: the board's cycles from a stored serial: or labgrid: run)

writes one [[figure]] entry (the keys of docs/data/published-figures.toml), checked by the loader
scripts/validate-model uses, runs the model on the same code for it (tlsbench build and run on the
board profile's emulated core) and prints the model's cycles and its error beside the board's; then
appends the entry to FILE. `scripts/validate-model --figures FILE` judges a file of such rows.
"""

from __future__ import annotations

import argparse
import json
import logging
import re
import subprocess
import tomllib
from pathlib import Path

from tlsbench import versions
from tlsbench.engine.store import Store
from tlsbench.errors import PlanError
from tlsbench.families.primitive.catalog import ALGORITHMS, SIZED_KINDS
from tlsbench.studies import validation
from tlsbench.targets import boardprofiles
from tlsbench.targets.build import OPT_LEVELS

logger = logging.getLogger(__name__)

# the emulated target each core runs on: the ones the shipped rows use (tests check they agree)
TARGETS = {"cortex-m0": "qemu:microbit-roomy", "cortex-m0plus": "qemu:microbit-roomy",
           "cortex-m3": "qemu:mps2-an385", "cortex-m4": "qemu:mps2-an386", "cortex-m7": "qemu:mps2-an500",
           "cortex-m33": "qemu:mps2-an505", "rv32imc": "qemu:rv32-virt"}
# the figure in a benchmark's own line: wolfCrypt's "avg 31.625 ms" (one operation) or a throughput
# ("847.458 KiB/s"; wolfCrypt and Mbed TLS print KiB/s and MiB/s). wolfSSL 5.6.0 printed "KB/s" for
# 10^3 bytes and 4.x for 2^10, so "KB/s" and "MB/s" are never read: --value and --unit say which.
_FIGURE = re.compile(r"avg\s+(?P<t>\d+(?:\.\d+)?)\s*(?P<tu>ms|us)\b|(?P<v>\d+(?:\.\d+)?)\s*(?P<vu>KiB/s|MiB/s|B/s)")
# failing both: wolfCrypt's operations per second
_OPS = re.compile(r"(?P<v>\d+(?:\.\d+)?)\s*ops/sec\b")
HEADER = """# A board owner's validation rows of tlsbench's cycle model (tlsbench validate add wrote them; the keys
# are docs/data/published-figures.toml's). Judge them: scripts/validate-model --figures THIS_FILE
"""


def figure_in(quote: str) -> tuple[float, str] | None:
    """(value, unit) as the benchmark's line prints it, or None when it prints none this reads."""
    m = _FIGURE.search(quote)
    if m is None:
        ops = _OPS.search(quote)
        return (float(ops["v"]), validation.OPS) if ops else None
    return (float(m["t"]), m["tu"]) if m["t"] else (float(m["v"]), m["vu"])


def _case(text: str) -> tuple[str, str, str]:
    """(kind, algorithm, op) of ALG/OP, or a one-line error naming what is allowed."""
    alg, _, op = text.partition("/")
    kinds = {a: k for k, algs in ALGORITHMS.items() for a in algs}
    if alg not in kinds:
        raise PlanError(f"--case {text}: unknown algorithm {alg!r}; allowed: {', '.join(kinds)}")
    ops = ALGORITHMS[kinds[alg]][alg]
    if op not in ops:
        raise PlanError(f"--case {text}: {alg} has no operation {op!r}; allowed: {', '.join(ops)}")
    return kinds[alg], alg, op


def measured(db: Path, run_id: int, library: str, alg: str, op: str, size: int | None) -> tuple[float, str]:
    """(median cycles, the quote naming them) of a case a real board measured in a stored run: a serial: or
    labgrid: run of tlsbench's own firmware, whose `cycles` are the board's cycle counter."""
    store = Store(db)
    try:
        info = store.get_run(run_id)
        rows = [r for r in store.results(run_id)
                if (r["library"], r["alg"], r["op"], r["size"], r["metric"], r["status"])
                == (library, alg, op, size, "cycles", "ok")]
    finally:
        store.close()
    at = f" at {size} bytes" if size is not None else ""
    if not rows:
        raise PlanError(f"--from-run {run_id}: no measured cycles of {library} {alg} {op}{at} in it (a serial: or"
                        f" labgrid: run of that case stores them; run {run_id} ran on {info.target})")
    r = rows[0]
    return float(r["median"]), (f"tlsbench run {run_id} on {info.target}: {r['name']}, cycles median {r['median']:.1f}"
                                f" (n={r['n']})")


def entry(a: argparse.Namespace) -> dict[str, object]:
    """The [[figure]] row the flags describe (checked here where a flag alone is wrong; the loader checks
    the rest, as for every row)."""
    kind, alg, op = _case(a.case)
    if versions.problem(a.library):
        raise PlanError(f"--library: {versions.problem(a.library)}")
    profile = boardprofiles.resolve(a.board_profile)
    if kind not in SIZED_KINDS and (a.size is not None or a.model_sizes is not None):
        raise PlanError(f"--size/--model-sizes: {alg} {op} has no message size (one figure per operation)")
    if a.from_run is not None:
        if a.quote is not None or a.value is not None or a.unit is not None:
            raise PlanError("--from-run reads the figure from the stored run: no --quote, --value or --unit with it")
        if kind in SIZED_KINDS and a.size is None:
            raise PlanError(f"--from-run: {alg} {op} is measured per message size: --size BYTES says which")
        a.value, a.quote = measured(Path(a.db), a.from_run, versions.canonical(a.library), alg, op, a.size)
        a.unit = validation.CYCLES
    elif a.quote is None:
        raise PlanError("--quote LINE (the benchmark's own output line) or --from-run RUN (a stored board run)")
    found = figure_in(a.quote)
    if a.value is None or a.unit is None:
        if a.value is not None or a.unit is not None:
            raise PlanError("--value and --unit go together (or neither: both are read from --quote)")
        if found is None:
            raise PlanError("--quote: no figure read from the line (wolfCrypt's 'avg N ms', 'N KiB/s' or"
                            " 'N ops/sec'): give --value and --unit")
        value, unit = found
    else:
        value, unit = a.value, a.unit
        if f"{value:g}" not in a.quote and str(value) not in a.quote:
            raise PlanError(f"--value {value:g} is not in --quote: copy the figure as the line prints it")
    if kind in SIZED_KINDS and unit in validation.TIME:
        raise PlanError(f"{alg} {op} is measured per message size: give the throughput the benchmark prints"
                        " (e.g. KiB/s) with --size or --model-sizes, or its cycles with --from-run and --size")
    if kind in SIZED_KINDS and unit in (validation.CYCLES, validation.OPS) and a.size is None:
        raise PlanError(f"{alg} {op} is measured per message size: --size BYTES says which ({unit} of one {op}"
                        " of that size)")
    lib = versions.base(a.library)
    prof = a.profile or validation.DEFAULT_PROFILES.get(lib)
    if not prof:
        raise PlanError(f"--profile: {lib} has no default firmware profile; name the one your board's build is")
    row: dict[str, object] = {
        "id": a.id or f"{profile.name}-{alg}-{op}",
        "source": a.source, "url": a.url, "library": lib, "published_version": a.published_version,
        "board": a.board, "clock_hz": profile.clock_hz, "build": a.build, "quote": a.quote, "unit": unit,
        "value": value, "algorithm": alg, "op": op,
        "profile": prof,
    }
    if unit in (validation.CYCLES, validation.OPS) and a.size is not None:
        row["size"] = a.size
    if unit in validation.THROUGHPUT:
        if (a.size is None) == (a.model_sizes is None):
            raise PlanError(f"a throughput ({unit}) needs the model's message size: --size BYTES, or --model-sizes"
                            " A,B (per byte from the difference: a streamed benchmark's), not both")
        if a.size is not None:
            row["size"] = a.size
        else:
            row["model_sizes"] = a.model_sizes
    if a.library != lib:
        row["library_run"] = a.library
    if a.opt:
        row["opt"] = a.opt
    # a user's own profile is named by its absolute path: the row is judged from anywhere
    row["board_profile"] = (str(Path(a.board_profile).expanduser().resolve())
                            if boardprofiles.is_file(a.board_profile) else profile.name)
    row["target"] = a.target or TARGETS[profile.core]
    row["match"] = a.match
    row["note"] = a.note
    return row


def render(row: dict[str, object]) -> str:
    """The row as a TOML [[figure]] table (strings in JSON's escapes, which TOML's basic strings share)."""
    def value(v: object) -> str:
        if isinstance(v, list):
            return "[" + ", ".join(map(str, v)) + "]"
        return json.dumps(v, ensure_ascii=False) if isinstance(v, str) else str(v)
    return "[[figure]]\n" + "".join(f"{k} = {value(v)}\n" for k, v in row.items())


def _sizes(text: str) -> list[int]:
    try:
        sizes = [int(s) for s in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: two byte counts, A,B (e.g. 1024,2048)") from None
    if len(sizes) != 2 or not 0 < sizes[0] < sizes[1]:
        raise argparse.ArgumentTypeError(f"{text!r}: two ascending byte counts, A,B (e.g. 1024,2048)")
    return sizes


def add_parser(sub: argparse._SubParsersAction, db: argparse.ArgumentParser) -> None:
    vp = sub.add_parser("validate", help="the cycle model against your board: add a row of your own")
    vsub = vp.add_subparsers(dest="validate_command", required=True)
    ap = vsub.add_parser("add", parents=[db], help="a figure from your board as a validation row: checked, with the"
                         " model's figure and its error for the same code, appended to --figures",
                         description=__doc__.split("\n\n")[0])
    ap.add_argument("--figures", required=True, metavar="FILE", help="your rows' file (made when missing)")
    ap.add_argument("--board-profile", required=True, metavar="NAME|FILE",
                    help="the cycle-model profile of your board at the clock it ran (tlsbench board new)")
    ap.add_argument("--board", required=True, help="the board as you ran it (e.g. 'NUCLEO-L4A6ZG (STM32L4A6ZG)')")
    ap.add_argument("--library", required=True, metavar="LIB[@VERSION]", help="the tlsbench library whose code ran")
    ap.add_argument("--published-version", required=True, metavar="VERSION",
                    help="the library version your board ran, as its benchmark prints it")
    ap.add_argument("--profile", help="the tlsbench firmware profile of that build (default: the library's)")
    ap.add_argument("--case", required=True, metavar="ALG/OP", help="the case measured (e.g. x25519/derive)")
    ap.add_argument("--quote", help="the benchmark's own output line, as printed")
    ap.add_argument("--from-run", type=int, metavar="RUN", help="instead of --quote: the board's cycles of the case"
                    " from this stored run in --db (tlsbench run --target serial:... or labgrid:...)")
    ap.add_argument("--value", type=float, help="the figure in --quote (default: read from it)")
    ap.add_argument("--unit", choices=validation.UNITS, help="--value's unit (cycles: of one operation; ops/s:"
                    " operations per second, e.g. Mbed TLS's benchmark's 'sign/s')")
    ap.add_argument("--size", type=int, metavar="BYTES", help="a throughput's message size for the model (with"
                    " --from-run: the measured case's)")
    ap.add_argument("--model-sizes", type=_sizes, metavar="A,B",
                    help="a streamed throughput: the model's per byte from these two sizes' difference")
    ap.add_argument("--build", required=True, help="compiler, -O level and options your board's image had")
    ap.add_argument("--source", required=True, help="who measured it, how and when")
    ap.add_argument("--url", default="not published: the board owner's own measurement",
                    help="where it is published (default: not published)")
    ap.add_argument("--match", required=True, choices=validation.MATCHES,
                    help="same: the code tlsbench builds; build: a build option differs; different: other code")
    ap.add_argument("--note", default="added with tlsbench validate add", help="what differs, anything to know")
    ap.add_argument("--id", help="the row's name (default: BOARD_PROFILE-ALG-OP)")
    ap.add_argument("--opt", choices=OPT_LEVELS, help="the -O level your image was built at (default: Os)")
    ap.add_argument("--target", help="the emulated target of the model (default: the one the shipped rows use"
                    " for the profile's core)")
    ap.add_argument("--no-model", action="store_true", help="check and append the row without running the model")
    ap.set_defaults(func=command)


def command(a: argparse.Namespace) -> int:
    path = Path(a.figures)
    old = path.read_text() if path.is_file() else HEADER
    row = entry(a)
    try:
        taken = {str(r.get("id")) for r in tomllib.loads(old).get("figure", [])}
    except tomllib.TOMLDecodeError as e:
        raise PlanError(f"{path}: {e}") from None
    if row["id"] in taken:
        raise PlanError(f"{path}: a row {row['id']!r} is there already: give this one another --id")
    text = render(row)
    joined = old + ("" if old.endswith("\n") else "\n") + "\n" + text
    figure = next(f for f in validation.load(path, joined) if f.id == row["id"])  # every row of the file, checked
    print(text, end="")
    if not a.no_model:
        db = Path(a.db)
        db.parent.mkdir(parents=True, exist_ok=True)
        try:
            runs = validation.run_groups([figure], db)
        except subprocess.CalledProcessError:
            raise PlanError("the model's build or run failed (its message is above): nothing appended") from None
        store = Store(db)
        try:
            model = validation.model_cycles(store, runs[figure.group()], figure)
        finally:
            store.close()
        if model is None:
            raise PlanError(f"the model gave no figure for {figure.row['algorithm']} {figure.row['op']} with"
                            f" {figure.library} {figure.row['profile']}: nothing appended")
        pub = figure.published_cycles()
        per = " per byte" if figure.per_byte else ""
        board, mine = validation.cycles_text(pub), validation.cycles_text(model)
        print(f"board: {board} cycles{per}; model: {mine} cycles{per} (run {runs[figure.group()]} of {db});"
              f" error: {100 * (model - pub) / pub:+.1f}% ({a.match} code)")
    path.write_text(joined)
    print(f"appended {row['id']} to {path}; judge the file: scripts/validate-model --figures {path}")
    return 0
