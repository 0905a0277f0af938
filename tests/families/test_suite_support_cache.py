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

    def ask(path: Path, check: bool = True) -> dict[str, str]:
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


SETUP_FAKE = """#!{python}
import sys, zlib
def out(body):
    sys.stdout.write(body + " crc=%08x\\n" % zlib.crc32(body.encode()))
    sys.stdout.flush()
for line in sys.stdin:
    f = dict(p.split("=", 1) for p in line.split()[1:] if "=" in p)
    with open({log!r}, "a") as fh:
        fh.write(" ".join(k + "=" + f.get(k, "-") for k in ("setup", "repeats", "warmup")) + "\\n")
    if "setup" in f and {old}:
        out("tb1 end status=bad_input msg=unknown%20field%20setup")
    else:
        out("tb1 end status=" + ("unsupported" if "CCM" in f.get("suite", "") else "ok"))
"""


@pytest.mark.parametrize("old_image", [False, True])
def test_firmware_is_asked_by_set_up_unless_checked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                    old_image: bool) -> None:
    """Set-up answers ("accepted") come from requests that make no connection
    (setup=1 repeats=0 warmup=0); an image built before those requests is
    asked by handshake instead; kept handshake answers also answer a set-up
    question, never the other way round."""
    import sys

    monkeypatch.setattr(paths, "data_dir", lambda: tmp_path)
    log = tmp_path / "requests"
    fake = tmp_path / "tlsbench-agent-fake"
    fake.write_text(SETUP_FAKE.format(python=sys.executable, log=str(log), old=str(old_image)))
    fake.chmod(0o755)
    n = len(tls_catalog.SUITES)
    answers = support.suite_answers(fake, "d" * 64, check=False)
    lines = log.read_text().splitlines()
    if old_image:  # every set-up request refused, then every suite by handshake
        assert lines == ["setup=1 repeats=0 warmup=0"] * n + ["setup=- repeats=1 warmup=0"] * n
        assert set(answers.values()) == {"yes", "unsupported"}
    else:
        assert lines == ["setup=1 repeats=0 warmup=0"] * n
        assert all(answers[s] == ("unsupported" if "CCM" in s else "accepted") for s in tls_catalog.SUITES)
    # kept: asked again, nothing is sent
    assert support.suite_answers(fake, "d" * 64, check=False) == answers and len(log.read_text().splitlines()) \
        == len(lines)
    if not old_image:  # a check is never answered by set-up answers: it runs the handshakes, then those answer both
        checked = support.suite_answers(fake, "d" * 64, check=True)
        assert set(checked.values()) == {"yes", "unsupported"}
        assert support.suite_answers(fake, "d" * 64, check=False) == checked


@pytest.mark.parametrize("library", ["mbedtls", "wolfssl"])
def test_set_up_answers_agree_with_handshakes_on_the_real_agents(agents, library: str) -> None:
    """What each side's set-up accepts is what completes a handshake, suite by
    suite (the firmware images run the same core and adapters); a set-up
    request that also asks for connections is refused."""
    from tlsbench.engine import agent

    path = paths.agent_path(library)
    by_setup = support._ask(path, check=False)
    by_handshake = support._ask(path, check=True)
    assert {s: {"accepted": "yes"}.get(a, a) for s, a in by_setup.items()} == by_handshake
    assert "accepted" in by_setup.values() and "unsupported" in by_setup.values()
    case = next(iter(support._cases().values()))
    bad = support._request(case, False).replace("repeats=0", "repeats=1")
    assert agent.call(path, [bad], 30, "set-up with a connection").responses[0].status == "bad_input"
