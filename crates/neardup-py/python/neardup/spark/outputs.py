"""The scan's results: the frames, and the files written from them
atomically, as ``neardup scan`` writes its own."""

import os
import secrets
import sys

from .. import _neardup


class ScanFrames:
    """What a scan reports, as DataFrames whose columns are those of the
    ``neardup scan`` outputs:

    - ``pairs``: ``a``, ``b`` (ids), ``matches``, ``n``, ``receipt_sha256``,
      ``similarity``, ``verdict``;
    - ``clusters``: ``cluster`` (0, 1, … by keeper), ``keep``, ``members``
      (keeper first, in input order), ``size``;
    - ``keep``, ``drop``: ``id``.

    Each has an internal order column (``_a, _b`` / ``_keeper`` / ``_doc``):
    ``write`` sorts by it. ``stats`` and ``times`` (seconds per stage) say
    what the scan did."""

    def __init__(self, pairs, clusters, keep, drop, stats, times):
        self._pairs, self._clusters, self._keep, self._drop = pairs, clusters, keep, drop
        self.stats, self.times = stats, times

    @property
    def pairs(self):
        return self._pairs.orderBy("_a", "_b").select(
            "a", "b", "matches", "n", "receipt_sha256", "similarity", "verdict")

    @property
    def clusters(self):
        return self._clusters.orderBy("_keeper").select("cluster", "keep", "members", "size")

    @property
    def keep(self):
        return self._keep.orderBy("_doc").select("id")

    @property
    def drop(self):
        return self._drop.orderBy("_doc").select("id")

    def write(self, pairs=None, clusters=None, keep_list=None, drop_list=None):
        """Writes the files ``neardup scan`` writes with ``--pairs``,
        ``--clusters``, ``--keep-list`` and ``--drop-list``, byte for byte,
        each to a temporary beside it, renamed into place once complete
        (``-`` is standard output). The rows reach the driver one partition
        at a time, in order."""
        jobs = []
        if pairs:
            jobs.append((pairs, lambda: (r[0] for r in self._pairs.orderBy("_a", "_b")
                                         .select("_line").toLocalIterator())))
        if clusters:
            def cluster_text():
                rows = self._clusters.orderBy("_keeper").select("cluster", "_members")
                chunk, first = [], None
                for r in rows.toLocalIterator():
                    if first is None:
                        first = r[0]
                    chunk.append(list(r[1]))
                    if len(chunk) >= 4096:
                        yield _neardup.cluster_lines(first, chunk)
                        chunk, first = [], None
                if chunk:
                    yield _neardup.cluster_lines(first, chunk)
            jobs.append((clusters, cluster_text))
        for path, frame in ((keep_list, self._keep), (drop_list, self._drop)):
            if path:
                def list_text(frame=frame):
                    chunk = []
                    for r in frame.orderBy("_doc").select("id_json").toLocalIterator():
                        chunk.append(r[0])
                        if len(chunk) >= 65536:
                            yield _neardup.list_lines(chunk)
                            chunk = []
                    if chunk:
                        yield _neardup.list_lines(chunk)
                jobs.append((path, list_text))
        _write_atomically(jobs)


def _unnamed_beside(folder):
    """An unnamed file in ``folder`` (Linux's ``O_TMPFILE``), opened for
    writing, with the mode a new file gets (0666 less the umask): until it
    is linked into place it has no name, so a driver killed while writing
    leaves nothing behind. None where the system or file system refuses."""
    flag = getattr(os, "O_TMPFILE", None)
    if flag is None or not os.path.isdir("/proc/self/fd"):
        return None
    try:
        return os.open(folder, flag | os.O_WRONLY | getattr(os, "O_CLOEXEC", 0), 0o666)
    except OSError:
        return None


def _linkat(source, path):
    """``linkat(AT_FDCWD, source, AT_FDCWD, path, AT_SYMLINK_FOLLOW)``:
    ``os.link`` calls plain ``link``, which does not follow the
    ``/proc/self/fd`` link (CPython issue 85527). Linux only, as is
    ``O_TMPFILE``; an error is the ``OSError`` of its errno
    (``FileExistsError`` for an existing ``path``)."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    at_fdcwd, at_symlink_follow = -100, 0x400
    if libc.linkat(at_fdcwd, os.fsencode(source), at_fdcwd, os.fsencode(path),
                   at_symlink_follow) != 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e), path)


def _link_into_place(fd, path):
    """Gives the unnamed file ``fd`` the name ``path``: linked straight to
    it when it is new, else linked under a hidden name and renamed over the
    old file (a link cannot replace one)."""
    source = "/proc/self/fd/%d" % fd
    try:
        _linkat(source, path)
        return
    except FileExistsError:
        pass
    folder, name = os.path.split(os.path.abspath(path))
    while True:
        hidden = os.path.join(folder, ".%s.%s.tmp" % (name, secrets.token_hex(6)))
        try:
            _linkat(source, hidden)
            break
        except FileExistsError:
            continue
    os.replace(hidden, path)


def _temp_beside(folder, name):
    """A new temporary in ``folder``, opened for writing. Unlike
    ``tempfile.mkstemp`` (always 0600) it has the mode any new file gets,
    0666 less the umask, as ``neardup scan``'s outputs do, since it is
    renamed into the output."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    while True:
        tmp = os.path.join(folder, ".%s.%s.tmp" % (name, secrets.token_hex(6)))
        try:
            return os.open(tmp, flags, 0o666), tmp
        except FileExistsError:
            continue


def _write_atomically(jobs):
    """Writes each ``(path, pieces)`` to an unnamed file beside its path
    (a named temporary where the system has none), then puts them all into
    place once every one is complete, as ``neardup scan`` does: a failed
    write leaves no output, not even a part of the set, and a killed driver
    leaves no file at all. ``-`` is standard output."""
    if sum(os.fspath(p) == "-" for p, _ in jobs) > 1:
        raise ValueError("only one output can go to standard output ('-')")
    temps, done = {}, False
    try:
        for path, _ in jobs:
            path = os.fspath(path)
            if path != "-":
                folder = os.path.dirname(os.path.abspath(path))
                fd, tmp = _unnamed_beside(folder), None
                if fd is None:
                    fd, tmp = _temp_beside(folder, os.path.basename(path))
                temps[path] = (os.fdopen(fd, "w", encoding="utf-8", newline=""), tmp)
        for path, text in jobs:
            path = os.fspath(path)
            f = sys.stdout if path == "-" else temps[path][0]
            for p in text():
                f.write(p)
            f.flush()
            if f is not sys.stdout:
                os.fsync(f.fileno())
        for path, (f, tmp) in temps.items():
            if tmp is None:
                _link_into_place(f.fileno(), path)
            else:
                os.replace(tmp, path)
        done = True
    finally:
        for f, tmp in temps.values():
            f.close()
            if tmp is not None and not done:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
