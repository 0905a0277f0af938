"""Progress messages through logging: the text alone, on the stream the process chose."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest

from tlsbench import messages


@pytest.fixture
def shown() -> Iterator[logging.Logger]:
    logger = logging.getLogger(messages.ROOT)
    before, level = list(logger.handlers), logger.level
    logger.handlers[:], logger.level = [], logging.NOTSET  # as before any CLI main in this worker
    yield logging.getLogger("tlsbench.targets.build")
    logger.handlers[:], logger.level = before, level


def test_a_message_is_its_text_alone_on_the_chosen_stream(shown: logging.Logger,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    messages.show_on("stdout")
    shown.info("building agents with 2 jobs (100%)")
    assert capsys.readouterr() == ("building agents with 2 jobs (100%)\n", "")
    messages.show_on("stderr")  # replaces the stream: each message once
    shown.info("configuring agents (mbedtls) in /x")
    assert capsys.readouterr() == ("", "configuring agents (mbedtls) in /x\n")
    shown.debug("not shown")
    assert capsys.readouterr() == ("", "")


def test_without_a_chosen_stream_nothing_is_printed(shown: logging.Logger, capsys: pytest.CaptureFixture[str]) -> None:
    shown.info("building agents with 2 jobs")
    assert capsys.readouterr() == ("", "")
