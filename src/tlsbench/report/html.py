"""A stored run as one self-contained HTML page: its context, the charts
(inline SVG) and every table, sortable by a small inline script. Nothing is
fetched to view it (no external script, style, font or image)."""

from __future__ import annotations

import html
import json
import time

from tlsbench.engine import metrics, steadiness
from tlsbench.families import registry
from tlsbench.report import figures
from tlsbench.report import tables as report
from tlsbench.report.charts import Chart
from tlsbench.report.marks import cases_heading
from tlsbench.report.rundata import timed_headline
from tlsbench.report.tables import RunData

CSS = """
:root{--fg:#1d1d1f;--muted:#666;--line:#ddd;--head:#f4f5f7;--nm:#8a8a8a}
*{box-sizing:border-box}
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;color:var(--fg);
 margin:0 auto;max-width:1200px;padding:12px 16px 40px}
h1{font-size:1.5em;margin:.4em 0}h2{font-size:1.2em;margin:1.6em 0 .5em;border-bottom:1px solid var(--line)}
h3{font-size:1.05em;margin:1.2em 0 .4em}
dl.context{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;margin:0}
dl.context dt{font-weight:600;color:var(--muted)}dl.context dd{margin:0;overflow-wrap:anywhere}
.scroll{overflow-x:auto;-webkit-overflow-scrolling:touch;margin:.4em 0 1em;border:1px solid var(--line)}
table{border-collapse:collapse;font-size:13px;width:100%}
th,td{padding:4px 8px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top;white-space:nowrap}
td.wrap{white-space:normal;min-width:22em;max-width:44em}
th{background:var(--head);position:sticky;top:0;cursor:pointer;user-select:none}
th[aria-sort=ascending]::after{content:" \\25B2";font-size:.8em}
th[aria-sort=descending]::after{content:" \\25BC";font-size:.8em}
td.nm{color:var(--nm);font-style:italic}td.fail{color:#b3261e}
figure{margin:1em 0 1.6em}figure .chart{overflow-x:auto;border:1px solid var(--line)}
figure svg{display:block;width:100%;min-width:720px;height:auto}
figcaption{color:var(--muted);font-size:13px;margin-top:.3em}
details{margin:.4em 0}summary{cursor:pointer;color:var(--muted)}
pre{background:var(--head);padding:8px;overflow-x:auto;font-size:12px;white-space:pre-wrap}
nav.toc a{margin-right:1em}
#script-errors{color:#b3261e;font-weight:600}#script-errors:empty{display:none}
@media (max-width:600px){body{font-size:14px;padding:8px}table{font-size:12px}
 dl.context{grid-template-columns:1fr}dl.context dt{margin-top:4px}figure svg{min-width:760px}}
"""

# Installed first, so an error anywhere later is shown on the page and marks it.
ERROR_TRAP = """
window.tlsbenchErrors=[];
window.onerror=function(msg,src,line,col){
 var text=String(msg)+' (line '+line+':'+col+')';window.tlsbenchErrors.push(text);
 document.documentElement.setAttribute('data-report','error');
 var box=document.getElementById('script-errors');
 if(box){box.textContent+=text+'\\n';}
 return false;};
"""

# Sortable tables: a click on a header sorts by that column (numbers by their
# value with units, text otherwise; not-measured cells last), a second click
# reverses. Then the page marks itself ready.
SCRIPT = """
(function(){
var UNITS={'ns':1,'\\u00b5s':1e3,'us':1e3,'ms':1e6,'s':1e9,'B':1,'KiB':1024,'MiB':1048576,'MB/s':1e6,
 'transactions/s':1};
function key(td){
 if(td.hasAttribute('data-v')){return parseFloat(td.getAttribute('data-v'));}
 var t=td.textContent.trim();
 var m=t.match(/^[A-Za-z]*\\s*(-?[0-9][0-9,]*\\.?[0-9]*(?:e[-+]?[0-9]+)?)\\s*([A-Za-z\\u00b5/]+)?/);
 if(!m){return null;}
 var v=parseFloat(m[1].replace(/,/g,''));if(isNaN(v)){return null;}
 return v*(m[2]&&UNITS[m[2]]?UNITS[m[2]]:1);}
function sortBy(table,col,th){
 var body=table.tBodies[0];var rows=Array.prototype.slice.call(body.rows);
 var dir=th.getAttribute('aria-sort')==='ascending'?-1:1;
 rows.sort(function(a,b){
  var ca=a.cells[col],cb=b.cells[col];if(!ca||!cb){return 0;}
  var ka=key(ca),kb=key(cb);
  if(ka!==null&&kb!==null){return (ka-kb)*dir;}
  if(ka!==null){return -1;}if(kb!==null){return 1;}
  return ca.textContent.localeCompare(cb.textContent)*dir;});
 rows.forEach(function(r){body.appendChild(r);});
 Array.prototype.forEach.call(table.tHead.rows[0].cells,function(c){c.removeAttribute('aria-sort');});
 th.setAttribute('aria-sort',dir===1?'ascending':'descending');}
var tables=document.querySelectorAll('table.sortable');
Array.prototype.forEach.call(tables,function(table){
 Array.prototype.forEach.call(table.tHead.rows[0].cells,function(th,i){
  th.setAttribute('tabindex','0');th.setAttribute('title','sort by this column');
  th.addEventListener('click',function(){sortBy(table,i,th);});
  th.addEventListener('keydown',function(e){if(e.key==='Enter'){sortBy(table,i,th);}});});});
var root=document.documentElement;
root.setAttribute('data-tables',String(tables.length));
root.setAttribute('data-charts',String(document.querySelectorAll('figure svg').length));
if(root.getAttribute('data-report')!=='error'){root.setAttribute('data-report','ready');}
})();
"""

NOT_MEASURED = ("not measured", "n/m", "unsupported", "failed", "check failed", "-")


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _cell(text: str, wrap: bool = False) -> str:
    classes = []
    low = text.lower()
    if low.startswith(NOT_MEASURED) or "not measured" in low:
        classes.append("nm")
    if low.startswith(("fails", "failed")):
        classes.append("fail")
    if wrap:
        classes.append("wrap")
    cls = f' class="{" ".join(classes)}"' if classes else ""
    return f"<td{cls}>{_e(text)}</td>"


def table(header: list[str], body: list[list[str]], caption: str = "", wrap_cols: tuple[int, ...] = ()) -> str:
    if not body:
        return f"<p class=\"nm\">{_e(caption or 'nothing to show')}: no rows in this run.</p>"
    head = "".join(f'<th scope="col">{_e(h)}</th>' for h in header)
    rows = "".join("<tr>" + "".join(_cell(v, i in wrap_cols) for i, v in enumerate(r)) + "</tr>" for r in body)
    return (f'<div class="scroll"><table class="sortable"><thead><tr>{head}</tr></thead>'
            f"<tbody>{rows}</tbody></table></div>")


def _when(ts: float | None) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(ts)) if ts else "not finished"


def context(data: RunData) -> str:
    r = data.run
    m = r.machine
    method = r.plan.get("method", {})
    firmware = "board" in m
    sampling = ("one operation per sample (exact counts)" if firmware
                else f"samples of >= {method.get('min_sample_ms')} ms")
    items = [
        ("run", f"{r.id} ({r.status})"), ("plan", r.plan_name), ("target", r.target),
        ("started", _when(r.created)), ("finished", _when(r.finished)),
        *([("board", f"{m['board']} ({m.get('board_cpu')}, {m.get('board_ram_bytes', 0) // 1024} KiB RAM),"
                     f" counter: {m.get('board_counter')}"),
           ("emulator", f"{m.get('emulator', 'none (a real board)')} {m.get('emulator_options', '')}"),
           ("cross-compiler", f"{m.get('cross_compiler')}, " + (f"picolibc {m['picolibc']}" if "picolibc" in m
                                                                else f"newlib {m.get('newlib')}"))]
          if firmware else []),
        ("host machine" if firmware else "machine", f"{m.get('cpu_model')}, {m.get('cores')} cores"),
        (report.features_label(firmware), ", ".join(m.get("cpu_flags", [])) or "none recorded"),
        ("system", f"{m.get('os')}, kernel {m.get('kernel')}"),
        ("tlsbench", r.tlsbench_version),
        ("method", f"{method.get('repeats')} repeats in {method.get('rounds', 1)} round(s), warm-up"
                   f" {method.get('warmup')} per round, outliers {method.get('outliers')}, {sampling},"
                   f" timeout {method.get('timeout_s')} s"),
        *([("board profile", board)] if (board := report.board_profile_line(data)) else []),
        *([("model error", error)] if (error := report.model_error_line(data)) else []),
        ("environment", " ".join(f"{k}={v}" for k, v in sorted(method.get("env", {}).items())) or "as inherited"),
    ]
    out = ['<dl class="context">'] + [f"<dt>{_e(k)}</dt><dd>{_e(v)}</dd>" for k, v in items] + ["</dl>"]
    libs = [[lib["library"], lib["version"], lib["source"], lib["counters"],
             ", ".join(f"{k}: {v}" for k, v in report.counters_missing(data, lib).items()) or "-"]
            for lib in data.libraries]
    out.append("<h3>Libraries</h3>")
    out.append(table(["library", "version", "source", "counters", "counters not measured"], libs,
                     "libraries", wrap_cols=(2, 4)))
    out += [f"<details><summary>{_e(lib['library'])} configuration</summary><pre>{_e(lib['config'])}</pre></details>"
            for lib in data.libraries]
    described = r.plan.get("description") or ""
    out.append(f"<details><summary>plan as given ({_e(r.plan_name)})</summary>"
               + (f"<p>{_e(described)}</p>" if described else "")
               + f"<pre>{_e(r.plan_source)}</pre></details>")
    extra = {k: v for k, v in m.items() if k not in ("cpu_model", "cores", "cpu_flags", "os", "kernel")}
    if extra:
        out.append(f"<details><summary>everything recorded about the machine</summary>"
                   f"<pre>{_e(json.dumps(extra, indent=1, default=str))}</pre></details>")
    return "\n".join(out)


def _problems(data: RunData) -> str:
    failed_checks = [[c["library"], c["kind"], c["alg"], c["detail"]] for c in data.checks if c["status"] == "fail"]
    failed = [[c["name"], c["reason"]] for c in data.cases if c["status"] == "failed"]
    out = []
    if failed_checks:
        out.append("<h3>Checks that failed (these algorithms were not timed)</h3>")
        out.append(table(["library", "kind", "algorithm", "detail"], failed_checks, wrap_cols=(3,)))
    if failed:
        out.append(f"<h3>Failed cases ({len(failed)})</h3>")
        out.append(table(["case", "reason"], failed, wrap_cols=(1,)))
    if data.rounds:  # how steady the machine was through the run (engine/steadiness.py)
        out.append(f"<p>{_e(steadiness.run_line(data.rounds))}</p>")
    slow = report.slow_rounds(data)
    if slow:  # pacing.py: still slower than the threshold after being measured again
        out.append(f"<h3>Slow phase: {sum(slow.values())} of {len(data.rounds)} rounds ran while the reference"
                   " workload was slow (after measuring again)</h3>")
        # the cases folded away: on a busy machine this is most of them, and the charts come first
        out.append(f"<details><summary>the {len(slow)} case(s), marked (slow phase) in the charts</summary>"
                   + table(["case", "slow rounds"], [[n, str(k)] for n, k in sorted(slow.items())]) + "</details>")
    return "\n".join(out)


def _figure(chart: Chart) -> str:
    return (f'<figure id="fig-{_e(chart.slug)}"><div class="chart">{chart.svg}</div>'
            f"<figcaption>{_e(chart.caption)}</figcaption></figure>")


def tables(data: RunData) -> list[tuple[str, str, str]]:
    """(anchor, title, html) for every table view that has rows in this run."""
    out = []
    primitive = [c for c in data.cases if not report.is_handshake(c)]
    if primitive:
        sub = RunData(data.run, data.libraries, data.checks, primitive)
        what = cases_heading(data)
        out.append(("cases", f"Cases: {what} per library", table(*report.pivot(sub))))
        for metric, what in (("heap_peak_bytes", "peak heap"), ("stack_bytes", "peak stack")):
            if any(metric in c["results"] for c in primitive):
                out.append((f"cases-{metric}", f"Cases: {what} per operation (bytes, median)",
                            table(*report.pivot(sub, metric))))
    for view in registry.report_views():  # the tables the families render themselves (TLS, interop)
        out += [(t.anchor, t.page_title or t.title,
                 table(t.header, t.body, wrap_cols=(len(t.header) - 1,) if t.wrap_last else ()))
                for t in view.tables(data)]
    if data.code_sizes:
        out.append(("code-size", "Code size of each firmware image (from its linker map; "
                    + report.CODE_SIZE_NOTE + ")", table(*report.code_size_table(data))))
    fits_view = registry.fits_view()  # the min-ram family's: which RAM each side needs
    view = fits_view.fits(data.cases, data.code_sizes)
    if view.rows:
        out.append(("fits", "Fits on: the RAM each side of a min-ram case needs (bytes)",
                    table(*fits_view.size_table(view)) + table(*fits_view.board_table(view))
                    + "".join(f"<p>{_e(line)}</p>" for line in fits_view.notes(view))))
    return out


def render(data: RunData) -> str:
    r = data.run
    title = f"tlsbench run {r.id}: {r.plan_name} on {r.target}"
    charts = figures.figures(data)
    views = tables(data)
    links = ([("charts", "Charts")] if charts else []) + [(a, t.split(" (")[0]) for a, t, _h in views]
    toc = " ".join(f'<a href="#{a}">{_e(t)}</a>' for a, t in links)
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en" data-report="loading">',
        "<head>",
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(title)}</title>",
        f"<style>{CSS}</style>",
        f"<script>{ERROR_TRAP}</script>",
        "</head>",
        "<body>",
        '<pre id="script-errors" role="alert"></pre>',
        f"<h1>{_e(title)}</h1>",
        f'<nav class="toc">{toc}</nav>',
        "<h2 id=\"context\">Context</h2>",
        context(data),
        _problems(data),
        "<p>Every figure comes from the stored run. A value that was not measured says so (not measured, n/m,"
        " unsupported, failed), never 0. Charts and tables show one figure, "
        + ("for a timing the fastest of all samples (the least time, the highest rate), for a count the kept"
           " samples' median" if timed_headline(data) else "the median of the kept samples")
        + "; a chart's whisker is their range (min to max), a table's ± their standard deviation over the median."
        f" {figures.RATE_NOTE}. Click a column header to sort.</p>",
        f"<p>{_e(metrics.INSTRUCTIONS_NOTE)}</p>" if report.clockless(data.cases) else "",
        *(f'<p class="noisy" role="note"><strong>{_e(line)}</strong></p>' for line in report.noise_lines(data)),
    ]
    if charts:
        parts.append('<h2 id="charts">Charts</h2>')
        parts += [_figure(c) for c in charts]
    for anchor, heading, body in views:
        parts.append(f'<h2 id="{anchor}">{_e(heading)}</h2>')
        parts.append(body)
    parts += [f"<script>{SCRIPT}</script>", "</body>", "</html>"]
    return "\n".join(p for p in parts if p) + "\n"
