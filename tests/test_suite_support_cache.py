"""`tlsbench list suites` keeps each image's answers by the image's SHA-256:
the same image is read back without a handshake, a rebuilt image (another
SHA-256) is asked again, and an answer with a failure is not kept."""

from __future__ import annotations

from pathlib import Path

import pytest

from tlsbench import paths
from tlsbench.families.tls import catalog as tls_catalog
from tlsbench.families.tls import support


def test_answers_are_kept_per_image_and_failures_asked_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(paths, "data_dir", lambda: tmp_path)
    asked: list[Path] = []
    answer = "yes"

    def ask(path: Path) -> dict[str, str]:
        asked.append(path)
        return {s: answer for s in tls_catalog.SUITES}

    monkeypatch.setattr(support, "_ask", ask)
    agent = Path("/firmware/launcher")
    first = support.suite_answers(agent, "a" * 64)
    assert support.suite_answers(agent, "a" * 64) == first and len(asked) == 1  # read back
    assert len(list((tmp_path / "suite-support").iterdir())) == 1
    support.suite_answers(agent, "b" * 64)  # a rebuilt image
    assert len(asked) == 2
    answer = "fails: timeout"
    support.suite_answers(agent, "c" * 64)
    support.suite_answers(agent, "c" * 64)
    assert len(asked) == 4  # a failure is never kept
    support.suite_answers(agent)  # no image hash: always asked
    assert len(asked) == 5
    header, body = support.support_matrix({"mbedtls": agent}, ["mbedtls", "wolfssl"], {"mbedtls": "a" * 64})
    assert len(asked) == 5 and header[-2:] == ["mbedtls", "wolfssl"]
    assert {row[-2] for row in body} == {"yes"} and {row[-1] for row in body} == {"not built"}
