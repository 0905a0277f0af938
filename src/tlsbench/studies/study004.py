"""Study 004's page (docs/studies/004-*.md): RIOT's hash suite on four Nucleo boards."""

from __future__ import annotations

from tlsbench.report.tables import RunData
from tlsbench.studies import studysources as src
from tlsbench.studies.studypage import Page, libraries, median, num, primitive_case, ratio, status_note
from tlsbench.studies.studyruns import Want


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
                case = primitive_case(data, lib, alg, None, size)
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
            ours = {alg: median(primitive_case(data, lib, alg, None, 1024), "model_time_ns") for alg in pub}
            mine = slowest_fastest(ours)
            row.append("not measured" if mine is None else
                       f"{mine[0]} / {mine[1]} ({'same' if mine == ends else 'differs'})")
        rows.append(row)
    page.table(["board", "fastest / slowest at 1024 B, in the study", *(f"ours ({lib})" for lib in libs)], rows)
    page.not_recreated(
        "- RIOT's own hash implementations: ours are the libraries' (the RIOT sources are not built here)",
        "- the Thingsat board (STM32F405) is in the study's board list, not in its results table")
