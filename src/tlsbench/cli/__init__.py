"""The command line: `parser` is the argument table, `main` the entry point."""

from tlsbench.cli.main import main
from tlsbench.cli.parser import parser

__all__ = ["main", "parser"]
