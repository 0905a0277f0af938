"""Rows of cells as text: aligned columns for the terminal, a Markdown table."""

from __future__ import annotations

import html
import re


def aligned(header: list[str], body: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in [header, *body]) for i in range(len(header))]
    fmt = lambda r: "  ".join(v.ljust(w) for v, w in zip(r, widths, strict=False)).rstrip()  # noqa: E731
    return "\n".join([fmt(header), fmt(["-" * w for w in widths]), *map(fmt, body)])


_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]|#])")


def markdown_text(text: str) -> str:
    """Text shown as itself in Markdown: a stored name (a plan's, a label's) may hold raw HTML or
    Markdown syntax; neither is interpreted by a Markdown viewer."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", html.escape(text, quote=False))


def markdown(header: list[str], body: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in body]
    return "\n".join(lines)
