"""Reader for the agent's line protocol (see agent/include/tb/protocol.h).

Every line is validated: prefix, record type, key syntax, required fields,
field types and the CRC-32 that ends it. Anything else is a ProtocolError
that names the offending line, never a silent drop.
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass, field

from tlsbench.errors import ProtocolError

# 2: an end record says "no_room" when the request ran out of the agent's memory, and a stack
# overflow's fault record says no_room=1 (version 1 said it only in prose)
PROTOCOL_VERSION = 2
PREFIX = "tb1"

_KEY = re.compile(r"[a-z0-9_]+\Z")
_HEX = re.compile(r"(?:[0-9a-f]{2})*\Z")
_UINT = re.compile(r"[0-9]{1,20}\Z")  # fits 64 bits when <= UINT64_MAX
UINT64_MAX = (1 << 64) - 1
# the longest line an agent may send (the host agent's record buffer)
MAX_LINE = 1 << 17
_ESCAPE = re.compile(r"[0-9a-fA-F]{2}\Z")
_CRC = re.compile(r" crc=([0-9a-f]{8})\Z")

# type -> {field: "str" | "uint" | "hex"}; "?" marks optional fields
_COUNTERS = {"?cpu_ns": "uint", "?tsc": "uint", "?cycles": "uint", "?instructions": "uint", "?model_cycles": "uint"}
_BATCH = {"i": "uint", "iters": "uint", "?wall_ns": "uint", **_COUNTERS}
_HANDSHAKE = {
    # time fields only where the platform has the clock (firmware: instructions instead)
    "i": "uint", "?batch": "uint", "?wall_ns": "uint", "?client_cpu_ns": "uint", "?server_cpu_ns": "uint",
    "?client_instructions": "uint", "?server_instructions": "uint",
    "?client_heap_peak": "uint", "?server_heap_peak": "uint", "?client_heap_held": "uint",
    "?server_heap_held": "uint",
    "c2s_bytes": "uint", "s2c_bytes": "uint", "c2s_records": "uint", "s2c_records": "uint",
    "flights": "uint", "?round_trips": "uint", "?app_client_cpu_ns": "uint", "?app_server_cpu_ns": "uint",
    "?app_client_instructions": "uint", "?app_server_instructions": "uint",
    "total_c2s_bytes": "uint", "total_s2c_bytes": "uint", "?resumed": "uint",
    "?bulk_bytes": "uint", "?bulk_wall_ns": "uint", "?bulk_client_cpu_ns": "uint", "?bulk_server_cpu_ns": "uint",
    "?bulk_client_instructions": "uint", "?bulk_server_instructions": "uint",
    # a board profile's cycle model (emulated firmware run with --board)
    "?client_model_cycles": "uint", "?server_model_cycles": "uint", "?app_client_model_cycles": "uint",
    "?app_server_model_cycles": "uint", "?bulk_client_model_cycles": "uint", "?bulk_server_model_cycles": "uint",
    "?side": "str",  # one side on the device (tls-device): its figures only; round trips are the client's
}
# One side of one connection over a socket (each process reports its own side).
_SIDE = {
    "i": "uint", "side": "str", "connect_ns": "uint", "handshake_ns": "uint", "transaction_ns": "uint",
    "cpu_ns": "uint", "?instructions": "uint", "sent_bytes": "uint", "recv_bytes": "uint",
    "sent_records": "uint", "recv_records": "uint", "flights": "uint", "round_trips": "uint", "resumed": "uint",
    "?heap_peak": "uint", "?heap_held": "uint", "app_cpu_ns": "uint", "total_sent_bytes": "uint",
    "total_recv_bytes": "uint", "?bulk_bytes": "uint", "?bulk_wall_ns": "uint", "?bulk_cpu_ns": "uint",
    "?io_cpu_ns": "uint",  # over TCP: the part of cpu_ns inside the socket calls (kernel time, mostly)
    "?warmed": "uint",  # 1: the server made an untimed connection in memory just before this one (warm=1)
}
SCHEMA: dict[str, dict[str, str]] = {
    "hello": {
        "proto": "uint", "library": "str", "version": "str", "config": "str",
        "platform": "str", "counters": "str",
    },
    "counter_missing": {"counter": "str", "reason": "str"},
    "alg": {"kind": "str", "alg": "str", "op": "str", "supported": "uint"},
    "out": {"data": "hex"},
    # calls one run() makes through the adapter interface (the "calls" request)
    "calls": {"adapter_run": "uint", "cipher_run": "uint", "cipher_bytes": "uint", "mac_run": "uint",
              "mac_bytes": "uint", "total": "uint"},
    "calib": {"iters": "uint", "?timed_heap_calls": "uint", "?stack_shift": "uint", "?stack_at": "uint",
              "?heap_shift": "uint"},
    "reference": {"steps": "uint", "?lanes": "uint", "result": "uint", "?wall_ns": "uint", "?cpu_ns": "uint",
                  "?instructions": "uint"},
    "warmup": _BATCH,
    "sample": _BATCH,
    "memory": {
        "?setup_heap_peak": "uint", "?setup_heap_held": "uint", "?heap_peak": "uint", "?heap_held": "uint",
        "?allocs": "uint", "?stack": "uint",
    },
    "tls": _HANDSHAKE,
    "tls_warmup": _HANDSHAKE,
    "wire": {"from": "str", "data": "hex"},
    "heap_check": {"system_delta": "uint", "held": "uint", "blocks": "uint"},
    "tls_stack": {"?client_stack": "uint", "?server_stack": "uint"},  # one side on the device: its own
    "tls_memory": {"?client_heap_peak": "uint", "?server_heap_peak": "uint", "?client_heap_held": "uint",
                   "?server_heap_held": "uint", "c2s_bytes": "uint", "s2c_bytes": "uint", "c2s_records": "uint",
                   "s2c_records": "uint", "total_c2s_bytes": "uint", "total_s2c_bytes": "uint",
                   "?max_frag": "uint"},
    # the minimum-RAM search's capped connection: each side's heap peak, the allocations the cap refused
    "tls_cap": {"passed": "uint", "refusals": "uint", "?first_need": "uint", "?client_heap_peak": "uint",
                "?server_heap_peak": "uint", "?max_frag": "uint"},
    # what each side's configuration holds on the heap, outside any connection (tls-device: its side only)
    "tls_endpoint": {"?client_heap_held": "uint", "?server_heap_held": "uint"},
    # tls-device: the harness's heap beside the side for the whole request (its rx line, uploaded credentials)
    "tls_harness": {"rx_line": "uint", "upload": "uint"},
    "process_heap": {"peak": "uint", "?timed_heap_calls": "uint"},
    "listening": {"port": "uint"},
    "tls_side": _SIDE,
    "tls_side_warmup": _SIDE,
    "tls_side_memory": _SIDE,  # the counted connection of a socket side (its heap)
    "tls_place": {"stack_at": "uint", "heap_shift": "uint"},  # where the timed handshakes' frame landed
    "capacity": {"transactions": "uint", "failures": "uint", "wall_ns": "uint", "cpu_ns": "uint", "?error": "str"},
    # a capacity client's transactions in one window of its time (index: the window's end on the monotonic
    # clock, in windows, the same for every client of the run)
    "capacity_window": {"index": "uint", "transactions": "uint", "wall_ns": "uint"},
    # firmware only: the calibration loop, and a fault that ended the firmware
    "calibrate": {"n": "uint", "loop_instructions": "uint", "empty": "uint", "measured": "uint", "read_cost": "uint",
                  "?model_empty": "uint", "?model_measured": "uint", "?model_read_cost": "uint"},
    "limits": {"line_max": "uint", "record_max": "uint", "heap_arena": "uint", "stack_bytes": "uint",
               "primitive_stack": "uint", "stacks": "uint", "main_stack": "uint", "heap_failures": "uint"},
    "fault": {"what": "str", "exception": "uint", "pc": "uint", "lr": "uint", "?cfsr": "uint", "?hfsr": "uint",
              "?bfar": "uint", "?mtval": "uint",  # mtval: RV32's faulting address or instruction
              "?no_room": "uint"},  # 1: the stack ran out (the firmware's memory, not a bug of the request)
    # one side on the device (tls-device): a connection opens and closes, the side's bytes go out, it
    # waits for its peer's (the host answers with an "rx" line)
    "open": {},
    "close": {},
    "tx": {"data": "hex"},
    "want": {"max": "uint"},
    "end": {"status": "str", "?msg": "str"},
}
END_STATUSES = ("ok", "unsupported", "error", "bad_input", "reject", "no_room")
# the request ran out of the agent's memory: its heap, its own buffers or the request line
NO_ROOM = "no_room"


@dataclass
class Record:
    type: str
    fields: dict[str, str | int | bytes] = field(default_factory=dict)

    def __getitem__(self, key: str) -> str | int | bytes:
        return self.fields[key]

    def get(self, key: str, default: object = None) -> object:
        return self.fields.get(key, default)


def _unescape(value: str, line: str) -> str:
    out = bytearray()
    i = 0
    raw = value.encode("ascii")  # parse_line let only ASCII through
    while i < len(raw):
        if raw[i] == 0x25:  # '%'
            digits = raw[i + 1 : i + 3].decode()
            if not _ESCAPE.match(digits):
                raise ProtocolError(f"bad %-escape in {line[:120]!r}")
            out.append(int(digits, 16))
            i += 3
        else:
            out.append(raw[i])
            i += 1
    return out.decode("utf-8", "replace")


def parse_line(line: str) -> Record:
    """Parses and validates one record line (without its newline)."""
    if len(line) > MAX_LINE:
        raise ProtocolError(f"record longer than {MAX_LINE} characters: {line[:120]!r}")
    if not line.isascii():
        raise ProtocolError(f"record has non-ASCII characters: {line[:120]!r}")
    m = _CRC.search(line)
    if not m:
        raise ProtocolError(f"record has no crc (truncated?): {line[:120]!r}")
    body = line[: m.start()]
    if zlib.crc32(body.encode("latin-1")) != int(m.group(1), 16):
        raise ProtocolError(f"crc mismatch (corrupted line): {line[:120]!r}")
    parts = body.split(" ")
    if len(parts) < 2 or parts[0] != PREFIX:
        raise ProtocolError(f"not a {PREFIX} record: {line[:120]!r}")
    rtype = parts[1]
    schema = SCHEMA.get(rtype)
    if schema is None:
        raise ProtocolError(f"unknown record type {rtype!r} in {line[:120]!r}")
    rec = Record(rtype)
    for token in parts[2:]:
        key, eq, value = token.partition("=")
        if not eq or not _KEY.match(key):
            raise ProtocolError(f"bad field {token[:40]!r} in {line[:120]!r}")
        kind = schema.get(key) or schema.get("?" + key)
        if kind is None:
            raise ProtocolError(f"unexpected field {key!r} in {rtype} record")
        if key in rec.fields:
            raise ProtocolError(f"duplicate field {key!r} in {rtype} record")
        if kind == "uint":
            if not _UINT.match(value) or int(value) > UINT64_MAX:
                raise ProtocolError(f"field {key} is not an unsigned 64-bit integer: {value[:40]!r}")
            rec.fields[key] = int(value)
        elif kind == "hex":
            if not _HEX.match(value):
                raise ProtocolError(f"field {key} is not hex: {value[:40]!r}")
            rec.fields[key] = bytes.fromhex(value)
        else:
            rec.fields[key] = _unescape(value, line)
    missing = [k for k in schema if not k.startswith("?") and k not in rec.fields]
    if missing:
        raise ProtocolError(f"{rtype} record lacks {', '.join(missing)}: {line[:120]!r}")
    if rtype == "end" and rec.fields["status"] not in END_STATUSES:
        raise ProtocolError(f"unknown end status {rec.fields['status']!r}")
    if rtype == "hello" and rec.fields["proto"] != PROTOCOL_VERSION:
        raise ProtocolError(
            f"agent speaks protocol {rec.fields['proto']}, this tlsbench speaks {PROTOCOL_VERSION}"
        )
    return rec


def encode_request(verb: str, **fields: object) -> str:
    """One request line; bytes become hex, numbers decimal, names as they are."""
    parts = [verb]
    for key, value in fields.items():
        if value is None:
            continue
        if isinstance(value, (bytes, bytearray)):
            if not value:
                continue
            text = value.hex()
        else:
            text = str(value)
        if not text or any(c in text for c in " =\n\r"):
            raise ValueError(f"request field {key}={text!r} cannot be encoded")
        parts.append(f"{key}={text}")
    return " ".join(parts)


def ran_out_of_room(transcript: str) -> bool:
    """Whether an agent's transcript (its record lines, among other text) says
    a request ran out of the agent's memory: an end record of status no_room,
    or a fault record with no_room=1. Lines that are not records are skipped."""
    for line in transcript.splitlines():
        start = line.find(PREFIX + " ")
        if start < 0:
            continue
        try:
            rec = parse_line(line[start:].rstrip("\r"))
        except ProtocolError:
            continue
        if (rec.type == "end" and rec.fields["status"] == NO_ROOM) or (rec.type == "fault" and rec.get("no_room") == 1):
            return True
    return False
