"""The HTML report: self-contained, its figures are the stored ones, a value
not measured is shown as such; rendered in headless Chromium (screenshots
kept under the test's tmp folder) with its script run without error. Also
the svg, png and md exports."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest
from conftest import env_without_agent_dir, tlsbench_cmd
from stored_tls_run import make_tls_run, result_of

from tlsbench.engine.store import Store
from tlsbench.report import chromium, export, figures
from tlsbench.report import html as html_report
from tlsbench.report import tables as report


@pytest.fixture
def tls_run(db_path: Path) -> tuple[Store, int]:
    store = Store(db_path)
    return store, make_tls_run(store)


def test_page_is_self_contained_and_shows_only_stored_figures(tls_run: tuple[Store, int]) -> None:
    store, run = tls_run
    data = report.load(store, run)
    page = html_report.render(data)
    # nothing to fetch: no external script, style, font or image; the only URL is the SVG namespace
    assert not re.search(r"<link|<img|src=|@import|url\(|@font-face", page)
    assert set(re.findall(r"https?://[^\s\"'<>]+", page)) == {"http://www.w3.org/2000/svg"}
    assert page.count("<svg") == len(figures.figures(data)) >= 4
    assert page.count('<table class="sortable"') == 4  # libraries, tls, interop, failed cases
    # the context: machine, target, library versions and configs, plan, environment, dates
    for text in ("Test CPU", "host", "openssl 1.0", "wolfssl config", "# made by the test",
                 "OPENSSL_ia32cap=~0x2", "UTC"):
        assert text in page, text
    # known figures, as stored: 1.5 ms client + 2.5 ms server CPU; the mean 4.1 ms, not the median 4 ms, in bars
    assert "client CPU: 1.5 ms" in page and "server CPU: 2.5 ms" in page
    assert "openssl: 4 ms" in page and "openssl: 4.1 ms" not in page
    # not measured is said, never drawn as 0: the failed case, the foreign client's side
    assert "wolfssl: failed" in page
    assert "client CPU n/m (foreign)" in page
    assert "FAILS: no shared group" in page
    assert 'data-state="ok"' in page and 'data-state="fails"' in page


def test_sized_lines_and_not_measured_sizes() -> None:
    chart = figures.charts.lines("x", "t", "c", [16, 64, 256], {"a": [figures.Point(10.0), figures.Point(None),
                                                                       figures.Point(1000.0)]},
                                 "size", figures.fmt_bytes, figures.fmt_time)
    # the unmeasured middle point breaks the line: two single points, no path through a made-up value
    assert chart.svg.count("<circle") == 2 and "<path d=\"M" not in chart.svg.split("</text>")[-1]


def _browser() -> str | None:
    found = chromium.find()
    if found is None and os.environ.get("CI"):
        pytest.fail(f"CI is set and no Chromium is installed: {chromium.INSTALL}")
    if found is None:
        pytest.skip(f"no Chromium on this machine ({chromium.INSTALL}); CI runs this test")
    return found


def _real_run(db: Path) -> int:
    p = subprocess.run([*tlsbench_cmd(), "--db", str(db), "run", "--libraries", "openssl,mbedtls", "--algorithms",
                        "sha256,ed25519", "--sizes", "64,1024", "--repeats", "3", "--warmup", "0",
                        "--min-sample-ms", "1", "--quiet"], capture_output=True, text=True, timeout=300,
                       env=env_without_agent_dir())
    assert p.returncode == 0 and p.stdout == "", p.stderr
    return Store(db).latest_run_id()


def test_real_run_in_chromium(agents, db_path: Path, tmp_path: Path) -> None:
    _browser()
    run = _real_run(db_path)
    store = Store(db_path)
    make_tls_run(store)  # a second run, so the real one is not just "the latest"
    out = tmp_path / "report.html"
    p = subprocess.run([*tlsbench_cmd(), "--db", str(db_path), "report", str(run), "--format", "html", "-o",
                        str(out)], capture_output=True, text=True, timeout=120, env=env_without_agent_dir())
    assert p.returncode == 0, p.stderr
    page = out.read_text()
    assert "mbedtls: unsupported" in page  # Mbed TLS has no Ed25519: said, not drawn
    dom = chromium.dump_dom(out)
    root = re.search(r"<html[^>]*>", dom).group(0)
    assert 'data-report="ready"' in root, root
    charts = len(figures.figures(report.load(store, run)))
    assert f'data-charts="{charts}"' in root and charts >= 3  # hash bars, sha256 by size, signature bars
    assert 'data-tables="' in root and int(re.search(r'data-tables="(\d+)"', root).group(1)) >= 2
    assert dom.count("<svg") == charts and "<table" in dom
    assert re.search(r'<pre id="script-errors"[^>]*></pre>', dom), "a script error was recorded"
    for name, width in (("desktop", 1280), ("phone", 390)):
        shot = chromium.screenshot(out, tmp_path / f"report-{name}.png", width, 2400)
        assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000
        print(f"screenshot ({name}): {shot}")
    print(f"report: {out} ({out.stat().st_size:,} bytes)")


def test_a_script_error_is_caught_and_shown(tls_run: tuple[Store, int], tmp_path: Path) -> None:
    _browser()
    store, run = tls_run
    page = html_report.render(report.load(store, run))
    broken = tmp_path / "broken.html"
    broken.write_text(page.replace("</body>", "<script>notAFunction();</script></body>"))
    dom = chromium.dump_dom(broken)
    assert 'data-report="error"' in re.search(r"<html[^>]*>", dom).group(0)
    assert "notAFunction" in re.search(r'<pre id="script-errors"[^>]*>(.*?)</pre>', dom, re.S).group(1)


def test_exports(tls_run: tuple[Store, int], tmp_path: Path) -> None:
    store, run = tls_run
    data = report.load(store, run)
    names = {f"{c.slug}.svg" for c in figures.figures(data)}
    svgs = export.export(data, "svg", str(tmp_path / "svg"))
    assert {p.name for p in svgs} == names
    assert all(p.read_text().startswith("<?xml") and "<svg" in p.read_text() for p in svgs)
    md = export.export(data, "md", str(tmp_path / "md"))
    text = md[0].read_text()
    for name in names:
        assert f"]({name})" in text and (tmp_path / "md" / name).exists()
    assert "| suite | variant | library |" in text and "| suite | variant | client \\ server |" in text
    p = subprocess.run([*tlsbench_cmd(), "--db", str(store.path), "report", str(run), "--format", "png"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and "give a folder with -o FOLDER" in p.stderr


def test_png_export(tls_run: tuple[Store, int], tmp_path: Path) -> None:
    _browser()
    store, run = tls_run
    pngs = export.export(report.load(store, run), "png", str(tmp_path / "png"))
    assert pngs and all(p.read_bytes()[:4] == b"\x89PNG" for p in pngs)


# ---- every report chooses its charts and labels from what the run's target measured ----

def make_firmware_run(store: Store, tls: bool) -> int:
    """A stored qemu:mps2-an386 run: primitives (instructions per operation) or
    TLS (instructions per side), with the code size of each image."""
    run = store.create_run(target="qemu:mps2-an386", plan_name="cortex-m", plan_source="# made by the test",
                           plan={"method": {"repeats": 3, "warmup": 0, "outliers": "none", "min_sample_ms": 0,
                                            "timeout_s": 9, "rounds": 1, "env": {}}},
                           machine={"board": "mps2-an386", "board_cpu": "cortex-m4", "profiles": {"mbedtls": "small"},
                                    "cpu_model": "QEMU", "cores": 1},
                           version="test", keys={})
    for lib in ("mbedtls", "wolfssl"):
        store.put_library(run, lib, f"{lib} 1.0", f"{lib} config", "test", "0" * 64, "instructions", {})
        store.put_code_sizes(run, lib, [("library", 50_000 + len(lib), 1_000)])
    suite = "TLS_AES_128_GCM_SHA256"
    for i, lib in enumerate(("mbedtls", "wolfssl")):
        if tls:
            store.put_case(run, name=f"{lib}/tls/{suite}/x25519/ecdsa-p256-full", library=lib, kind="tls", alg=suite,
                           op="x25519/ecdsa-p256-full", size=None, params={}, status="ok", reason="", iters=1,
                           started=0, transcript="", results=[
                               result_of("client_instructions", "instructions", 30_000_000 + i),
                               result_of("server_instructions", "instructions", 20_000_000 + i),
                               result_of("c2s_bytes", "bytes", 500), result_of("s2c_bytes", "bytes", 1200),
                               result_of("client_heap_peak_bytes", "bytes", 20_000),
                               result_of("server_heap_peak_bytes", "bytes", 25_000)])
        else:
            for size in (64, 1024):
                store.put_case(run, name=f"{lib}/hash/sha256/hash/{size}", library=lib, kind="hash", alg="sha256",
                               op="hash", size=size, params={}, status="ok", reason="", iters=1, started=0,
                               transcript="", results=[result_of("instructions", "instructions/op", 3_000 * size + i)])
    store.put_case(run, name="wolfssl/tls/x/unsupported", library="wolfssl", kind="tls", alg=suite,
                   op="x448/rsa2048-full", size=None, params={}, status="unsupported",
                   reason="wolfSSL firmware profile has no X448 in this build " * 3, iters=0, started=0,
                   transcript="", results=[]) if tls else None
    store.finish_run(run)
    return run


def test_firmware_reports_chart_instructions_and_never_a_time(db_path: Path, tmp_path: Path) -> None:
    store = Store(db_path)
    host, prim, tls = make_tls_run(store), make_firmware_run(store, False), make_firmware_run(store, True)
    slugs = {run: [c.slug for c in figures.figures(report.load(store, run))] for run in (host, prim, tls)}
    assert "tls-handshake-wall" in slugs[host] and "tls-cpu-per-side" in slugs[host]
    assert slugs[tls] == ["tls-instructions-per-side", "tls-heap-per-side"]
    assert slugs[prim] == ["hash-instructions", "hash-sha256-by-size"]
    for run in (prim, tls):
        data = report.load(store, run)
        for chart in figures.figures(data):  # every chart carries data: no "not measured" axis
            assert "not measured" not in chart.svg and "n/m" not in chart.svg, chart.slug
        text = report.render(data, "table")
        assert "wall time" not in text and "CPU time" not in text and "not cycles and not time" in text
        page = html_report.render(data)
        assert "not cycles and not time" in page and "Code size of each firmware image" in page
        assert "the harness&#x27;s painted stacks; not the heap" in page  # static RAM: what it holds
        assert "<td>small</td>" in page  # a library's flash says which build profile it is
        md = report.render(data, "markdown")
        assert "| mbedtls | small |" in md
    tls_text = report.render(report.load(store, tls), "table", view="tls")
    line = next(x for x in tls_text.splitlines() if "x448/rsa2048-full" in x)
    assert line.split()[3] == "unsupported" and line.rstrip().endswith("no X448 in this buil")  # last: the reason
    if chromium.find() is None:
        return
    for run, name in ((host, "host-tls"), (prim, "firmware-primitives"), (tls, "firmware-tls")):
        out = tmp_path / f"{name}.html"
        out.write_text(html_report.render(report.load(store, run)))
        dom = chromium.dump_dom(out)
        assert 'data-report="ready"' in re.search(r"<html[^>]*>", dom).group(0)
        shot = chromium.screenshot(out, tmp_path / f"{name}.png", 1280, 2400)
        print(f"screenshot ({name}): {shot}")
