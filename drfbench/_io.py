"""Atomic file writes: the one way drfbench writes a results, workload or figure file."""
import os
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def replacing(path, suffix=""):
    """A temporary path beside `path` for the caller to write; renamed over `path` when
    the block ends, removed if it raises, so that no reader and no interrupted run ever
    sees half a file. It is opened like any new file, so it gets the umask's mode.
    `suffix` ends the temporary name (np.savez appends ".npz" to names without it)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp{suffix}")
    try:
        yield tmp
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
