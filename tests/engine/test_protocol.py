"""The protocol reader rejects every malformed line, with a clear reason."""

from __future__ import annotations

import zlib

import pytest

from tlsbench.engine.protocol import NO_ROOM, encode_request, parse_line, ran_out_of_room
from tlsbench.errors import ProtocolError


def line(body: str) -> str:
    return f"{body} crc={zlib.crc32(body.encode()):08x}"


def test_valid_sample_is_parsed_with_types() -> None:
    r = parse_line(line("tb1 sample i=3 iters=100 wall_ns=12345 cpu_ns=12000"))
    assert r.type == "sample" and r["i"] == 3 and r["wall_ns"] == 12345 and "tsc" not in r.fields


def test_percent_escapes_are_decoded() -> None:
    r = parse_line(line("tb1 end status=error msg=a%20b%3dc%25"))
    assert r["msg"] == "a b=c%"


@pytest.mark.parametrize(
    "text, reason",
    [
        ("tb1 sample i=3 iters=100 wall_ns=12345", "no crc"),
        (line("tb1 sample i=3 iters=100 wall_ns=12345")[:-1] + "0", "crc mismatch"),
        (line("tb2 end status=ok"), "not a tb1 record"),
        (line("tb1 bogus x=1"), "unknown record type"),
        (line("tb1 sample i=3 wall_ns=100"), "lacks iters"),
        (line("tb1 sample i=x iters=100 wall_ns=1"), "not an unsigned 64-bit integer"),
        (line("tb1 out data=abc"), "not hex"),
        (line("tb1 end status=ok status=ok"), "duplicate field"),
        (line("tb1 end status=maybe"), "unknown end status"),
        (line("tb1 end status=ok extra=1"), "unexpected field"),
        # an agent of the version before (no no_room status) is refused, as any other version
        (line("tb1 hello proto=1 library=x version=1 config=c platform=p counters=wall_ns"), "protocol 1"),
        (line("tb1 hello proto=3 library=x version=1 config=c platform=p counters=wall_ns"), "protocol 3"),
        (line("tb1 fault what=x exception=3 pc=0 lr=0 no_room=x"), "not an unsigned 64-bit integer"),
    ],
)
def test_malformed_lines_are_errors(text: str, reason: str) -> None:
    with pytest.raises(ProtocolError, match=reason):
        parse_line(text)


def test_no_room_is_a_status_code_not_prose() -> None:
    """Out of memory crosses the protocol as the end record's status (or a stack overflow's fault
    record's no_room=1); the message is the agent's own words and is never searched."""
    assert parse_line(line("tb1 end status=no_room msg=heap%20arena%20full"))["status"] == NO_ROOM
    room = "\n".join([line("tb1 sample i=0 iters=1 wall_ns=5"), line("tb1 end status=no_room msg=x")])
    assert ran_out_of_room(room)
    assert ran_out_of_room("--- stderr ---\n> " + line("tb1 fault what=stack exception=3 pc=0 lr=0 no_room=1"))
    prose = [line("tb1 end status=error msg=out%20of%20memory"), line("tb1 end status=bad_input msg=request%20line"
                                                                      "%20too%20long"),
             line("tb1 fault what=stack%20overflow exception=3 pc=0 lr=0"), "heap arena full: 8 B more asked",
             "tb1 end status=no_room crc=00000000"]  # a damaged line says nothing
    assert [ran_out_of_room(text) for text in prose] == [False] * len(prose)


def test_requests_refuse_unencodable_values() -> None:
    assert encode_request("compute", kind="hash", msg=b"\x01\xff", aad=b"") == "compute kind=hash msg=01ff"
    with pytest.raises(ValueError):
        encode_request("compute", alg="a b")


def test_the_c_encoder_and_crc_agree_with_the_reader(agents) -> None:
    """The agent's own records (escaped strings, CRC) parse; a bad request
    gets a clear end record rather than silence."""
    import subprocess

    out = subprocess.run([str(agents["openssl"])], input="hello\nfrobnicate\ncompute kind=hash\n",
                         capture_output=True, text=True, timeout=30).stdout.splitlines()
    recs = [parse_line(x) for x in out]
    assert recs[0].type == "hello" and " " in recs[0]["version"]  # spaces travelled as %20
    ends = [r for r in recs if r.type == "end"]
    assert [e["status"] for e in ends] == ["ok", "bad_input", "bad_input"]
    assert "unknown request" in ends[1]["msg"] and "required" in ends[2]["msg"]


@pytest.mark.parametrize(
    "text, reason",
    [
        (line("tb1 end status=error msg=caf\u00e9"), "non-ASCII"),
        (line("tb1 end status=error msg=\u20ac"), "non-ASCII"),
        (line("tb1 sample i=1 iters=" + "9" * 5000), "not an unsigned 64-bit integer"),
        (line(f"tb1 sample i=1 iters={1 << 64}"), "not an unsigned 64-bit integer"),
        (line("tb1 end status=error msg=a%+1"), "bad %-escape"),
        (line("tb1 end status=error msg=a%f"), "bad %-escape"),
        ("tb1 out data=" + "00" * (1 << 17) + " crc=00000000", "longer than"),
    ],
)
def test_hostile_lines_are_protocol_errors(text: str, reason: str) -> None:
    with pytest.raises(ProtocolError, match=reason):
        parse_line(text)


def test_the_largest_64_bit_count_is_accepted() -> None:
    assert parse_line(line(f"tb1 sample i=0 iters={(1 << 64) - 1}"))["iters"] == (1 << 64) - 1
