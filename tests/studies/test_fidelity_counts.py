"""The callgrind evidence of the fidelity tables: callgrind_annotate's caller
tree is read exactly (captured text from a run of the openssl agent), and
the script refuses an unknown pair with one line naming the known ones."""

from __future__ import annotations

import pytest

from tlsbench import cli
from tlsbench.studies import fidelity_counts as fc

TREE = """--------------------------------------------------------------------------------
Ir                   file:function
--------------------------------------------------------------------------------
 8,258,428 (38.79%)  < ???:tb_bench (211x) [/work/build/host/tlsbench-agent-openssl]
 8,258,428 (38.79%)  *  ???:adapter_run [/work/build/host/tlsbench-agent-openssl]

 8,256,951 (38.78%)  < ???:adapter_run (211x) [/work/build/host/tlsbench-agent-openssl]
 8,256,951 (38.78%)  *  ???:tb_openssl_sym_run [/work/build/host/tlsbench-agent-openssl]

 7,880,850 (37.02%)  < ???:tb_openssl_sym_run (422x) [/work/build/host/tlsbench-agent-openssl]
    12,605 ( 0.06%)  < ???:EVP_CipherUpdate (50x) [/usr/lib/x86_64-linux-gnu/libcrypto.so.3]
 7,893,455 (37.07%)  *  ???:EVP_EncryptUpdate [/usr/lib/x86_64-linux-gnu/libcrypto.so.3]

"""


def test_the_caller_tree_is_read_exactly() -> None:
    prof = fc.parse_tree(TREE)
    assert set(prof) == {"adapter_run", "tb_openssl_sym_run", "EVP_EncryptUpdate"}
    run = prof["tb_openssl_sym_run"]
    assert (run.ir, run.calls) == (8_256_951, {"/work/build/host/tlsbench-agent-openssl": 211})
    upd = prof["EVP_EncryptUpdate"]
    assert upd.ir == 7_893_455
    assert upd.from_object("tlsbench-agent-openssl") == (7_880_850, 422)
    assert upd.from_object("libcrypto.so.3") == (12_605, 50)
    assert fc._per_call(prof, "tb_openssl_sym_run") == 8_256_951 / 211


def test_one_operation_is_the_difference_of_two_runs() -> None:
    # 1,000 of set-up in both runs, 300 per operation
    assert fc._steady((1_000 + 300 * 40, 40), (1_000 + 300 * 10, 10)) == 300
    with pytest.raises(fc.SetupError, match="same number of operations"):
        fc._steady((5, 3), (7, 3))


def test_an_unknown_pair_is_one_clear_error(capsys) -> None:
    with pytest.raises(SystemExit):
        cli.main(["study", "fidelity-counts", "aes"])
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert "unknown pair 'aes'; known: aead, ecdsa-verify, rsa-verify, openssl-handshake, wolfssl-handshake" in err
