"""The progress line: a redrawn bar on a terminal, plain lines elsewhere,
nothing when disabled."""

from __future__ import annotations

import io

from tlsbench.engine.progress import Progress


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_not_a_terminal_gets_plain_lines_without_carriage_returns() -> None:
    out = io.StringIO()
    p = Progress(3, stream=out)
    for name in ("a", "b", "c"):
        p.update(name)
    text = out.getvalue()
    assert "\r" not in text and "[" not in text
    assert text.splitlines()[-1].startswith("progress: 3/3 cases (100%)")


def test_a_terminal_gets_a_redrawn_bar() -> None:
    out = _Tty()
    p = Progress(2, stream=out)
    p.update("first")
    p.update("second")
    text = out.getvalue()
    assert text.count("\r") == 2 and "2/2 cases 100%" in text and text.endswith("\n")


def test_disabled_writes_nothing() -> None:
    out = _Tty()
    p = Progress(2, enabled=False, stream=out)
    p.update("x")
    p.update("y")
    assert out.getvalue() == "" and p.done == 2


def test_rounds_count_cases_not_case_rounds() -> None:
    out = _Tty()
    p = Progress(30, stream=out, rounds=3)  # 10 cases, 3 rounds
    p.update("first")
    assert "case 1/10 of round 1/3" in out.getvalue() and "/30" not in out.getvalue()
    for _ in range(11):
        p.update("next")
    assert "case 2/10 of round 2/3" in out.getvalue()
    plain = io.StringIO()
    q = Progress(20, stream=plain, rounds=2)
    for _ in range(20):
        q.update("x")
    assert plain.getvalue().splitlines()[-1].startswith("progress: case 10/10 of round 2/2 (100%)")
