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


FAKE = """#!{python}
import os, signal, sys, zlib
with open({starts!r}, "a") as fh:
    fh.write("start\\n")
def out(body):
    sys.stdout.write(body + " crc=%08x\\n" % zlib.crc32(body.encode()))
    sys.stdout.flush()
for line in sys.stdin:
    suite = dict(p.split("=", 1) for p in line.split()[1:] if "=" in p).get("suite", "")
    if "CHACHA20" in suite and "ECDHE_ECDSA" in suite:
        os.kill(os.getpid(), signal.SIGSEGV)  # this suite kills the agent, every time
    out("tb1 end status=" + ("unsupported" if "CCM" in suite else "ok"))
"""


def test_one_agent_start_asks_every_suite_and_a_crash_spoils_only_its_suite(tmp_path: Path) -> None:
    """The first `list suites` was slow because every suite started its own
    agent (on firmware: booted the emulator) and made its own keys: now one
    start asks them all, and after a crash the rest are asked one by one."""
    import sys

    starts = tmp_path / "starts"
    fake = tmp_path / "tlsbench-agent-fake"
    fake.write_text(FAKE.format(python=sys.executable, starts=str(starts)))
    fake.chmod(0o755)
    answers = support._ask(fake)
    suites = list(tls_catalog.SUITES)
    crash = next(i for i, s in enumerate(suites) if "CHACHA20" in s and "ECDHE_ECDSA" in s)
    assert list(answers) == suites
    assert answers[suites[crash]] == "fails: agent crashed (SIGSEGV) after 0 of 1 req"
    assert all(answers[s] == ("unsupported" if "CCM" in s else "yes") for i, s in enumerate(suites) if i != crash)
    # one start for the batch, then one per suite from the crash on
    assert starts.read_text().count("start") == 1 + len(suites) - crash
