"""Study 001's page (docs/studies/001-*.md): TCP vs TLS 1.2 + RSA vs TLS 1.3 + RSA / ECDSA."""

from __future__ import annotations

from tlsbench.report.tables import RunData
from tlsbench.studies import studysources as src
from tlsbench.studies.studypage import Page, holds, libraries, link_model, median, ms, num, status_note, tls_case
from tlsbench.studies.studyruns import Want

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
