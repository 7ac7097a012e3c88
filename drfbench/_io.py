"""Atomic file writes: the one way drfbench writes a results, workload or figure file.

    with replacing("rows.csv") as tmp:      # write tmp; renamed over rows.csv at the end
        ...
    with transaction():                     # a command: every file it writes, or none
        ...

Outside a transaction each file is put in place when its own block ends. Inside one (every
command line runs in one: drfbench._command), the renames wait for the transaction to end
well: a command that fails after writing two of its three files leaves none of them, and
no folder it made for them, behind. Only a regular file or a new name is written: a
folder, a symbolic link, a device (/dev/null), a FIFO or a socket is refused
(`refuse_special`), never replaced by a file.
"""
import itertools
import os
import stat
from contextlib import contextmanager
from pathlib import Path

_pending = None         # while a transaction is open: {path: its complete temporary file}
_made = None            # and the folders its writes created, in the order made
_serial = itertools.count()


SPECIAL = ((stat.S_ISDIR, "a folder"), (stat.S_ISLNK, "a symbolic link"),
           (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
           (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"))


def refuse_special(path):
    """A ValueError naming `path` and what it is when it names anything but a regular file
    or nothing yet (SPECIAL): writing would replace a device, a pipe or a link by a file."""
    try:
        mode = os.lstat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return
    for test, what in SPECIAL:
        if test(mode):
            raise ValueError(f"cannot write {path}: it is {what}, not a regular file "
                             "(drfbench writes only regular files or new names)")


@contextmanager
def replacing(path, suffix=""):
    """A temporary path beside `path` for the caller to write; renamed over `path` when
    the block ends (when the open transaction ends, if one is), removed if it raises, so
    that no reader and no interrupted run ever sees half a file. It is opened like any new
    file, so it gets the umask's mode; its name is short (a name that is as long as a
    folder allows stays writable).

    Parameters
    ----------
    path : str or Path
        The file to write: a regular file or a new name (`refuse_special`).
    suffix : str
        Ends the temporary name (`np.savez` appends ".npz" to names without it).

    Yields
    ------
    Path
        The temporary path.

    Raises
    ------
    ValueError
        `path` is a device, a pipe, a link or a folder.
    OSError
        Writing failed (no space left, a quota), `path` named.
    """
    path = Path(path)
    refuse_special(path)
    missing, folder = [], path.parent
    while not folder.exists() and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    path.parent.mkdir(parents=True, exist_ok=True)
    if _made is not None:
        _made.extend(reversed(missing))         # outermost first
    tmp = path.with_name(f".drfbench.{os.getpid()}.{next(_serial)}.tmp{suffix}")
    kept = False
    try:
        try:
            yield tmp
        except OSError as exc:  # name the file the caller writes, not its temporary one
            if exc.filename is None and exc.errno is not None or (
                    exc.filename is not None and Path(exc.filename) == tmp):
                raise type(exc)(exc.errno, f"cannot write {path}: {exc.strerror}") from exc
            raise
        if _pending is None:
            os.replace(tmp, path)
        else:                   # the transaction puts it in place (or removes it)
            key = path.absolute()       # one file, however its path was spelled
            earlier = _pending.pop(key, None)
            if earlier is not None:
                earlier.unlink(missing_ok=True)
            _pending[key] = tmp
            kept = True
    finally:
        if not kept:
            tmp.unlink(missing_ok=True)


@contextmanager
def transaction():
    """Every file written through `replacing` while the block runs is put in place when it
    ends, and only if it ends without an exception (SystemExit and KeyboardInterrupt
    included): otherwise their temporary files are removed, and the folders made for them
    if they are empty, so that a failed command leaves nothing new behind and replaces no
    file. A transaction opened inside another is the outer one's."""
    global _pending, _made
    if _pending is not None:
        yield
        return
    _pending, _made = {}, []
    try:
        yield
    except BaseException:
        for tmp in _pending.values():
            tmp.unlink(missing_ok=True)
        for folder in reversed(_made):
            try:
                folder.rmdir()
            except OSError:     # not empty (something else wrote there) or gone
                pass
        raise
    else:
        for path, tmp in _pending.items():
            os.replace(tmp, path)
    finally:
        _pending, _made = None, None
