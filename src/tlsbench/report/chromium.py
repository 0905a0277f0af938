"""Headless Chromium, for PNG charts and for checking the HTML report as a
browser shows it. Every call uses a fresh profile folder and no network
services of the browser (no sync, updates, QUIC or background requests)."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from tlsbench.errors import TlsbenchError

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
INSTALL = "apt-get install --no-install-recommends chromium (scripts/setup installs it)"


class BrowserError(TlsbenchError):
    pass


def find() -> str | None:
    """The browser: $TLSBENCH_CHROMIUM, or the first of CANDIDATES on PATH."""
    given = os.environ.get("TLSBENCH_CHROMIUM")
    if given:
        return given if Path(given).exists() or shutil.which(given) else None
    for name in CANDIDATES:
        path = shutil.which(name)
        if path:
            return path
    return None


def _run(extra: list[str], target: Path, timeout: float) -> subprocess.CompletedProcess:
    browser = find()
    if browser is None:
        raise BrowserError(f"no Chromium found (looked for {', '.join(CANDIDATES)}, $TLSBENCH_CHROMIUM); {INSTALL}")
    with tempfile.TemporaryDirectory(prefix="tlsbench-chromium-") as profile:
        args = [browser, "--headless", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-extensions", "--hide-scrollbars", f"--user-data-dir={profile}", *extra,
                target.resolve().as_uri()]
        if os.geteuid() == 0:  # Chromium refuses to run its sandbox as root
            args.insert(2, "--no-sandbox")
        try:
            proc = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired as e:
            raise BrowserError(f"{browser} did not finish within {timeout:g} s on {target}") from e
    if proc.returncode != 0:
        tail = (proc.stderr.strip().splitlines() or [""])[-1]
        raise BrowserError(f"{browser} failed on {target} (exit code {proc.returncode}): {tail[:200]}")
    return proc


def screenshot(page: Path, png: Path, width: int, height: int, timeout: float = 60) -> Path:
    """A PNG of the page at this window size."""
    _run([f"--screenshot={png.resolve()}", f"--window-size={width},{height}"], page, timeout)
    if not png.exists() or png.stat().st_size == 0:
        raise BrowserError(f"the browser wrote no screenshot of {page}")
    return png


def dump_dom(page: Path, timeout: float = 60) -> str:
    """The page's DOM after its scripts ran."""
    return _run(["--dump-dom", "--virtual-time-budget=2000"], page, timeout).stdout
