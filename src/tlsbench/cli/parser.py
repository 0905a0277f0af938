"""The argument table: one parser per subcommand, each added by the module that handles it."""

from __future__ import annotations

import argparse
import os

from tlsbench import paths
from tlsbench.cli import db as db_commands
from tlsbench.cli import inventory, results, run, studies
from tlsbench.engine import machine

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
    for module in (run, results, db_commands, inventory, studies):
        module.add_parsers(sub, db)
    _say_defaults(p)
    return p
