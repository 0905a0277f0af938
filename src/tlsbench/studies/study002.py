"""Study 002's page (docs/studies/002-*.md): GnuTLS vs OpenSSL on an embedded x86 (host)."""

from __future__ import annotations

from tlsbench.report.tables import RunData
from tlsbench.studies.studypage import Page, holds, libraries, median, num, status_note, tls_case
from tlsbench.studies.studyruns import Want


def page_002(page: Page, runs: dict[Want, tuple[int, RunData]], text: str) -> None:
    want, (_rid, data) = next(iter(runs.items()))
    libs = libraries(data)
    kex = {"RSA": "TLS_RSA_WITH_AES_128_CBC_SHA", "DHE-RSA": "TLS_DHE_RSA_WITH_AES_128_CBC_SHA",
           "ECDHE-RSA": "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA"}
    page.add("## Our figures", "",
             "The study prints no figures in its text (its two charts are images): only the shapes below are"
             " compared. Ours: transactions per second (a full handshake and a 64-byte request/response each),"
             " 1 and 4 concurrent clients over loopback TCP, measured on this host (wall-clock figures: noisy on"
             " a shared machine).", "")
    rates: dict[tuple[str, str, int], float | None] = {}
    rows = []
    for name, suite in kex.items():
        for n in (1, 4):
            row = [name, str(n)]
            for lib in libs:
                case = tls_case(data, lib, suite, lambda v, n=n: v.capacity == n)
                r = median(case, "transactions_per_s")
                rates[(lib, name, n)] = r
                row.append(num(r, 1) if case and case["status"] == "ok" else status_note(case))
            rows.append(row)
    page.table(["key exchange", "clients", *(f"{lib} transactions/s" for lib in libs)], rows)

    def check(lib: str) -> list[str]:
        r = {k: rates.get((lib, k, 1)) for k in kex}
        if any(v is None for v in r.values()):
            return ["not measured"] * 2
        gain = r["ECDHE-RSA"] / r["DHE-RSA"]  # type: ignore[operator]
        return [f"{holds(gain >= 1.25)} ({gain:.2f})",
                holds(r["RSA"] >= max(r["DHE-RSA"], r["ECDHE-RSA"]))]  # type: ignore[type-var]

    page.add("## The shapes the study claims, checked (1 client)", "")
    statements = ["ECDHE-RSA allows 25% more transactions than DHE-RSA (ours: the ratio)",
                  "plain RSA key exchange remains the fastest"]
    page.shapes(statements, "study", libs, [["holds (its text)"] * len(statements)] + [check(lib) for lib in libs])
    page.not_recreated(
        "- the Geode CPU, nxweb/nginx and httpress: ours is the library's own server agent on this host",
        "- the 1776-bit RSA/DH and 192-bit curve pairing: ours is RSA-2048/FFDHE-2048 against P-256, the"
        " nearest the suite catalog has",
        "- the crypto accelerator (cryptodev): the nearest is a second run with the CPU's AES instructions"
        " masked (`--env OPENSSL_ia32cap=~0x200000200000000 --env GNUTLS_CPUID_OVERRIDE=0x1`), then"
        " `tlsbench compare A B`; not made for this page")
