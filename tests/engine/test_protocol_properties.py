"""Property tests of the agent-line parser: whatever an agent (or a noisy
UART) sends, the parser returns a record or raises ProtocolError, never
anything else. The budget is small here; TLSBENCH_FUZZ_EXAMPLES raises it
for a long run (docs/method.md)."""

from __future__ import annotations

import os
import zlib

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tlsbench.engine.protocol import SCHEMA, parse_line
from tlsbench.errors import ProtocolError

EXAMPLES = int(os.environ.get("TLSBENCH_FUZZ_EXAMPLES", "300"))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])


def with_crc(body: str) -> str:
    return f"{body} crc={zlib.crc32(body.encode('utf-8', 'surrogatepass')):08x}"


def parses_or_refuses(text: str) -> None:
    try:
        rec = parse_line(text)
    except ProtocolError:
        return
    assert rec.type in SCHEMA


tokens = st.one_of(
    st.sampled_from(["i", "iters", "wall_ns", "status", "msg", "data", "proto", "ok", "error", "%", "=", "%zz"]),
    st.text(max_size=12),
    st.integers(min_value=-1, max_value=1 << 70).map(str),
)
bodies = st.builds(
    lambda rtype, fields: " ".join(["tb1", rtype, *fields]),
    st.sampled_from([*SCHEMA, "bogus", ""]),
    st.lists(st.builds(lambda k, v: f"{k}={v}", tokens, tokens), max_size=8),
)


@SETTINGS
@given(bodies)
def test_valid_crc_lines_parse_or_raise_protocol_error(body: str) -> None:
    parses_or_refuses(with_crc(body))


@SETTINGS
@given(st.text(max_size=300))
def test_arbitrary_text_parses_or_raises_protocol_error(text: str) -> None:
    parses_or_refuses(text)
    parses_or_refuses(with_crc(text))
