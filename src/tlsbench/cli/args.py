"""Argument types and choices shared by the subcommands: a bad value is one line naming the flag and
what is allowed."""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from tlsbench import versions
from tlsbench.errors import PlanError
from tlsbench.outfile import folder
from tlsbench.plans.flags import choose, comma_list
from tlsbench.targets import target as targets
from tlsbench.targets import userconfig

__all__ = ["choose", "choose_libraries", "comma_list", "cflags_joined", "output_folder", "percent_arg",
           "user_build_options", "with_user_build"]


def percent_arg(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a percentage, e.g. 5, got {text!r}") from None
    if not 0 <= value < 1000 or math.isnan(value):
        raise argparse.ArgumentTypeError(f"must be a percentage from 0 to 1000, got {text!r}")
    return value


def choose_libraries(text: str) -> list[str]:
    """--libraries: bare names (the default version) or name@version, e.g. openssl@3.5."""
    names = comma_list(text)
    choose("library", ",".join(versions.base(n) for n in names), list(versions.VERSIONS), "tlsbench list libraries")
    chosen = [versions.canonical(name) for name in names]  # one line listing the versions allowed
    if len(set(chosen)) != len(chosen):
        raise PlanError(f"--libraries {text}: names a library version twice")
    return chosen


def output_folder(text: str) -> Path:
    """--out: a folder that exists or can be made (one line, not a traceback, when not)."""
    return folder(text, "--out")


def with_user_build(target: targets.Target, a: argparse.Namespace) -> targets.Target:
    """The target with the user's --config files and --cflags (none: the target as it was)."""
    return target.with_user_build(userconfig.parse(a.config, a.cflags))


def user_build_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", action="append", metavar="LIB=[full:]PATH",
                   help="your own library configuration (repeatable; Mbed TLS, wolfSSL), built in a folder of its own"
                        f" and stored with the run: {userconfig.help_text()}; refused before building when it turns"
                        " off what the harness needs (default: ours)")
    p.add_argument("--cflags", metavar='"FLAGS"',
                   help='your compiler options for every object and the link, after --opt, e.g. "-O2 -flto"'
                        " (split like a shell would, never run by one; recorded; default: none)")


def cflags_joined(argv: list[str]) -> list[str]:
    """`--cflags -O2` as `--cflags=-O2`: argparse takes a lone value starting with '-' for an option."""
    out: list[str] = []
    for arg in argv:
        if out and out[-1] == "--cflags" and arg.startswith("-"):
            out[-1] = f"--cflags={arg}"
        else:
            out.append(arg)
    return out
