"""Every option of every subcommand says in its help what happens without it."""

from __future__ import annotations

import argparse

from tlsbench import cli


def _options(p: argparse.ArgumentParser, path: str = "tlsbench") -> list[tuple[str, argparse.Action]]:
    out = []
    for action in p._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                out += _options(sub, f"{path} {name}")
        elif action.option_strings and not action.required and action.help != argparse.SUPPRESS:
            out.append((path, action))
    return out


def test_every_option_names_its_default() -> None:
    options = _options(cli.parser())
    assert len(options) > 80  # every subcommand was walked
    missing = [f"{path} {a.option_strings[-1]}" for path, a in options
               if a.help and "default" not in a.help and a.option_strings[-1] not in ("--help", "--version")]
    assert missing == []
    helps = {f"{path} {a.option_strings[-1]}": a.help for path, a in options}
    assert helps["tlsbench run --json"].endswith("(default: off)")
    assert helps["tlsbench run --board"].endswith("(default: none)")
    assert helps["tlsbench certs --key-types"].startswith("comma-separated, of: rsa2048, rsa3072")
