"""gdl's per-user cache directory, shared by the grammar's parser tables and compiled games.

What is cached there is loaded as code (a pickled parser, compiled modules), so a directory is
used only if it is the user's own and writable by nobody else. ``GDL_NO_CACHE=1`` turns it off.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path


def private_cache_dir(*parts: str) -> Path | None:
    """``$XDG_CACHE_HOME/gdl/<parts>`` (or ``~/.cache/gdl/<parts>``), created 0700, or None when
    caching is off or any directory from ``gdl`` down is not private to this user."""
    if os.environ.get("GDL_NO_CACHE"):
        return None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    root = Path(base) / "gdl"
    directory = root.joinpath(*parts)
    try:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        path = directory
        while True:
            info = path.stat()
            if info.st_uid != os.getuid() or info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
                return None
            if path == root:
                return directory
            path = path.parent
    except (OSError, AttributeError):
        return None
