"""An output file written whole or not at all: a full disk (or any write
error) leaves neither an empty nor a half-written file, and an earlier file
of that name as it was."""

from __future__ import annotations

import os
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


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
