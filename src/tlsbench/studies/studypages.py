"""docs/studies/NNN-*.md: one page per published study, made from stored
runs and the study's own text, never from typed-in figures.

Each page names the study and its device, the target and board profile
tlsbench ran it on (the profile as the run stored it), the command, the run
and the library versions; then the study's figures beside ours with their
ratio, each shape the study claims as a statement checked on both, and what
cannot be re-created, with the reason. A figure from a board profile's
cycle model is labelled a model; a case that did not run says why.

    tlsbench study pages --db DB [--studies DIR] [--out docs/studies]
(scripts/study-pages runs what is missing first.)
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from tlsbench.engine import steadiness
from tlsbench.engine.store import Store
from tlsbench.families.tls import plan as tls_plan
from tlsbench.families.tls.names import BASELINE, TlsVariant
from tlsbench.links import profiles as link_profiles
from tlsbench.links import view as link_view
from tlsbench.links.model import Breakdown as model_breakdown
from tlsbench.report import tables
from tlsbench.report.tables import RunData
from tlsbench.studies import handshake_encryption as he
from tlsbench.studies import studysources as src
from tlsbench.targets import target as targets


@dataclass(frozen=True)
class Want:
    """A stored run a page needs: a preset on a target, under a board profile (None: none)."""
    preset: str
    target: str
    board: str | None
    extra: tuple[str, ...] = ()  # further run flags (a library profile)

    def command(self) -> str:
        board = f" --board {self.board}" if self.board else ""
        where = "" if targets.is_host(self.target) else f" --target {self.target}"
        return f"tlsbench run --preset {self.preset}{where}{board}{''.join(' ' + a for a in self.extra)}"


@dataclass
class Page:
    lines: list[str] = field(default_factory=list)

    def add(self, *lines: str) -> None:
        self.lines.extend(lines)

    def table(self, header: list[str], rows: Iterable[list[str]]) -> None:
        self.lines.append(tables.markdown(header, list(rows)).rstrip("\n"))
        self.lines.append("")

    def shapes(self, statements: list[str], source: str, libs: list[str], cols: list[list[str]]) -> None:
        """The study's claims, one row each: the study's own verdict (``cols[0]``)
        and each library's, checked on our figures."""
        self.table(["statement", f"in the {source}", *libs],
                   [[s, *(c[i] for c in cols)] for i, s in enumerate(statements)])

    def not_recreated(self, *items: str) -> None:
        """The page's last section: what of the study it does not re-create, and why (one "- " item each)."""
        self.add("## What is not re-created here", "", *items, "")


def _library_profiles(want: Want) -> dict[str, str]:
    flags = list(want.extra)
    given = flags[flags.index("--profile") + 1] if "--profile" in flags else ""
    return dict(p.split("=", 1) for p in given.split(",") if "=" in p)


OVERRIDDEN = "# overridden on the command line: "  # what cli.py appends to a narrowed plan's source


def overrides(source: str) -> str:
    """The run flags that narrowed or changed the preset ("" for the preset as shipped)."""
    return next((line[len(OVERRIDDEN):].strip() for line in source.splitlines() if line.startswith(OVERRIDDEN)), "")


def find_runs(store: Store, want: Want) -> list[int]:
    """The complete runs of this preset on this target, board profile and library profiles, oldest first."""
    runs = [r["id"] for r in store.list_runs() if r["plan_name"] == want.preset and r["target"] == want.target
            and r["board_profile"] == want.board and r["status"] == "complete"]
    return [r for r in runs if (store.get_run(r).machine.get("profiles") or {}) == _library_profiles(want)]


def find_run(store: Store, want: Want) -> int | None:
    """The newest complete run of the preset as shipped (no flag narrowed it)."""
    full = [r for r in find_runs(store, want) if not overrides(store.get_run(r).plan_source)]
    return full[-1] if full else None


@dataclass(frozen=True)
class Used:
    run_id: int
    flags: str  # the flags that narrowed it ("" for the preset as shipped)
    counts: str
    taken: int  # cases the page takes from it


def merged(store: Store, want: Want) -> tuple[int, RunData, list[Used]] | None:
    """The newest run of the preset as shipped, its cases that did not run ok replaced by those of later
    narrowed runs of the same preset, target and profiles that did (a re-run of what failed, e.g. with a
    longer --timeout-s); every run used is named on the page."""
    base = find_run(store, want)
    if base is None:
        return None
    data = tables.load(store, base)
    cases = {c["name"]: (base, c) for c in data.cases}
    later = [r for r in find_runs(store, want) if r > base and overrides(store.get_run(r).plan_source)]
    loaded = {r: tables.load(store, r) for r in later}
    for r in later:
        for c in loaded[r].cases:
            if c["name"] in cases and cases[c["name"]][1]["status"] != "ok" and c["status"] == "ok":
                cases[c["name"]] = (r, c)
    data.cases = [c for _r, c in cases.values()]
    used = [Used(r, overrides((loaded[r] if r in loaded else data).run.plan_source),
                 _counts(loaded[r] if r in loaded else tables.load(store, r)),
                 sum(1 for src_run, _c in cases.values() if src_run == r)) for r in [base, *later]]
    return base, data, used


# ---- figures of a run ----

def _ok(data: RunData) -> list[dict]:
    return [c for c in data.cases if c["status"] == "ok"]


def median(case: dict | None, metric: str) -> float | None:
    if case is None or metric not in case["results"]:
        return None
    return float(case["results"][metric]["median"])


def ms(ns: float | None) -> str:
    return "n/m" if ns is None else f"{ns / 1e6:,.2f}"


def num(v: float | None, digits: int = 0) -> str:
    return "n/m" if v is None else f"{v:,.{digits}f}"


def ratio(a: float | None, b: float | None) -> str:
    return "-" if a is None or b is None or b == 0 else f"{a / b:.2f}"


def holds(flag: bool | None) -> str:
    return "not measured" if flag is None else "holds" if flag else "does not hold"


def libraries(data: RunData) -> list[str]:
    return sorted({c["library"] for c in data.cases})


def tls_case(data: RunData, library: str, suite: str, pick: Callable[[TlsVariant], bool]) -> dict | None:
    """A TLS case of the run by library, suite and variant (any status)."""
    for c in data.cases:
        if c["kind"] == tls_plan.KIND and c["library"] == library and c["alg"] == suite and c["alg"] != BASELINE:
            if pick(TlsVariant.parse(c["op"])):
                return c
    return None


def status_note(case: dict | None) -> str:
    if case is None:
        return "not in the run"
    if case["status"] == "ok":
        return ""
    return f"{tables.STATUS_TEXT.get(case['status'], case['status'])}: {(case['reason'] or '')[:120]}"


def link_model(data: RunData, link: str) -> dict[str, model_breakdown]:
    """Each TLS case's time to the first application byte over a link profile (links/: a model), the
    server on a host elsewhere (its compute not charged): case name -> breakdown."""
    profile = link_profiles.get_profile(link)
    board = link_view.board_for(data, None)
    return {r.case: r.breakdown for r in link_view.rows(data, profile, board, None, server_host=True)
            if r.breakdown is not None}


# ---- the page's head ----

def _counts(data: RunData) -> str:
    by: dict[str, int] = {}
    for c in data.cases:
        by[c["status"]] = by.get(c["status"], 0) + 1
    return ", ".join(f"{n} {s}" for s, n in sorted(by.items()))


def reused_from(store: Store, data: RunData) -> tuple[int, list[int]]:
    """How many of the page's cases the result cache copied from an earlier measurement, and the runs
    that measured them."""
    ids = [c["reused_from"] for c in data.cases if c.get("reused_from") is not None]
    runs = {found[0] for i in ids if (found := store.case_run_and_name(i)) is not None}
    return len(ids), sorted(runs)


def run_section(page: Page, want: Want, data: RunData, used: list[Used], db: str,
                reused: tuple[int, list[int]] = (0, [])) -> None:
    profile = tables.board_profile_line(data)
    versions = ", ".join(f"{lib['library']} {lib['version']}" for lib in data.libraries)
    page.add(f"- **{want.target}**{' under board profile ' + profile if profile else ''}",
             f"  - command: `{want.command()}`",
             f"  - run {used[0].run_id} of `{db}` (not committed; tlsbench {data.run.tlsbench_version}); cases:"
             f" {used[0].counts}")
    for u in used[1:]:
        page.add(f"  - then run {u.run_id}, the same with `{u.flags}` ({u.counts}): {u.taken} case(s) that did not"
                 " run ok in the first taken from it")
    page.add(f"  - cases on this page: {_counts(data)}", f"  - libraries: {versions}")
    if reused[0]:  # exact counts: the same image, emulator, plugin, profile and requests give the same figures
        page.add(f"  - reused: {reused[0]} of {len(data.cases)} cases' exact counts copied by the result cache from"
                 f" run {', '.join(map(str, reused[1]))} of the same database (the same image, emulator, cycle-model"
                 " plugin, board profile, requests and protocol; `tlsbench run --no-cache` measures them again)")
    if "board" not in data.run.machine:  # host times: how steady the machine was while they were measured
        page.add(f"  - {steadiness.run_line(data.rounds)}")
    if profile:
        page.add("  - model figures (model cycles, model time) are the board profile's cycle model applied to the"
                 " firmware's exact instructions (docs/cycle-model.md): a model, not a measurement on the board")
        page.add(f"  - model error: {tables.model_error_line(data)}")  # so no model time reads as a measurement
    page.add(*(f"  - {line}" for line in tables.noise_lines(data)))  # noisy, varying or drifting figures


# ---- 000: handshake time per TLS 1.2 suite, Mbed TLS on an STM32F746 ----

def page_000(page: Page, runs: dict[Want, tuple[int, RunData]], text: str) -> None:
    want, (_rid, data) = next(iter(runs.items()))
    published = src.handshake_by_suite(text)
    libs = libraries(data)
    page.add("## The study's figures beside ours", "",
             "Published: the client's handshake time on the STM32F746 at 216 MHz, Ethernet to a cloud server,"
             " debug build (network and server included). Ours: the device client's model time (its compute"
             " only, the server on the host), per library. Ratio: published / ours; it is not a model error:"
             " the study's time holds what ours leaves out (the network's round trips, the cloud server's"
             " compute, a debug build), so only the shapes below compare like with like.", "")
    link = "ethernet-100m"
    over = link_model(data, link)
    header = ["suite", "published (ms)"]
    for lib in libs:
        header += [f"{lib} model time (ms)", f"{lib} instructions", "ratio", f"{lib} over {link} (ms, model)"]
    rows = []
    mine: dict[str, dict[str, float | None]] = {lib: {} for lib in libs}
    for f in published:
        row = [f"`{f.key[0]}`", num(f.value)]
        for lib in libs:
            case = tls_case(data, lib, f.key[0], lambda v: v.device == "client")
            t = median(case, "client_model_time_ns")
            mine[lib][f.key[0]] = t
            b = over.get(case["name"]) if case else None
            row += [ms(t) if case and case["status"] == "ok" else status_note(case),
                    num(median(case, "client_instructions")), ratio(f.value * 1e6, t),
                    "-" if b is None else ms(float(b.total_ns))]
        rows.append(row)
    page.table(header, rows)
    page.add(f"Over {link}: `tlsbench link RUN --link {link} --server host`, the link model's time to the first"
             " application byte (the device client's model time, the link's latency, serialisation and TCP"
             " handshake; the server's compute on its host not charged, the device's TCP stack not modelled):"
             " a model, not a measurement.", "")
    pub = {f.key[0]: f.value for f in published}

    def groups(values: dict[str, float | None]) -> tuple[list[float], list[float]] | None:
        if any(v is None for v in values.values()):
            return None
        rsa = [v for s, v in values.items() if s.startswith("TLS_RSA_") and v is not None]
        ecdhe = [v for s, v in values.items() if s.startswith("TLS_ECDHE_RSA_") and v is not None]
        return rsa, ecdhe

    def checks(values: dict[str, float | None]) -> list[str]:
        g = groups(values)
        if g is None:
            return ["not measured"] * 3
        rsa, ecdhe = g
        return [holds(min(ecdhe) > max(rsa)),
                f"{holds(statistics.mean(ecdhe) / statistics.mean(rsa) >= 2)}"
                f" ({statistics.mean(ecdhe) / statistics.mean(rsa):.2f})",
                f"{holds(max(rsa) / min(rsa) <= 1.10 and max(ecdhe) / min(ecdhe) <= 1.10)}"
                f" (RSA {max(rsa) / min(rsa):.2f}, ECDHE_RSA {max(ecdhe) / min(ecdhe):.2f})"]

    page.add("## The shapes the study shows, checked", "")
    statements = ["every ECDHE_RSA suite takes longer than every RSA suite",
                  "ECDHE_RSA takes at least twice as long as RSA key transport (mean over the suites; the ratio)",
                  "within each key exchange the cipher and MAC change the time by at most 10% (slowest / fastest)"]
    page.shapes(statements, "study", libs, [checks(pub)] + [checks(mine[lib]) for lib in libs])
    page.not_recreated(
        "- the Ethernet link and the cloud server's time: ours is the device client's compute only (the"
        " server is the host agent of the same library); `tlsbench link RUN --link NAME` models a link",
        "- the study's debug build (its author notes the figures are not optimal times) and Stratify OS",
        "- the ECDHE group the cloud server chose: ours uses P-256")


# ---- 001: TCP vs TLS 1.2 + RSA vs TLS 1.3 + RSA / ECDSA ----

_CONNECTIONS = (  # the study's connection type -> (suite, certificate) of ours
    ("TLS 1.2 + RSA", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "rsa2048"),
    ("TLS 1.2 + RSA", "TLS_RSA_WITH_AES_128_GCM_SHA256", "rsa2048"),
    ("TLS 1.3 + RSA", "TLS_AES_128_GCM_SHA256", "rsa2048"),
    ("TLS 1.3 + ECDSA", "TLS_AES_128_GCM_SHA256", "ecdsa-p256"),
)


def _printed(figures: list[src.Figure | None]) -> str:
    """time / bytes / memory as the study prints them."""
    return " / ".join(f"{f.value:g}" if f else "-" for f in figures)


def page_001(page: Page, runs: dict[Want, tuple[int, RunData]], text: str) -> None:
    want, (_rid, data) = next(iter(runs.items()))
    published = {f.key: f for f in src.connection_types(text)}
    platform = "nrf7002"
    libs = libraries(data)
    page.add("## The study's figures beside ours", "",
             f"Published: the study's `{platform}` rows (an nRF5340 with the nRF7002 Wi-Fi companion, NCS 2.7),"
             " as printed. Ours: the device client's model time, the bytes of the handshake and the 64-byte"
             " request and response both ways, and the client's peak heap, per library.", "")
    link = "wifi-802.11n"
    over = link_model(data, link)
    header = ["connection", "published (ms / B / MB)", "our suite", "certificate"]
    for lib in libs:
        header += [f"{lib} model time (ms)", f"{lib} bytes", f"{lib} heap peak (B)", f"{lib} over {link} (ms, model)"]
    rows = []
    mine: dict[str, dict[str, float | None]] = {lib: {} for lib in libs}
    tcp = [published.get((platform, "TCP", w)) for w in ("time", "bytes", "memory")]
    tcp_ns = {float(b.tcp_handshake_ns) for b in over.values()}
    tcp_cell = (f"TCP handshake {ms(tcp_ns.pop())} ms (link model; the device's TCP stack not modelled)"
                if len(tcp_ns) == 1 else "-")
    rows.append(["TCP", _printed(tcp), "no TLS", "-",
                 *(["not on the device (no TCP stack in the firmware)", "", "", tcp_cell] * len(libs))])
    for conn, suite, cert in _CONNECTIONS:
        pub = [published.get((platform, conn, w)) for w in ("time", "bytes", "memory")]
        row = [conn, _printed(pub), f"`{suite}`", cert]
        for lib in libs:
            case = tls_case(data, lib, suite, lambda v, cert=cert: v.cred == cert and v.device == "client")
            t = median(case, "client_model_time_ns")
            if conn not in mine[lib] or suite.startswith("TLS_ECDHE"):
                mine[lib][conn] = t
            total = (None if median(case, "total_c2s_bytes") is None else
                     (median(case, "total_c2s_bytes") or 0) + (median(case, "total_s2c_bytes") or 0))
            b = over.get(case["name"]) if case else None
            row += [ms(t) if case and case["status"] == "ok" else status_note(case), num(total),
                    num(median(case, "client_heap_peak_bytes")), "-" if b is None else ms(float(b.total_ns))]
        rows.append(row)
    page.table(header, rows)
    page.add(f"Over {link}: `tlsbench link RUN --link {link} --server host`, the link model's time to the first"
             " application byte (the device client's model time, the link's latency, serialisation and TCP"
             " handshake; the server's compute on its host not charged): a model, not a measurement.", "")
    pub_t = {conn: published[(platform, conn, "time")].value for conn in ("TLS 1.2 + RSA", "TLS 1.3 + RSA",
                                                                           "TLS 1.3 + ECDSA")}

    def checks(t: dict[str, float | None]) -> list[str]:
        if any(t.get(k) is None for k in pub_t):
            return ["not measured"] * 2
        return [holds(t["TLS 1.2 + RSA"] < t["TLS 1.3 + RSA"]),  # type: ignore[operator]
                holds(t["TLS 1.3 + RSA"] < t["TLS 1.3 + ECDSA"])]  # type: ignore[operator]

    page.add("## The shapes the study shows, checked", "",
             "TLS 1.2 + RSA is ECDHE_RSA here (the study does not say which key exchange).", "")
    statements = ["TLS 1.2 + RSA completes faster than TLS 1.3 + RSA",
                  "TLS 1.3 + RSA completes faster than TLS 1.3 + ECDSA"]
    page.shapes(statements, "study", libs, [checks(pub_t)] + [checks(mine[lib]) for lib in libs])
    page.not_recreated(
        "- the TCP row: the firmware has no TCP stack; the link's round trip stands for it in"
        " `tlsbench link RUN --link NAME`",
        "- the ESP32 rows (ESP-IDF and Zephyr): an Xtensa core, which no target here emulates",
        "- the Wi-Fi link and the local server's time: ours is the device client's compute only",
        "- peak memory as the study prints it (1.2-1.5 MB, the same on Linux and the MCUs): ours is the TLS"
        " client's own heap peak, a different quantity")


# ---- 002: GnuTLS vs OpenSSL on an embedded x86 (host) ----

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


# ---- 003: the IoT paper on an STM32F217 ----

_PAPER_SUITES = {  # the paper's Table 6 names -> our suite and certificate (None: not in the catalog)
    "DH ANON": ("TLS_DH_anon_WITH_AES_128_CBC_SHA", "anon"),
    "DH RSA": None,
    "DHE RSA": ("TLS_DHE_RSA_WITH_AES_128_CBC_SHA", "rsa2048"),
    "RSA RSA": ("TLS_RSA_WITH_AES_128_CBC_SHA", "rsa2048"),
    "ECDH ANON": ("TLS_ECDH_anon_WITH_AES_128_CBC_SHA", "anon"),
    "ECDH ECDSA": ("TLS_ECDH_ECDSA_WITH_AES_128_CBC_SHA", "ecdsa-p256"),
    "ECDH RSA": None,
    "ECDHE ECDSA": ("TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA", "ecdsa-p256"),
    "ECDHE RSA": ("TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA", "rsa2048"),
}
_AEADS = {"AES128-CBC+HMAC": "aes-128-cbc-hmac-sha1", "AES128-GCM": "aes-128-gcm",
          "Chacha20-Poly1305": "chacha20-poly1305"}


def _suite_case(data: RunData, lib: str, paper: str, auth: str) -> dict | None:
    mapped = _PAPER_SUITES.get(paper)
    if mapped is None:
        return None
    suite, cert = mapped
    mutual = auth == "Mutual"

    def pick(v: TlsVariant) -> bool:
        group_ok = v.group != "x25519"  # the paper's ECC is NIST P-256
        return group_ok and (v.cred == cert or cert == "anon") and (v.auth == "mutual") == mutual

    return tls_case(data, lib, suite, pick)


def _prim(data: RunData, lib: str, alg: str, op: str | None = None, size: int | None = None) -> dict | None:
    for c in data.cases:
        if c["library"] == lib and c["alg"] == alg and (op is None or c["op"] == op) and \
                (size is None or c["size"] == size):
            return c
    return None


STUDY_003 = Want("tls12-suites-cost", "qemu:mps2-an385", "stm32f217", ("--profile", "wolfssl=small-stack"))
# the paper's Table 2: the same preset as built and with the board profile's modelled CRYP, on the paper's
# F217 (a CRYP without GCM) and on the F439 (the same family's CRYP with GCM)
_HW = ("--profile", "wolfssl=hw,mbedtls=hw")
HANDSHAKE_RUNS = ((Want("handshake-encryption", "qemu:mps2-an385", "stm32f217"),
                   Want("handshake-encryption", "qemu:mps2-an385", "stm32f217", _HW)),
                  (Want("handshake-encryption", "qemu:mps2-an386", "stm32f439zi"),
                   Want("handshake-encryption", "qemu:mps2-an386", "stm32f439zi", _HW)))


def page_003(page: Page, runs: dict[Want, tuple[int, RunData]], text: str) -> None:
    if STUDY_003 in runs:
        _page_003_suites(page, runs[STUDY_003][1], text)
    else:
        page.add(f"The tables of run `{STUDY_003.command()}` (Tables 3, 4 and 6, the paper's shapes) are not on"
                 " this page: no complete run of it is stored.", "")
    _page_003_handshake_encryption(page, runs, text)
    page.not_recreated(
        "- static DH_RSA and ECDH_RSA: not in the suite catalog (no current library here offers them)",
        "- the hardware throughput of Table 3 on this page: the accelerator model's software-against-hardware"
        " rows per board are in docs/results-hwcrypto.md (`--profile wolfssl=hw,mbedtls=hw`)",
        "- flash and code size per primitive: `tlsbench sizes --target qemu:mps2-an385` measures it, and"
        " docs/results-hwcrypto.md the software and hw builds' crypto code side by side; not made for this page",
        "- the paper's 2015 wolfSSL build; ours uses the pinned releases with the profile the run names")


def _page_003_handshake_encryption(page: Page, runs: dict[Want, tuple[int, RunData]], text: str) -> None:
    page.add("## Encrypting a TLS 1.2 handshake's messages with AES-128-GCM (the paper's Table 2)", "")
    pairs = [(sw, hw) for sw, hw in HANDSHAKE_RUNS if sw in runs and hw in runs]
    missing = [w.command() for pair in HANDSHAKE_RUNS for w in pair if w not in runs]
    if missing:
        page.add(f"Not on this page: no complete run of `{'`, `'.join(missing)}` is stored.", "")
    if not pairs:
        return
    page.add("Published: clock cycles as printed (the paper's STM32F217 at 120 MHz, its wolfSSL build with its own"
             " accelerator library). Ours, per board profile and library: a TLS 1.2 full handshake with that"
             " certificate (ECDHE_ECDSA with an ECDSA P-256 chain, ECDHE_RSA with an RSA-2048 chain, server"
             " authentication) measured in the same run gives the handshake's record payloads (bytes on the wire"
             " both ways less a 5-byte header per record); the cycles are AES-128-GCM encrypting that many bytes as"
             " one message, linear between the run's two measured sizes around it (every 128 bytes). **Cycles are"
             " a model**: the board profile's cycle model; `hw` adds its modelled CRYP. The stm32f217 profile declares"
             " no GCM mode for its CRYP (ECB, CBC and CTR): wolfSSL hands GCM's counter blocks to its ECB, Mbed TLS"
             " its block cipher, and GHASH stays software on both; the stm32f439zi's declares one (RM0090), which"
             " both drivers use. The"
             " handshake bytes are exact.", "")
    published = {f.key: f.value for f in src.encryption_overhead(text)}
    libs = sorted({lib for sw, _hw in pairs for lib in libraries(runs[sw][1])})
    rows = []
    for sw_want, hw_want in pairs:
        sw, hw = runs[sw_want][1], runs[hw_want][1]
        for cert in he.CERTIFICATES:
            row = [sw_want.board or "", cert, num(published.get((cert, "SW"))), num(published.get((cert, "HW")))]
            for lib in libs:
                a, b = he.cost(sw.cases, lib, cert), he.cost(hw.cases, lib, cert)
                row += [num(a.payload_bytes), num(a.cycles) if a.cycles is not None else a.note,
                        num(b.cycles) if b.cycles is not None else b.note, ratio(a.cycles, b.cycles)]
            rows.append(row)
    header = ["board profile", "certificate", "published SW cycles", "published HW cycles"]
    for lib in libs:
        header += [f"{lib} handshake payload (B)", f"{lib} SW model cycles", f"{lib} hw model cycles",
                   f"{lib} SW / hw"]
    page.table(header, rows)


def _page_003_suites(page: Page, data: RunData, text: str) -> None:
    libs = libraries(data)
    ram = src.handshake_ram(text)
    page.add("## TLS 1.2 full handshake: each side's stack and heap (the paper's Table 6)", "",
             "Published: KB as printed (the paper's wolfSSL build, 2015). Ours: KiB, each side's peak stack and"
             " peak heap in memory (both sides in one image), exact on the firmware; the model cycles per side"
             " (the paper's Figures 2 and 3, charts whose values its text does not print) beside them.", "")
    pub: dict[tuple[str, str, str, str], float] = {f.key: f.value for f in ram}  # type: ignore[misc]
    rows = []
    for paper, auth in dict.fromkeys((k[0], k[1]) for k in pub):
        for side in ("client", "server"):
            row = [paper, auth, side, f"{pub[(paper, auth, side, 'stack')]:g} / {pub[(paper, auth, side, 'heap')]:g}"]
            for lib in libs:
                case = _suite_case(data, lib, paper, auth)
                if case is None or case["status"] != "ok":
                    row += ["not in the suite catalog" if _PAPER_SUITES.get(paper) is None else status_note(case),
                            ""]
                    continue
                st, hp = median(case, f"{side}_stack_bytes"), median(case, f"{side}_heap_peak_bytes")
                row += [f"{num(None if st is None else st / 1024, 2)} / {num(None if hp is None else hp / 1024, 2)}",
                        num(median(case, f"{side}_model_cycles"))]
            rows.append(row)
    header = ["suite", "auth", "side", "published stack / heap (KB)"]
    for lib in libs:
        header += [f"{lib} stack / heap (KiB)", f"{lib} model cycles"]
    page.table(header, rows)

    page.add("## AEAD throughput at 120 MHz (the paper's Table 3, software)", "",
             "Published: bytes/s on 15 KB packets at 120 MHz. Ours: 16,384 bytes / the model time of one"
             " encryption of 16,384 bytes (a model at the profile's 120 MHz).", "")
    rows = []
    for f in src.aead_throughput(text):
        if f.key[1] != "SW":
            continue
        row = [f.key[0], num(f.value)]
        for lib in libs:
            case = _prim(data, lib, _AEADS[f.key[0]], "encrypt", 16384)
            t = median(case, "model_time_ns")
            rate = None if t is None else 16384 / (t / 1e9)
            row += [num(rate) if case and case["status"] == "ok" else status_note(case), ratio(f.value, rate)]
        rows.append(row)
    page.table(["AEAD", "published (B/s)", *(x for lib in libs for x in (f"{lib} model (B/s)", "ratio"))], rows)

    page.add("## Elliptic curves: stack and heap (the paper's Table 4)", "")
    curve_cases = {"NIST P-256 Key exchange": ("p256", "exchange"),
                   "NIST P-256 Signature": ("ecdsa-p256-sha256", "sign"),
                   "Curve25519": ("x25519", "exchange"), "Ed25519": ("ed25519", "sign")}
    rows = []
    pub4 = {f.key: f.value for f in src.curve_ram(text)}
    for name, (alg, op) in curve_cases.items():
        row = [name, f"{pub4[(name, 'stack')]:,.0f} / {pub4[(name, 'heap')]:,.0f}"]
        for lib in libs:
            case = _prim(data, lib, alg, op)
            row.append(f"{num(median(case, 'stack_bytes'))} / {num(median(case, 'heap_peak_bytes'))} ({case['op']})"
                       if case and case["status"] == "ok" else status_note(case))
        rows.append(row)
    page.table(["operation", "published stack / heap (B)", *(f"{lib} stack / heap (B)" for lib in libs)], rows)

    page.add("## The shapes the paper claims, checked", "")

    def cycles(lib: str, paper: str, auth: str) -> float | None:
        case = _suite_case(data, lib, paper, auth)
        if case is None or case["status"] != "ok":
            return None
        c, s = median(case, "client_model_cycles"), median(case, "server_model_cycles")
        return None if c is None or s is None else c + s

    def prim_time(lib: str, alg: str, op: str) -> float | None:
        return median(_prim(data, lib, alg, op), "model_time_ns")

    def check(lib: str) -> list[str]:
        out = []
        mutual = {p: cycles(lib, p, "Mutual") for p in ("DHE RSA", "RSA RSA", "ECDHE ECDSA", "ECDHE RSA")}
        out.append("not measured" if None in mutual.values() else
                   holds(max(mutual, key=lambda k: mutual[k] or 0) == "DHE RSA"))
        out.append("not measured" if None in (mutual["ECDHE ECDSA"], mutual["RSA RSA"]) else
                   holds(mutual["ECDHE ECDSA"] < mutual["RSA RSA"]))  # type: ignore[operator]
        p256, x25519 = prim_time(lib, "p256", "exchange"), prim_time(lib, "x25519", "exchange")
        out.append("not measured" if None in (p256, x25519) else
                   f"{holds(p256 / x25519 >= 3)} ({p256 / x25519:.1f}x)")  # type: ignore[operator]
        ec, ed = prim_time(lib, "ecdsa-p256-sha256", "sign"), prim_time(lib, "ed25519", "sign")
        out.append("not measured" if None in (ec, ed) else
                   f"{holds(ec / ed >= 3)} ({ec / ed:.1f}x)")  # type: ignore[operator]
        gcm, cbc, chacha = (median(_prim(data, lib, alg, "encrypt", 16384), "model_time_ns")
                            for alg in ("aes-128-gcm", "aes-128-cbc-hmac-sha1", "chacha20-poly1305"))
        out.append("not measured" if None in (gcm, cbc, chacha) else
                   f"{holds(gcm > cbc and gcm > chacha)} (GCM / CBC+HMAC {gcm / cbc:.2f},"  # type: ignore[operator]
                   f" GCM / ChaCha20-Poly1305 {gcm / chacha:.2f})")  # type: ignore[operator]
        return out

    statements = ["with mutual authentication DHE_RSA costs the most (both sides' model cycles)",
                  "ECDHE_ECDSA costs less than RSA key transport with mutual authentication",
                  "X25519 key exchange is several times faster than P-256 (the paper: 6x; ours: the ratio)",
                  "Ed25519 signs several times faster than ECDSA P-256 (the paper: about 15x)",
                  "software AES-128-GCM is slower than AES-128-CBC + HMAC-SHA1 and ChaCha20-Poly1305"]
    page.shapes(statements, "paper", libs, [["holds (its text)"] * len(statements)] + [check(lib) for lib in libs])


# ---- 004: RIOT's hash suite on four Nucleo boards ----

def page_004(page: Page, runs: dict[Want, tuple[int, RunData]], text: str) -> None:
    published = src.hash_times(text)
    boards = list(dict.fromkeys(f.key[0] for f in published))
    by_board = {w.board: d for w, (_r, d) in runs.items()}
    page.add("## Time per hash, the study's board beside its profile's model", "",
             "Published: microseconds per hash in RIOT's own implementations. Ours: each library's model time"
             " (its exact instructions under the board profile's cycle model), microseconds; ratio: published"
             " / ours.", "")
    for board in boards:
        data = by_board.get(board)
        page.add(f"### {board}", "")
        if data is None:
            page.add("Not run for this page (no stored run under this profile).", "")
            continue
        libs = libraries(data)
        rows = []
        for f in (f for f in published if f.key[0] == board):
            alg, size = f.key[1], int(f.key[2])
            row = [alg, str(size), num(f.value, 1)]
            for lib in libs:
                case = _prim(data, lib, alg, None, size)
                t = median(case, "model_time_ns")
                row += [num(None if t is None else t / 1e3, 1) if case and case["status"] == "ok"
                        else status_note(case), ratio(f.value * 1e3, t)]
            rows.append(row)
        page.table(["algorithm", "bytes", "published (us)", *(x for lib in libs for x in (f"{lib} model (us)",
                                                                                            "ratio"))], rows)
    page.add("## The shapes the study shows, checked", "")

    def slowest_fastest(values: dict[str, float | None]) -> tuple[str, str] | None:
        if not values or any(v is None for v in values.values()):
            return None
        order = sorted(values, key=lambda k: values[k] or 0)
        return order[0], order[-1]

    rows = []
    libs = sorted({lib for d in by_board.values() for lib in libraries(d)})
    for board in boards:
        pub = {f.key[1]: f.value for f in published if f.key[0] == board and f.key[2] == "1024"}
        ends = slowest_fastest(pub)
        data = by_board.get(board)
        row = [board, f"{ends[0]} / {ends[1]}" if ends else "-"]
        for lib in libs:
            if data is None:
                row.append("not run")
                continue
            ours = {alg: median(_prim(data, lib, alg, None, 1024), "model_time_ns") for alg in pub}
            mine = slowest_fastest(ours)
            row.append("not measured" if mine is None else
                       f"{mine[0]} / {mine[1]} ({'same' if mine == ends else 'differs'})")
        rows.append(row)
    page.table(["board", "fastest / slowest at 1024 B, in the study", *(f"ours ({lib})" for lib in libs)], rows)
    page.not_recreated(
        "- RIOT's own hash implementations: ours are the libraries' (the RIOT sources are not built here)",
        "- the Thingsat board (STM32F405) is in the study's board list, not in its results table")


# ---- the pages ----

@dataclass(frozen=True)
class Study:
    number: str
    slug: str
    title: str
    device: str
    runs: tuple[Want, ...]
    render: Callable[[Page, dict[Want, tuple[int, RunData]], str], None]


STUDIES = (
    Study("000", "handshake-by-suite", "Handshake Times by Cipher using mbedTLS (Stratify OS blog, 2019-05-22)",
          "ST Nucleo-F746ZG (STM32F746, Cortex-M7 at 216 MHz), Stratify OS, Ethernet to a cloud server",
          (Want("handshake-by-suite-device", "qemu:mps2-an500", "nucleo-f746zg"),), page_000),
    Study("001", "tls13-vs-tls12", "Measuring Embedded TLS 1.3 + ECDSA Performance in the Real World (blog article)",
          "Linux, ESP32 (ESP-IDF v5.3, Zephyr 3.7), nRF5340 + nRF7002 (NCS 2.7), local TCP server",
          (Want("tls13-vs-tls12-device", "qemu:mps2-an505", "nrf5340-app"),), page_001),
    Study("002", "kex-transactions", "TLS in embedded systems (blog post, 2012-04-01)",
          "an AMD Geode (x86) with an AES accelerator, nxweb/GnuTLS and nginx/OpenSSL", (
              Want("kex-transactions", "host", None),), page_002),
    Study("003", "tls12-suites-cost", "On TLS 1.3: Early Performance Analysis in the IoT Field (ICISSP 2016)",
          "STM32F217 (Cortex-M3 at 120 MHz), wolfSSL", (STUDY_003, *(w for pair in HANDSHAKE_RUNS for w in pair)),
          page_003),
    Study("004", "hash-by-size", "unkeyed cryptographic hash algorithms, the RIOT OS benchmark suite (draft)",
          "Nucleo-F446RE (Cortex-M4, 180 MHz), Nucleo-F103RB (Cortex-M3, 72 MHz), Nucleo-L073RZ and"
          " Nucleo-L053R8 (Cortex-M0+, 32 MHz), RIOT OS", (
              Want("hash-by-size", "qemu:mps2-an386", "nucleo-f446re"),
              Want("hash-by-size", "qemu:mps2-an385", "nucleo-f103rb"),
              Want("hash-by-size", "qemu:microbit-roomy", "nucleo-l073rz"),
              Want("hash-by-size", "qemu:microbit-roomy", "nucleo-l053r8")), page_004),
)


def render(study: Study, store: Store, db: str, studies: Path | None) -> str | None:
    """The page's Markdown, or None when no run it needs is stored."""
    found: dict[Want, tuple[int, RunData]] = {}
    runs_used: dict[Want, list[Used]] = {}
    for want in study.runs:
        got = merged(store, want)
        if got is not None:
            found[want] = got[:2]
            runs_used[want] = got[2]
    if not found:
        return None
    path, text = src.study_text(study.number, studies)
    page = Page()
    page.add(f"# Study {study.number}: {study.title}", "",
             "<!-- generated by scripts/study-pages from stored runs and the study's text; do not edit -->", "",
             f"- the study's device: {study.device}",
             f"- its text: `shared/studies/{path.name}` (the published figures below are read from it)",
             "- re-run here on:")
    for want in study.runs:
        if want in found:
            run_section(page, want, found[want][1], runs_used[want], db, reused_from(store, found[want][1]))
        else:
            page.add(f"- **{want.target}** under {want.board}: not run yet (`{want.command()}`)")
    page.add("")
    study.render(page, found, text)
    return "\n".join(page.lines).rstrip("\n") + "\n"


def add_parser(sub: argparse._SubParsersAction, db: argparse.ArgumentParser) -> None:
    ap = sub.add_parser("pages", parents=[db], help="docs/studies/NNN-*.md from stored runs and the studies' texts"
                        " (scripts/study-pages runs what is missing first)", description=__doc__.split("\n\n")[0])
    ap.add_argument("--studies", type=Path, default=None, help="the studies' texts (default: shared/studies)")
    ap.add_argument("--out", type=Path, default=Path("docs/studies"), help="the pages' folder (default docs/studies)")
    ap.add_argument("--only", default="", help="study numbers, comma-separated (default: every study)")
    ap.add_argument("--list", action="store_true", help="print each page's runs and commands, render nothing")
    ap.add_argument("--has", nargs=argparse.REMAINDER, default=None, metavar="RUN FLAGS",
                    help="exit 0 when a complete run made with these run flags is stored, 1 otherwise")
    ap.set_defaults(func=command)


def command(args: argparse.Namespace) -> int:
    only = {n.strip() for n in args.only.split(",") if n.strip()}
    if args.list:
        for study in STUDIES:
            for want in study.runs:
                print(f"{study.number} {want.command()}")
        return 0
    if args.has is not None:
        wants = [w for st in STUDIES for w in st.runs if w.command() == " ".join(["tlsbench run", *args.has])]
        if not wants or not Path(args.db).exists():
            return 1
        return 0 if find_run(Store(args.db, read_only=True), wants[0]) is not None else 1
    store = Store(args.db, read_only=True)
    args.out.mkdir(parents=True, exist_ok=True)
    for study in STUDIES:
        if only and study.number not in only:
            continue
        text = render(study, store, args.db, args.studies)
        if text is None:
            print(f"study {study.number}: no stored run (run: {study.runs[0].command()})", file=sys.stderr)
            continue
        out = args.out / f"{study.number}-{study.slug}.md"
        out.write_text(text)
        print(f"wrote {out}")
    return 0
