"""Study 000's page (docs/studies/000-*.md): handshake time per TLS 1.2 suite, Mbed TLS on an STM32F746."""

from __future__ import annotations

import statistics

from tlsbench.report.tables import RunData
from tlsbench.studies import studysources as src
from tlsbench.studies.studypage import Page, holds, libraries, link_model, median, ms, num, ratio, status_note, tls_case
from tlsbench.studies.studyruns import Want


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
