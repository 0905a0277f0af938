"""A fake agent for the minimum-RAM search: a handshake passes when its
capped side has at least the heap FAKE_NEED names ("client=N,server=M"),
except at the limits FAKE_CRASH names (the process dies there, as a
library dereferencing a refused allocation would). Its uncapped peaks are
the needs plus 1000 bytes; its stack at a limit is 100 + limit // 10; under a
cap its heap peaks at the need (the bound a pass proves) and a failure says
the first refused block needed 10 bytes more than the cap (a weaker bound
than the truth, so the search still bisects) when the cap is even, and that
two blocks were refused (no bound) when it is odd."""

import os
import sys
import zlib


def rec(body: str) -> str:
    return f"{body} crc={zlib.crc32(body.encode()):08x}\n"


def main() -> None:
    need = dict(kv.split("=") for kv in os.environ["FAKE_NEED"].split(","))
    crash = {int(n) for n in os.environ.get("FAKE_CRASH", "").split(",") if n}
    for line in sys.stdin:
        f = dict(p.split("=", 1) for p in line.split()[1:])
        side, limit = f["heap_limit_side"], int(f["heap_limit"])
        if limit in crash:
            sys.stdout.flush()
            os.abort()
        out = []
        if limit >= int(need[side]):
            out.append(rec("tb1 tls_endpoint client_heap_held=700 server_heap_held=900"))
            out.append(rec(f"tb1 tls_stack client_stack={100 + limit // 10} server_stack={100 + limit // 10}"))
            uncapped = limit >= 1 << 40
            peaks = {s: int(need[s]) + (1000 if uncapped or s != side else 0) for s in ("client", "server")}
            out.append(rec(f"tb1 tls_cap passed=1 refusals=0 client_heap_peak={peaks['client']} "
                           f"server_heap_peak={peaks['server']}"))
            out.append(rec("tb1 end status=ok"))
        else:
            out.append(rec(f"tb1 tls_cap passed=0 refusals={1 + limit % 2} first_need={limit + 10}"))
            out.append(rec("tb1 end status=error msg=out%20of%20memory"))
        sys.stdout.write("".join(out))
        sys.stdout.flush()


main()
