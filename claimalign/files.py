"""Files: reading a UTF-8 text file, and writing one so that a failed write never leaves half a file.

Writing goes through :func:`atomic_write` (a temporary file renamed onto the target: a failed write leaves the old
file); a symlink is followed, a device, FIFO or ``/dev/stdout`` written through, never replaced (:func:`atomic_path`,
:func:`output_kind`); :func:`same_file` says whether two paths name one file.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import secrets
import stat
from pathlib import Path
from typing import IO, Any, Iterator, Optional

__all__ = ["read_text_file", "write_text", "atomic_path", "atomic_write", "output_kind", "WRITE_THROUGH_KINDS",
           "same_file"]


def read_text_file(path: Any, error: type = ValueError) -> str:
    """The text of a UTF-8 file (a byte-order mark is accepted and dropped), not yet normalised.

    Raises:
        ``error``: ``path`` is not a path, does not exist, is not a file, cannot be read or is not
            UTF-8 (naming the path and the byte offset).
    """
    if not isinstance(path, (str, Path)):
        raise error(f"path: expected a file path, got {type(path).__name__}")
    p = Path(path)
    if not p.exists():
        raise error(f"{p}: no such file")
    if not p.is_file():
        raise error(f"{p}: not a file")
    try:
        data = p.read_bytes()
    except OSError as e:
        raise error(f"{p}: cannot be read ({e.strerror})") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise error(f"{p}: not UTF-8 text ({e.reason} at byte {e.start})") from None

def write_text(text: str, path: Any) -> None:
    """Write ``text`` (UTF-8, as given) through :func:`atomic_write`.

    Raises:
        OSError: the file cannot be written. TypeError: ``text`` is not a string.
    """
    if not isinstance(text, str):
        raise TypeError(f"text: expected a string, got {type(text).__name__}")
    with atomic_write(path) as fh:
        fh.write(text)

#: Paths that name an open file descriptor (the process's stdout, a shell's ``>(...)``), not a file of a folder.
_FD_LINK = re.compile(r"^/(?:dev/(?:stdout|stderr|stdin|fd/[0-9]+)|proc/[^/]+/fd/[0-9]+)$")


def output_kind(path: Any) -> str:
    """What an output path names, symlinks followed: ``"missing"`` (nothing there yet, or a dangling
    link: its target is created), ``"file"`` (a regular file), ``"dir"``, ``"device"`` (a character or
    block device, e.g. ``/dev/null``), ``"fifo"`` (a named pipe), ``"socket"``, ``"fd"`` (a file
    descriptor link such as ``/dev/stdout`` or ``/proc/self/fd/1``, whatever it points to) or
    ``"loop"`` (a symlink loop).

    >>> output_kind("/dev/null"), output_kind("/dev/stdout"), output_kind("/nonexistent/x")
    ('device', 'fd', 'missing')
    """
    p = os.path.abspath(os.fspath(path))
    seen = 0
    while True:  # the link chain: /dev/stdout -> /proc/self/fd/1 -> ...
        if _FD_LINK.match(p):
            return "fd"
        if not os.path.islink(p) or seen > 40:
            break
        seen += 1
        p = os.path.join(os.path.dirname(p), os.readlink(p))
        p = os.path.abspath(p)
    try:
        st = os.stat(os.fspath(path))
    except FileNotFoundError:
        return "missing"
    except OSError as e:
        if e.errno == errno.ELOOP:
            return "loop"
        raise
    mode = st.st_mode
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISDIR(mode):
        return "dir"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    if stat.S_ISFIFO(mode):
        return "fifo"
    if stat.S_ISSOCK(mode):
        return "socket"
    return "other"


#: :func:`output_kind` values that :func:`atomic_path` writes through (opens and writes in place).
WRITE_THROUGH_KINDS = ("device", "fifo", "fd")


@contextlib.contextmanager
def atomic_path(path: Any) -> Iterator[str]:
    """A path to write an output at, such that what ``path`` names is never destroyed.

    * a regular file, or nothing yet: a fresh temporary path beside the file ``path`` names, with the
      same extension (so writers that go by it, e.g. matplotlib, still work); when the block ends
      without an exception the temporary file replaces the target in one step (:func:`os.replace`,
      keeping an existing target's permissions); on any exception, KeyboardInterrupt included, it is
      removed and the target is left as it was;
    * **a symlink is followed**: the file it points to is replaced (a dangling link's target is
      created) and the link itself is kept, in every command;
    * **a device, a FIFO or a file-descriptor link** (``/dev/null``, ``mkfifo`` pipes, ``/dev/stdout``,
      ``/dev/fd/N``; :data:`WRITE_THROUGH_KINDS`): ``path`` itself is yielded and the writer writes
      through to it; nothing is created beside it, renamed or removed (a FIFO's open waits for a reader,
      as a shell's ``>`` does);
    * a folder, a socket, a symlink loop: refused (``IsADirectoryError`` / ``OSError`` naming it).

    Raises:
        OSError: the rename fails (e.g. the block wrote nothing at the temporary path), or ``path``
            names something that cannot be written (above).
    """
    kind = output_kind(path)
    if kind in WRITE_THROUGH_KINDS:
        yield os.fspath(path)
        return
    if kind == "dir":
        raise IsADirectoryError(f"{os.fspath(path)!r} is a directory, not a file to write")
    if kind in ("socket", "loop", "other"):
        raise OSError(f"{os.fspath(path)!r} is {'a symlink loop' if kind == 'loop' else 'a ' + kind}: "
                      "not a file to write")
    target = os.path.realpath(os.fspath(path))
    folder, base = os.path.split(target)
    tmp = os.path.join(folder, f".{base}.{secrets.token_hex(6)}.tmp{os.path.splitext(base)[1]}")
    try:
        yield tmp
        try:
            os.chmod(tmp, stat.S_IMODE(os.stat(target).st_mode))
        except FileNotFoundError:
            pass
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def atomic_write(path: Any, encoding: str = "utf-8", newline: Optional[str] = "\n") -> Iterator[IO[str]]:
    """A text file to write whose content replaces ``path`` only once it is complete (flushed and
    synced; :func:`atomic_path`): a failure while writing -- an exception, a full disk, Ctrl-C --
    never leaves a half-written file nor destroys the previous one. A symlink is followed (its target
    replaced, the link kept); a device, FIFO or ``/dev/stdout`` is written through, never replaced.

    >>> import tempfile, os; d = tempfile.mkdtemp(); p = os.path.join(d, "out.txt")
    >>> with atomic_write(p) as fh:
    ...     _ = fh.write("done")
    >>> open(p).read(), os.listdir(d)
    ('done', ['out.txt'])
    >>> with atomic_write("/dev/null") as fh:  # written through: /dev/null stays a device
    ...     _ = fh.write("gone")

    Raises:
        OSError: the file cannot be created or renamed into place (:func:`atomic_path`).
    """
    with atomic_path(path) as tmp:
        through = tmp == os.fspath(path)
        with open(tmp, "w" if through else "x", encoding=encoding, newline=newline) as fh:
            yield fh
            fh.flush()
            if not through:
                os.fsync(fh.fileno())


def same_file(a: Any, b: Any) -> bool:
    """True when paths ``a`` and ``b`` name one file: the same resolved path (symlinks, ``./x``,
    ``..``), or -- both existing -- the same file (:func:`os.path.samefile`: hard links)."""
    ra, rb = os.path.realpath(os.fspath(a)), os.path.realpath(os.fspath(b))
    if ra == rb:
        return True
    try:
        return os.path.samefile(ra, rb)
    except OSError:
        return False
