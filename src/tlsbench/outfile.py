"""An output file written whole or not at all: a full disk (or any write
error) leaves neither an empty nor a half-written file, and an earlier file
of that name as it was."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from tlsbench.errors import TlsbenchError


def write_whole(path: Path | str, text: str) -> int:
    """Writes text to path through a temporary file beside it; returns the bytes written."""
    path = Path(path)
    data = text.encode()
    try:
        fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    except OSError as e:
        raise TlsbenchError(f"cannot write {path}: {e.strerror or e}") from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(temporary, 0o666 & ~_umask())
        os.replace(temporary, path)
    except OSError as e:
        Path(temporary).unlink(missing_ok=True)
        raise TlsbenchError(f"cannot write {path}: {e.strerror or e}") from None
    return len(data)


def emit(text: str, output: str | None, note: str | None = None) -> None:
    """A command's text to ``output`` (whole or not at all, ``note`` then said
    on stderr: the bytes written when None) or to stdout when no file is given."""
    if not output:
        sys.stdout.write(text)
        return
    size = write_whole(output, text)
    if note != "":
        print(f"{output}: {note or f'{size:,} bytes'}", file=sys.stderr)


def folder(text: str, option: str, why: str = "") -> Path:
    """The folder an option names, made if missing; a file there or a folder
    that cannot be made is one line naming the option (``why``: what needs it)."""
    out = Path(text)
    if out.exists() and not out.is_dir():
        raise TlsbenchError(f"{option} {text}: {why}is a file, not a folder; give a folder (it is made if missing)")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise TlsbenchError(f"{option} {text}: cannot make the folder ({e.strerror}); give a folder that exists"
                            " or can be made") from None
    return out


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
