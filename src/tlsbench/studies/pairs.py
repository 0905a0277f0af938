"""The PAIR arguments of the tool-against-tlsbench studies (fidelity counts, native counts)."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable


def pair_of(pairs: Iterable[str]) -> Callable[[str], str]:
    """An argparse type: a known pair's name, else one line naming the known ones."""
    known = list(pairs)

    def pair(name: str) -> str:
        if name not in known:
            raise argparse.ArgumentTypeError(f"unknown pair {name!r}; known: {', '.join(known)}")
        return name
    return pair
