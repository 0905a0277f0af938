"""Every library's timed region does the same steps for the same case.

The TLS 1.2 CBC+HMAC record is composed once in the agent's core from each library's
primitives; the agent's "calls" request counts what one run() calls through the adapter
interface, exactly, so the libraries must agree to the call and to the byte.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tlsbench.engine import agent
from tlsbench.engine.protocol import encode_request
from tlsbench.families.primitive.calls import CallCounts, count_calls
from tlsbench.families.primitive.catalog import LIBRARIES
from tlsbench.families.primitive.vectors import cbc_hmac_seal

MAC_LEN = {"aes-128-cbc-hmac-sha1": 20, "aes-128-cbc-hmac-sha256": 32}
IV = bytes(range(16))
AAD = bytes(range(0x40, 0x4D))  # the 13-byte TLS MAC header
MSG = bytes((i * 131 + 7) & 0xFF for i in range(1024))


def _inputs(alg: str) -> dict[str, bytes]:
    return {"key": bytes(range(1, 17 + MAC_LEN[alg])), "nonce": IV, "aad": AAD}


@pytest.mark.parametrize("alg", sorted(MAC_LEN))
@pytest.mark.parametrize("op", ["encrypt", "decrypt"])
def test_cbc_hmac_record_makes_the_same_calls_in_every_library(agents: dict[str, Path], alg: str, op: str) -> None:
    f = _inputs(alg)
    record = cbc_hmac_seal(alg, f["key"], IV, AAD, MSG)
    msg = MSG if op == "encrypt" else record
    counts = {lib: count_calls(agents[lib], "aead", alg, op, {**f, "msg": msg}) for lib in LIBRARIES}
    # one HMAC over header || message, one AES-CBC pass over the padded record, nothing else:
    # no library runs a record code of its own (adapter_run 0)
    expected = CallCounts(adapter_run=0, cipher_run=1, cipher_bytes=len(record), mac_run=1,
                          mac_bytes=len(AAD) + len(MSG), total=2)
    assert counts == {lib: expected for lib in LIBRARIES}


def test_a_tampered_record_is_rejected_by_every_library(agents: dict[str, Path]) -> None:
    alg = "aes-128-cbc-hmac-sha256"
    f = _inputs(alg)
    record = bytearray(cbc_hmac_seal(alg, f["key"], IV, AAD, MSG))
    record[-40] ^= 1  # inside the MAC: padding intact, the MAC check fails
    for lib in LIBRARIES:
        res = agent.call(agents[lib], [encode_request("calls", kind="aead", alg=alg, op="decrypt", msg=bytes(record),
                                                      **f)], 30, "calls")
        assert res.responses[0].status == "reject", lib


@pytest.mark.parametrize(("kind", "alg", "op", "fields"), [
    ("hash", "sha256", "hash", {"msg": MSG}),
    ("mac", "hmac-sha256", "mac", {"key": bytes(32), "msg": MSG}),
    ("aead", "aes-128-gcm", "encrypt", {"key": bytes(16), "nonce": bytes(12), "aad": AAD, "msg": MSG}),
])
def test_a_library_operation_is_one_adapter_call(agents: dict[str, Path], kind: str, alg: str, op: str,
                                                 fields: dict[str, bytes]) -> None:
    counts = {lib: count_calls(agents[lib], kind, alg, op, fields) for lib in LIBRARIES}
    one = CallCounts(adapter_run=1, cipher_run=0, cipher_bytes=0, mac_run=0, mac_bytes=0, total=1)
    assert counts == {lib: one for lib in LIBRARIES}
