"""The command line every results page generator takes: its stored runs (--run, repeatable) and the page to
write (-o), under `tlsbench study NAME`."""

from __future__ import annotations

import argparse
from collections.abc import Callable


def add_page_parser(sub: argparse._SubParsersAction, db: argparse.ArgumentParser, name: str, help: str,
                    run_help: str, command: Callable[[argparse.Namespace], int | None],
                    doc: str | None) -> argparse.ArgumentParser:
    """`tlsbench study NAME --run N ... -o PAGE`; the caller adds its own options to what it returns."""
    p = sub.add_parser(name, parents=[db], help=help, description=(doc or "").split("\n\n")[0])
    p.add_argument("--run", type=int, action="append", required=True, help=run_help)
    p.add_argument("-o", "--output", required=True, help="the page to write")
    p.set_defaults(func=command)
    return p
