"""A throw-away PostgreSQL server for the tests: initdb in a temporary folder,
listening on 127.0.0.1 on a free port only (its unix socket in that folder),
password authentication over TCP, stopped and deleted at the end.

PostgreSQL refuses to run as root: as root, the server runs as `nobody`
(the folder is given to it), through subprocess's own user switch.
"""

from __future__ import annotations

import glob
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

SUPERUSER = "tlsbench"
PASSWORD = "test-only-password"
START_TIMEOUT_S = 60
UNPRIVILEGED = ("nobody", "nogroup")


def find_bindir() -> Path | None:
    """Debian keeps the server's programs out of PATH (scripts/setup installs `postgresql`)."""
    on_path = shutil.which("initdb")
    if on_path:
        return Path(on_path).parent
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    return Path(found[-1]).parent if found else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class PgServer:
    bindir: Path
    folder: Path
    port: int = 0
    process: subprocess.Popen | None = None

    def _as_owner(self) -> dict:
        if os.geteuid() != 0:
            return {}
        return {"user": UNPRIVILEGED[0], "group": UNPRIVILEGED[1], "extra_groups": []}

    def start(self) -> None:
        data = self.folder / "data"
        pwfile = self.folder / "pw"
        pwfile.write_text(PASSWORD + "\n")
        if os.geteuid() == 0:
            shutil.chown(self.folder, *UNPRIVILEGED)
            shutil.chown(pwfile, *UNPRIVILEGED)
        pwfile.chmod(0o600)
        subprocess.run([str(self.bindir / "initdb"), "-D", str(data), "-U", SUPERUSER, f"--pwfile={pwfile}",
                        "--auth-host=scram-sha-256", "--auth-local=trust", "-E", "UTF8", "--no-sync"],
                       check=True, capture_output=True, timeout=120, cwd=self.folder, **self._as_owner())
        self.port = _free_port()
        log = open(self.folder / "server.log", "wb")  # noqa: SIM115 (the server's, for its lifetime)
        # fsync off: a test server's data need not survive a crash of the machine
        self.process = subprocess.Popen(
            [str(self.bindir / "postgres"), "-D", str(data), "-p", str(self.port), "-c", "listen_addresses=127.0.0.1",
             "-c", f"unix_socket_directories={self.folder}", "-c", "fsync=off", "-c", "synchronous_commit=off",
             "-c", "full_page_writes=off"],
            stdout=log, stderr=subprocess.STDOUT, cwd=self.folder, **self._as_owner())
        self._wait_ready()

    def _wait_ready(self) -> None:
        import psycopg

        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            assert self.process is not None
            if self.process.poll() is not None:
                raise RuntimeError(f"PostgreSQL exited: {(self.folder / 'server.log').read_text()[-2000:]}")
            try:
                psycopg.connect(self.url("postgres"), connect_timeout=2).close()
                return
            except psycopg.OperationalError:
                if time.monotonic() > deadline:
                    raise RuntimeError("PostgreSQL did not start in time") from None
                time.sleep(0.2)

    def url(self, dbname: str, password: str = PASSWORD) -> str:
        return f"postgresql://{SUPERUSER}:{password}@127.0.0.1:{self.port}/{dbname}"

    def new_database(self, name: str) -> str:
        import psycopg

        with psycopg.connect(self.url("postgres"), autocommit=True) as db:
            db.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGQUIT)  # immediate shutdown: a throw-away server needs no checkpoint
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def start_server() -> PgServer:
    bindir = find_bindir()
    assert bindir is not None
    server = PgServer(bindir, Path(tempfile.mkdtemp(prefix="tlsbench-pg-")))
    try:
        server.start()
    except BaseException:
        server.stop()
        shutil.rmtree(server.folder, ignore_errors=True)
        raise
    return server
