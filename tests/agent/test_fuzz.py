"""The agent core under libFuzzer (agent/fuzz): request lines from the
fuzzer, served with the selftest double, under AddressSanitizer and
UndefinedBehaviorSanitizer; every record is checked (format, CRC, exactly
one "end" per request). A second target feeds TLS request fields straight
into tb_tls_request_parse and checks what it accepts. The test builds the
fuzzers itself (seconds) and runs them on a fixed, seeded number of inputs: any crash, leak,
timeout or broken record fails it, with the input libFuzzer saved."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from agent_builds import build_agent_tree
from conftest import builds_in_set_up, needs_tools

from tlsbench import paths

pytestmark = [needs_tools("clang-14", "cmake", "ninja"), builds_in_set_up]

FUZZ_DIR = paths.root() / "agent" / "fuzz"
SEEDS = FUZZ_DIR / "corpus"
TLS_SEEDS = FUZZ_DIR / "corpus-tls"
# a seeded run of a fixed number of inputs: the same inputs on every machine and under any load
# (seconds of CPU); scripts/fuzz-agent is the long run, by time and unseeded
FUZZ_RUNS = 30_000  # request lines; the TLS fields target gets a third of it
FUZZ_SEED = 1
FUZZ_TIMEOUT_S = 600
TARGETS = ("tlsbench-fuzz-request", "tlsbench-fuzz-tls-request")


def build_fuzzers() -> Path:
    return build_agent_tree(paths.root() / "build" / "fuzz",
                            ["-DCMAKE_C_COMPILER=clang-14", "-DTB_FUZZ=ON", "-DTB_LIBRARIES=", "-DTB_SELFTEST=OFF"],
                            TARGETS)


@pytest.fixture(scope="module")
def fuzz_build() -> Path:
    return build_fuzzers()


@pytest.fixture(scope="module")
def fuzzer(fuzz_build: Path) -> Path:
    return fuzz_build / "tlsbench-fuzz-request"


def run_fuzzer(fuzzer: Path, work: Path, *args: str,
               inputs: list[Path]) -> tuple[subprocess.CompletedProcess[str], list[Path]]:
    """Runs the fuzzer in work/; returns its result and the inputs it saved
    as findings (crash-, leak-, timeout-, oom-, slow-unit-)."""
    artifacts = work / "artifacts"
    artifacts.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1:abort_on_error=0",
               UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1")
    cmd = [str(fuzzer), "-timeout=5", "-rss_limit_mb=1024", "-print_final_stats=1",
           f"-artifact_prefix={artifacts}/", *args, *map(str, inputs)]
    proc = subprocess.run(cmd, capture_output=True, text=True, errors="replace", cwd=work, env=env,
                          timeout=FUZZ_TIMEOUT_S)
    return proc, sorted(artifacts.iterdir())


def executions(output: str) -> int:
    m = re.search(r"^stat::number_of_executed_units:\s*(\d+)", output, re.M)
    assert m is not None, output[-2000:]
    return int(m.group(1))


def test_seed_corpus_has_every_request_kind() -> None:
    verbs = {p.read_text().split(" ", 1)[0].strip() for p in SEEDS.iterdir()}
    assert {"hello", "list", "compute", "bench", "handshake", "tls-server", "tls-client"} <= verbs


def test_every_seed_runs_clean(fuzzer: Path, tmp_path: Path) -> None:
    """Each seed once (no mutation): the checks themselves pass on valid
    requests, and the run is exactly the seeds."""
    seeds = sorted(SEEDS.iterdir())
    proc, found = run_fuzzer(fuzzer, tmp_path, inputs=seeds)
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert found == []
    assert proc.stderr.count("Running: ") == len(seeds)


def test_an_over_long_line_is_answered_once(fuzzer: Path, tmp_path: Path) -> None:
    """A request line longer than the agent's buffer (70000 bytes) gets one
    "end" record, and the next line is served as usual."""
    long_line = tmp_path / "long"
    long_line.write_bytes(b"compute msg=" + b"00" * 35000 + b"\nhello\n")
    proc, found = run_fuzzer(fuzzer, tmp_path, inputs=[long_line])
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert found == []


def fuzz(fuzzer: Path, seeds: Path, work: Path, runs: int) -> None:
    corpus = work / "corpus"
    shutil.copytree(seeds, corpus)  # libFuzzer adds its new inputs here, never to the seeds
    proc, found = run_fuzzer(fuzzer, work, f"-runs={runs}", f"-seed={FUZZ_SEED}", inputs=[corpus])
    n = executions(proc.stderr)
    print(f"\n{fuzzer.name}: {n} executions, corpus {len(list(corpus.iterdir()))} inputs")
    assert found == [], [(p.name, p.read_bytes()[:200]) for p in found]
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "ERROR: AddressSanitizer" not in proc.stderr and "runtime error:" not in proc.stderr
    assert n == runs  # every input ran


def test_fuzzing_the_request_handling_finds_nothing(fuzzer: Path, tmp_path: Path) -> None:
    fuzz(fuzzer, SEEDS, tmp_path, FUZZ_RUNS)


def test_fuzzing_the_tls_request_fields_finds_nothing(fuzz_build: Path, tmp_path: Path) -> None:
    """Fields straight into tb_tls_request_parse (spaces, empty keys): a
    refused request ends once, an accepted one holds only values the
    drivers accept (port, workers, wait_ms, version, warmup + repeats...)."""
    fuzz(fuzz_build / "tlsbench-fuzz-tls-request", TLS_SEEDS, tmp_path, FUZZ_RUNS // 3)


def test_the_tls_fields_target_refuses_what_the_parser_must(fuzz_build: Path, tmp_path: Path) -> None:
    """Its seeds once each, and a request the parser refuses (an early-data
    request without resumption), both clean."""
    refused = tmp_path / "refused"
    refused.write_text("version=13\nsuite=TLS_AES_128_GCM_SHA256\nname=a\npsk=00\npsk_identity=i\nearly=1\n")
    inputs = [*sorted(TLS_SEEDS.iterdir()), refused]
    proc, found = run_fuzzer(fuzz_build / "tlsbench-fuzz-tls-request", tmp_path, inputs=inputs)
    assert proc.returncode == 0 and found == [], proc.stderr[-4000:]
    assert proc.stderr.count("Running: ") == len(inputs)
