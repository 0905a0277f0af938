"""A misbehaving agent for testing the runner: it speaks the protocol
correctly for checks, but its bench requests fail in chosen ways:

  sha256  -> valid samples          sha1   -> crashes (SIGSEGV)
  sha224  -> hangs                   md5    -> a corrupted line (bad crc)
  sha384  -> a truncated last line   sha512 -> "end status=error"
  others  -> valid samples
Its FAKE_MODE env var can make "hello" fail too (FAKE_MODE=hello-fails).
"reference" answers the real workload's result; its time is the first line
taken from the file FAKE_REFERENCE_NS names (one line per call), else 20 ms.
A valid bench's samples are base + i ns: base the first line taken from the
file FAKE_BENCH_NS names (one line per call), else 1000. FAKE_AFFINITY_LOG:
a file each agent appends the CPUs it may run on to.
"""

import hashlib
import os
import signal
import sys
import time
import zlib

ALGS = {"md5": "md5", "sha1": "sha1", "sha224": "sha224", "sha256": "sha256", "sha384": "sha384",
        "sha512": "sha512"}


def rec(body: str) -> str:
    return f"{body} crc={zlib.crc32(body.encode()):08x}\n"


def out(s: str) -> None:
    sys.stdout.write(s)
    sys.stdout.flush()


def fields(parts: list[str]) -> dict[str, str]:
    return dict(p.split("=", 1) for p in parts)


def taken(variable: str, default: int) -> int:
    """The first line of the file the variable names, removed from it; the default when there is none."""
    path = os.environ.get(variable)
    if not path or not os.path.exists(path):
        return default
    with open(path) as fh:
        lines = fh.read().split()
    if not lines:
        return default
    with open(path, "w") as fh:
        fh.write("\n".join(lines[1:]))
    return int(lines[0])


def main() -> None:
    log = os.environ.get("FAKE_AFFINITY_LOG")
    if log:  # the CPUs this agent may run on, one line per agent started
        with open(log, "a") as fh:
            fh.write(" ".join(map(str, sorted(os.sched_getaffinity(0)))) + "\n")
    for line in sys.stdin:
        parts = line.split()
        verb, f = parts[0], fields(parts[1:])
        if verb == "hello" and os.environ.get("FAKE_MODE") == "hello-fails":
            out(rec("tb1 end status=error msg=hello%20refused%20by%20FAKE_MODE"))
        elif verb == "hello":
            out(rec("tb1 hello proto=2 library=openssl version=fake%201.0 config=fake platform=host "
                    "counters=wall_ns,cpu_ns"))
            out(rec("tb1 end status=ok"))
        elif verb == "reference":
            ns = taken("FAKE_REFERENCE_NS", 20_000_000)
            out(rec(f"tb1 reference steps={f.get('steps', '1000000')} lanes={f.get('lanes', '1')}"
                    f" result=13736588419170277519 wall_ns={ns}"))
            out(rec("tb1 end status=ok"))
        elif verb == "list":
            for alg in ALGS:
                out(rec(f"tb1 alg kind=hash alg={alg} op=hash supported=1"))
            out(rec("tb1 end status=ok"))
        elif verb == "compute":
            digest = hashlib.new(ALGS[f["alg"]], bytes.fromhex(f.get("msg", ""))).hexdigest()
            out(rec(f"tb1 out data={digest}"))
            out(rec("tb1 end status=ok"))
        elif verb == "bench":
            alg = f["alg"]
            if alg == "sha1":
                os.kill(os.getpid(), signal.SIGSEGV)
            if alg == "sha224":
                time.sleep(3600)
            if alg == "md5":
                out("tb1 calib iters=10 crc=00000000\n")
                continue
            if alg == "sha512":
                out(rec("tb1 end status=error msg=library%20said%20no"))
                continue
            out(rec("tb1 calib iters=10"))
            base = taken("FAKE_BENCH_NS", 1000)
            for i in range(int(f.get("repeats", "10"))):
                out(rec(f"tb1 sample i={i} iters=10 wall_ns={base + i} cpu_ns={base - 10 + i}"))
            if alg == "sha384":
                out("tb1 end status=o")
                sys.exit(0)
            out(rec("tb1 end status=ok"))


main()
