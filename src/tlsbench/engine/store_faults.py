"""What goes wrong with a results database, said in one line, and the lock
that keeps two processes from measuring the same run.

SQLite's own messages ("database is locked", "file is not a database") do
not say which file or what to do; these do. The run lock is a file lock
(flock) next to the database: the kernel releases it when its process dies,
so a killed run never leaves a stale lock behind.
"""

from __future__ import annotations

import errno
import fcntl
import os
import shlex
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tlsbench import paths
from tlsbench.engine.store_backends import db_errors
from tlsbench.errors import StoreError

# SQLite message fragment -> what the user can do about it
_ADVICE = (
    ("database is locked", "another process is writing to it; wait for it to finish or use another --db"),
    ("readonly database", "the file or its folder is read-only; fix the permissions or use another --db"),
    ("disk is full", "the disk is full; free space"),
    ("disk i/o error", "the disk reported an error; check it"),
    ("not a database", "the file is not a tlsbench database (or is damaged); use another --db"),
    ("malformed", "the file is damaged; check it with `tlsbench db check`, restore a copy or use another --db"),
    ("unable to open", "it cannot be opened; check that its folder exists and is writable"),
)


def explain(e: Exception, path: Path | str, then: str = "") -> StoreError:
    """One line naming the database, what SQLite (or PostgreSQL) said and what to do."""
    said = " ".join(str(e).split()) or type(e).__name__
    advice = next((a for frag, a in _ADVICE if frag in said.lower()), "")
    return StoreError(f"results database {path}: {said}" + (f": {advice}" if advice else "") + then)


def resume_command(where: Path | str, run_id: int) -> str:
    """The command that finishes a run, as it can be copied: with --db unless the store is the default one."""
    db = [] if str(where) == str(paths.default_database()) else ["--db", str(where)]
    return shlex.join(["tlsbench", "run", *db, "--resume", str(run_id)])


def kept_hint(where: Path | str, run_id: int) -> str:
    """What a run stopped by a fault says after the fault: what is kept and how to finish it."""
    return f"; run {run_id} keeps what it measured; finish it with: {resume_command(where, run_id)}"


@contextmanager
def translated(path: Path | str, then: str = "") -> Iterator[None]:
    """Inside: any SQLite or PostgreSQL error becomes a StoreError from
    explain() (then: what to add, e.g. how to resume)."""
    try:
        yield
    except db_errors() as e:
        raise explain(e, path, then) from e


@contextmanager
def removed_on_error(path: Path) -> Iterator[None]:
    """A file this block creates is removed again when the block fails (a full disk, a damaged
    source): no empty or half-written file is left behind to be mistaken for a result."""
    existed = path.exists()
    try:
        yield
    except BaseException:
        if not existed:
            for leftover in (path, path.with_name(path.name + "-journal")):
                leftover.unlink(missing_ok=True)
        raise


def lock_path(db_path: Path, run_id: int) -> Path:
    return db_path.with_name(f"{db_path.name}.run-{run_id}.lock")


@contextmanager
def run_lock(db_path: Path, run_id: int) -> Iterator[None]:
    """Held while a process measures run_id; a second holder is refused,
    told which process has it. The lock file goes when the run ends."""
    path = lock_path(db_path, run_id)
    fd = _locked(path, run_id)
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"process {os.getpid()} on {socket.gethostname()}".encode(), 0)
        yield
    finally:
        # removed while still held: a process that opened it meanwhile finds it gone once it gets
        # the lock (_locked), and takes a new file instead of sharing this one
        path.unlink(missing_ok=True)
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def _locked(path: Path, run_id: int) -> int:
    """An open descriptor of the lock file at path, flock-ed by this process."""
    while True:
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as e:
            raise StoreError(f"cannot create the run lock {path}: {e.strerror}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            if e.errno not in (errno.EWOULDBLOCK, errno.EACCES):
                os.close(fd)
                raise StoreError(f"cannot lock {path}: {e.strerror}") from None
            holder = os.pread(fd, 200, 0).decode(errors="replace").strip() or "another process"
            os.close(fd)
            raise StoreError(f"run {run_id} is being measured by {holder}; wait for it to finish "
                             f"(lock: {path})") from None
        try:
            if os.stat(path).st_ino == os.fstat(fd).st_ino:
                return fd
        except FileNotFoundError:
            pass
        os.close(fd)  # its holder removed it as we opened it: take the new one
