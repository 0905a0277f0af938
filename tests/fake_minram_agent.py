"""A fake agent for the minimum-RAM search: a handshake passes when its
capped side has at least the heap FAKE_NEED names ("client=N,server=M"),
except at the limits FAKE_CRASH names (the process dies there, as a
library dereferencing a refused allocation would). Its uncapped peaks are
the needs plus 1000 bytes; its stack at a limit is 100 + limit // 10."""

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
            out.append(rec(f"tb1 tls_cap client_heap_peak={int(need['client']) + 1000} "
                           f"server_heap_peak={int(need['server']) + 1000} refusals=0"))
            out.append(rec("tb1 end status=ok"))
        else:
            out.append(rec("tb1 end status=error msg=out%20of%20memory"))
        sys.stdout.write("".join(out))
        sys.stdout.flush()


main()
