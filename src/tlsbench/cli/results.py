"""Stored runs read back: report, compare, history, runs, link, fits."""

from __future__ import annotations

import argparse
import json
import sys

from tlsbench import versions
from tlsbench.cli.args import comma_list, percent_arg
from tlsbench.engine import labels as run_labels
from tlsbench.engine import metrics
from tlsbench.engine.store import NOTHING_MEASURED, Store
from tlsbench.errors import PlanError
from tlsbench.families import registry
from tlsbench.outfile import emit
from tlsbench.report import compare, compare_html, compare_text, export
from tlsbench.report import html as html_report
from tlsbench.report import tables as report
from tlsbench.report import views as report_views


def _check_measured(data: report.RunData, metric: str) -> None:
    """A metric the run never measured is an error that names what it did
    measure: the per-side names first when the run has them (a TLS run)."""
    measured = sorted({m for c in data.cases for m in c["results"]})
    if metric in measured:
        return
    sided = [m for m in measured if m.endswith(f"_{metric}") and any(f"{s}_" in m for s in metrics.SIDES)]
    hint = f"per side: {', '.join(sided)}; " if sided else ""
    raise PlanError(f"run {data.run.id} did not measure {metric}; {hint}"
                    f"it measured: {', '.join(measured) or 'nothing'}")


def cmd_report(a: argparse.Namespace) -> int:
    if a.metric is not None:
        metrics.get(a.metric)  # an unknown name: the nearest known ones
    data = report.load_stored(a.db, a.run)
    if a.metric is not None:
        _check_measured(data, a.metric)
    if a.format in export.FORMATS:
        for path in export.export(data, a.format, a.output):
            print(path)
        return 0
    text = html_report.render(data) if a.format == "html" else report.render(data, a.format, a.metric, a.view)
    emit(text, a.output)
    return 0


# --fail-on-regression: 0 no regression, 1 a regression, 2 an error, 3 a case
# that could hide a regression but the samples cannot tell (inconclusive).
EXIT_INCONCLUSIVE = 3


def _version_pair(text: str | None) -> tuple[str, str] | None:
    """--versions A,B: two versions of one library (bare name = its default)."""
    if text is None:
        return None
    names = comma_list(text)
    if len(names) != 2:
        raise PlanError(f"--versions {text}: give two versions of one library, e.g. openssl@3.0,openssl@3.5")
    # a configuration alias ("mbedtls@a2") is the runs' own name, known from their records
    first, second = (n if versions.alias_syntax(n) else versions.canonical(n) for n in names)
    pair = (first, second)
    if versions.base(pair[0]) != versions.base(pair[1]):
        raise PlanError(f"--versions {text}: {pair[0]} and {pair[1]} are not versions of one library")
    return pair


def cmd_compare(a: argparse.Namespace) -> int:
    store = Store(a.db, read_only=True)
    try:
        result = compare.compare(store, a.run_a, a.run_b, metric=a.metric, alpha=a.alpha,
                                 min_effect=a.min_effect / 100, versions=_version_pair(a.versions))
    finally:
        store.close()
    if a.export == "ci-json":
        text = json.dumps(compare_text.ci_json(result), indent=1) + "\n"
    elif a.export == "bmf":
        text = json.dumps(compare_text.bmf_json(result), indent=1) + "\n"
    elif a.format == "html":
        text = compare_html.render(result, only_changes=a.changes)
    else:
        text = compare_text.render(result, a.format, only_changes=a.changes)
    emit(text, a.output, note="")
    if result.context_differences:
        print("note: the runs were made differently (see above); differences may not be the libraries'",
              file=sys.stderr)
    if a.fail_on_regression is not None:
        worse = compare.regressions(result, a.fail_on_regression)
        for r in worse:
            print(f"regression: {r.name} {r.metric}: B/A {r.ratio:.3f} ({r.verdict}, more than"
                  f" {a.fail_on_regression:g}%)", file=sys.stderr)
        if worse:
            return 1
        unknown = compare.undecided(result, a.fail_on_regression)
        for r in unknown:
            print(f"inconclusive: {r.name} {r.metric}: {r.note}", file=sys.stderr)
        if unknown:
            return EXIT_INCONCLUSIVE
    return 0


def cmd_history(a: argparse.Namespace) -> int:
    from tlsbench.report import history, history_html

    store = Store(a.db, read_only=True)
    try:
        h = history.read(store, a.cases, since=a.since, labels=a.label, metric=a.metric, alpha=a.alpha,
                         min_effect=a.min_effect / 100)
    finally:
        store.close()
    text = history_html.render(h) if a.format == "html" else history.render_text(h)
    emit(text, a.output)
    return 0


def cmd_runs(a: argparse.Namespace) -> int:
    import time as _t

    wanted = run_labels.parse(a.label, recorded_ok=True)
    store = Store(a.db, read_only=True)
    try:
        rows = [r for r in store.list_runs() if run_labels.matches(r["labels"], wanted)]
    finally:
        store.close()
    if not rows:
        print(f"no runs in {store.path}" + (" with " + ", ".join(a.label) if wanted else ""))
        return 0
    header = ["run", "created", "status", "target", "board", "plan", "cases", "ok", "tlsbench", "labels"]
    body = []
    for r in rows:
        created = _t.strftime("%Y-%m-%d %H:%M:%S", _t.localtime(r["created"]))
        status = r["status"] if r["status"] in ("complete", NOTHING_MEASURED) else "incomplete"
        # the user's labels (the recorded ones are in the columns or `--label` filters)
        own = ",".join(f"{k}={v}" for k, v in r["labels"].items() if not k.startswith(run_labels.RECORDED_PREFIXES))
        # a model run's board is its profile's (the emulated machine is in the target column)
        board = f"{r['board_profile']} (model)" if r["board_profile"] else r["board"] or "-"
        body.append([str(r["id"]), created, status, r["target"], board, r["plan_name"],
                     str(r["cases"]), str(r["ok"]), r["tlsbench_version"], own or "-"])
    # columns as wide as their longest value: a long plan name shifts, never breaks, the table
    widths = [max(len(row[i]) for row in [header, *body]) for i in range(len(header))]
    right = {0, 6, 7}
    for row in [header, *body]:
        cells = (v.rjust(w) if i in right else v.ljust(w) for i, (v, w) in enumerate(zip(row, widths, strict=True)))
        print("  ".join(cells).rstrip())
    return 0


def cmd_link(a: argparse.Namespace) -> int:
    from tlsbench.links import profiles as link_profiles
    from tlsbench.links import view as link_view

    profile = link_profiles.get_profile(a.link)
    data = report.load_stored(a.db, a.run)
    board = link_view.board_for(data, a.board)
    sys.stdout.write(link_view.render(data, profile, board, False if a.no_tcp_handshake else None, a.format,
                                      server_host=a.server == "host"))
    return 0


def cmd_fits(a: argparse.Namespace) -> int:
    data = report.load_stored(a.db, a.run)
    if not report.has_fits(data):
        raise PlanError(f"run {data.run.id} has no min-ram cases (tlsbench run --preset min-ram makes them)")
    md = a.format == "markdown"
    boards = None
    if a.board:  # the boards asked for (shipped names or the user's files) instead of every shipped one
        from tlsbench.targets import boardprofiles

        boards = [boardprofiles.resolve(ref) for ref in a.board]
    fits_view = registry.fits_view()  # the family's that searched the least RAM
    view = fits_view.fits(data.cases, data.code_sizes, boards)
    sys.stdout.write(fits_view.render(view, report.markdown if md else report.aligned, md))
    return 0


def add_parsers(sub: argparse._SubParsersAction, db: argparse.ArgumentParser) -> None:
    rep = sub.add_parser("report", parents=[db], help="show a stored run")
    rep.add_argument("run", nargs="?", type=int, help="run id (default: the latest)")
    rep.add_argument("--format", choices=(*report.FORMATS, "html", *export.FORMATS), default="table",
                     help="table, markdown, csv, json; html (one self-contained page: context, charts, every"
                          " table); svg, png (the charts, as files into the -o folder); md (Markdown tables with"
                          " the charts as SVG files, into the -o folder)")
    rep.add_argument("-o", "--output", help="write to this file (svg, png, md: this folder)")
    rep.add_argument("--view", choices=report_views.names(), default=report_views.CASES,
                     help="cases (default: a row per case, a column per library), tls (a row per TLS case, a column"
                          " per metric and side) or interop (TLS over TCP: client library x server)")
    rep.add_argument("--metric", help="show this metric instead of the headline one (default: time/throughput on the"
                     " host, instructions on firmware), e.g. heap_peak_bytes, stack_bytes, allocations, cpu_ns, tsc;"
                     " TLS metrics are per side, e.g. client_heap_peak_bytes (tlsbench list metrics)")
    rep.set_defaults(func=cmd_report)

    cmp = sub.add_parser("compare", parents=[db], help="compare two stored runs case by case")
    cmp.add_argument("run_a", type=int)
    cmp.add_argument("run_b", type=int)
    cmp.add_argument("--metric", help="compare on this metric only (default: each case's headline metrics both runs"
                     " measured, per side for TLS: " + ", ".join(metrics.HEADLINE) + "; every metric: tlsbench"
                     " list metrics)")
    cmp.add_argument("--format", choices=(*compare_text.FORMATS, "html"), default="table",
                     help="table, markdown, json, html (one self-contained page)")
    cmp.add_argument("-o", "--output", help="write to this file")
    cmp.add_argument("--export", choices=["ci-json", "bmf"],
                     help="ci-json: run B's medians as a list of {name, unit, value, range, extra}"
                          " (github-action-benchmark's customSmallerIsBetter); bmf: run B's medians as"
                          " {case: {metric: {value}}} (Bencher Metric Format); instead of --format")
    cmp.add_argument("--fail-on-regression", dest="fail_on_regression", type=percent_arg, metavar="PCT",
                     help="exit with code 1 when a case is significantly slower (a count: larger) by more than PCT%%,"
                          " 3 when no case is but one is inconclusive and could be (too few samples, too wide an"
                          " interval); 0 otherwise (default: no gate)")
    cmp.add_argument("--changes", action="store_true", help="show only the cases that changed")
    cmp.add_argument("--versions", metavar="A,B",
                     help="two versions of one library, e.g. openssl@3.0,openssl@3.5: run A's cases of the first"
                          " against run B's of the second, case by case (A and B may be the same run)")
    cmp.add_argument("--alpha", type=float, default=compare.ALPHA, help="significance level (default 0.01)")
    cmp.add_argument("--min-effect", dest="min_effect", type=float, default=100 * compare.MIN_EFFECT,
                     help="smallest change in percent that counts (default 5; raise it on a noisy machine)")
    cmp.set_defaults(func=cmd_compare)
    hi = sub.add_parser("history", parents=[db], help="cases over many runs: a trend per case, changes marked by"
                        " compare's test (table, or one HTML page)")
    hi.add_argument("cases", nargs="+", metavar="CASE", help="case names (tlsbench report RUN), or shell patterns"
                    " such as 'openssl/hash/*/hash/1024'")
    hi.add_argument("--since", help="only runs made since this UTC date (YYYY-MM-DD or YYYY-MM-DDTHH:MM)")
    hi.add_argument("--label", action="append", metavar="KEY=VALUE",
                    help="only runs with this label (repeatable), e.g. machine=lab-2, git.dirty=false")
    hi.add_argument("--metric", help="draw this metric (default: each case's first headline metric; tlsbench list"
                    " metrics)")
    hi.add_argument("--format", choices=("table", "html"), default="table", help="table (default) or html")
    hi.add_argument("-o", "--output", help="write to this file")
    hi.add_argument("--alpha", type=float, default=compare.ALPHA, help="significance level (default 0.01)")
    hi.add_argument("--min-effect", dest="min_effect", type=float, default=100 * compare.MIN_EFFECT,
                    help="smallest change in percent that counts (default 5)")
    hi.set_defaults(func=cmd_history)

    rn = sub.add_parser("runs", parents=[db], help="list stored runs")
    rn.add_argument("--label", action="append", metavar="KEY=VALUE",
                    help="only runs with this label (repeatable: all must match), e.g. board=lab-2,"
                         " git.commit=abc123def456, lib.openssl=3.0.15")
    rn.set_defaults(func=cmd_runs)
    lk = sub.add_parser("link", parents=[db], help="model: a stored run's TLS handshakes over a link (time to"
                        " the first application byte, energy)")
    lk.add_argument("run", nargs="?", type=int, help="run id (default: the latest)")
    lk.add_argument("--link", required=True, help="a link profile (tlsbench list links) or a .toml file")
    lk.add_argument("--board", help="a board profile of the cycle model (energy per cycle, clock), shipped or"
                    " your own .toml file; default: the run's own")
    lk.add_argument("--no-tcp-handshake", action="store_true", help="leave out the TCP handshake's round trip")
    lk.add_argument("--server", choices=("same", "host"), default="same",
                    help="host: the server runs on a host elsewhere (a device client against a cloud server):"
                    " only the client's compute is charged; same (default): both sides' compute as stored")
    lk.add_argument("--format", choices=("table", "markdown"), default="table",
                    help="table (default) or markdown")
    lk.set_defaults(func=cmd_link)
    ft = sub.add_parser("fits", parents=[db], help="which RAM sizes and boards a min-ram run's handshakes fit"
                        " (heap + stack + static RAM)")
    ft.add_argument("run", nargs="?", type=int, help="run id (default: the latest)")
    ft.add_argument("--format", choices=("table", "markdown"), default="table",
                    help="aligned text (default) or Markdown tables")
    ft.add_argument("--board", action="append", metavar="NAME|FILE",
                    help="a board column: a shipped board profile or your own .toml file (repeatable;"
                         " default: every shipped profile)")
    ft.set_defaults(func=cmd_fits)
