"""Study 003's page (docs/studies/003-*.md): the IoT paper on an STM32F217."""

from __future__ import annotations

from tlsbench.families.tls.names import TlsVariant
from tlsbench.report.tables import RunData
from tlsbench.studies import handshake_encryption as he
from tlsbench.studies import studysources as src
from tlsbench.studies.study003_ciphers import AEAD_RUNS, page_ciphers
from tlsbench.studies.studypage import Page, holds, libraries, median, num, primitive_case, ratio, status_note, tls_case
from tlsbench.studies.studyruns import Want

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


STUDY_003 = Want("tls12-suites-cost", "qemu:mps2-an385", "stm32f217", ("--profile", "wolfssl=small-stack"))
# the paper's Table 2: the same preset as built and with the board profile's modelled CRYP, on the paper's
# F217 (a CRYP without GCM) and on the F439 (the same family's CRYP with GCM)
_HW = ("--profile", "wolfssl=hw,mbedtls=hw")
HANDSHAKE_RUNS = ((Want("handshake-encryption", "qemu:mps2-an385", "stm32f217"),
                   Want("handshake-encryption", "qemu:mps2-an385", "stm32f217", _HW)),
                  (Want("handshake-encryption", "qemu:mps2-an386", "stm32f439zi"),
                   Want("handshake-encryption", "qemu:mps2-an386", "stm32f439zi", _HW)))
# the page's runs, in its order
RUNS = (STUDY_003, *(w for pairs in (AEAD_RUNS, HANDSHAKE_RUNS) for pair in pairs for w in pair))


def page_003(page: Page, runs: dict[Want, tuple[int, RunData]], text: str) -> None:
    if STUDY_003 in runs:
        _page_003_suites(page, runs[STUDY_003][1], text)
    else:
        page.add(f"The tables of run `{STUDY_003.command()}` (Tables 4 and 6, the paper's shapes) are not on"
                 " this page: no complete run of it is stored.", "")
    page_ciphers(page, runs, text)
    _page_003_handshake_encryption(page, runs, text)
    page.not_recreated(
        "- static DH_RSA and ECDH_RSA: not in the suite catalog (no current library here offers them)",
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

    page.add("## Elliptic curves: stack and heap (the paper's Table 4)", "")
    curve_cases = {"NIST P-256 Key exchange": ("p256", "exchange"),
                   "NIST P-256 Signature": ("ecdsa-p256-sha256", "sign"),
                   "Curve25519": ("x25519", "exchange"), "Ed25519": ("ed25519", "sign")}
    rows = []
    pub4 = {f.key: f.value for f in src.curve_ram(text)}
    for name, (alg, op) in curve_cases.items():
        row = [name, f"{pub4[(name, 'stack')]:,.0f} / {pub4[(name, 'heap')]:,.0f}"]
        for lib in libs:
            case = primitive_case(data, lib, alg, op)
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
        return median(primitive_case(data, lib, alg, op), "model_time_ns")

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
        gcm, cbc, chacha = (median(primitive_case(data, lib, alg, "encrypt", 16384), "model_time_ns")
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
