"""One run per checkpoint: an exclusive lock next to the file, naming its holder.

Two runs appending to one checkpoint would interleave their batches, and the
next resume would refuse the file. A run therefore takes a lock on
``<checkpoint>.lock`` before it reads or writes the checkpoint: an exclusive,
non-blocking ``fcntl.flock``, with the holder's pid, host and start time
written into the file. A second run on the same path is refused at once with
:class:`CheckpointLockedError`, which names the holder.

The kernel drops a flock when its holder dies, so a lock file left by a killed
run is simply taken over. A lock still held although the pid written in it is
dead on this host -- process-pool workers forked by a killed run inherit its
lock for the moment they take to exit -- is stale too: the file is replaced by
a fresh one (the orphans never write the checkpoint). Where the file system
has no flock (``ENOLCK``, some network file systems), the lock is the file's
existence (``O_EXCL``), and a lock of a dead pid on this host is taken over.
"""

from __future__ import annotations

import errno
import json
import os
import socket
import time
from pathlib import Path
from typing import Any

try:
    import fcntl
except ImportError:  # pragma: no cover - not on POSIX
    fcntl = None  # type: ignore[assignment]

__all__ = ["CheckpointLock", "CheckpointLockedError"]

#: Without flock, a lock file with no holder written in it for this long is left over by a
#: run killed between creating and writing it.
_UNWRITTEN_SECONDS = 10.0

_NO_FLOCK = {errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOSYS, errno.EINVAL}


class CheckpointLockedError(ValueError):
    """Another run holds the checkpoint: refused at once, naming the holder."""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except (OverflowError, ValueError):
        return False
    return True


def _holder(text: str) -> dict[str, Any]:
    try:
        info = json.loads(text)
    except ValueError:
        return {}
    return info if isinstance(info, dict) else {}


class CheckpointLock:
    """The lock of the checkpoint at ``path`` (``path.lock``); :meth:`release` frees it."""

    def __init__(self, path: Path):
        self.checkpoint = path
        self.path = path.with_name(path.name + ".lock")
        self.fd: int | None = None
        self._acquire()

    # -- who holds it -------------------------------------------------------------------

    def _me(self) -> bytes:
        me = {"pid": os.getpid(), "host": socket.gethostname(), "since": time.time()}
        return json.dumps(me).encode()

    def _stale(self, info: dict[str, Any]) -> bool:
        pid = info.get("pid")
        return (
            info.get("host") == socket.gethostname()
            and isinstance(pid, int)
            and not isinstance(pid, bool)
            and pid != os.getpid()
            and not _alive(pid)
        )

    def _refuse(self, info: dict[str, Any]) -> CheckpointLockedError:
        pid, host = info.get("pid", "?"), info.get("host", "?")
        since = info.get("since")
        when = (
            f" since {time.strftime('%Y-%m-%d %H:%M:%S', time.localtime(since))}"
            if isinstance(since, (int, float)) and not isinstance(since, bool)
            else ""
        )
        return CheckpointLockedError(
            f"checkpoint {str(self.checkpoint)!r} is in use by another run (pid {pid} on host "
            f"{host}{when}; lock file {str(self.path)!r}): two runs would interleave the file. "
            "Wait for that run to end, or use another checkpoint path"
        )

    # -- taking it ------------------------------------------------------------------------

    def _acquire(self) -> None:
        for _ in range(5):
            try:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644)
                created = True
            except FileExistsError:
                try:
                    fd = os.open(self.path, os.O_RDWR | os.O_CLOEXEC)
                except FileNotFoundError:
                    continue
                created = False
            try:
                if fcntl is None:
                    raise OSError(errno.ENOSYS, "no fcntl")
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as exc:
                if exc.errno in _NO_FLOCK and created:  # ours by O_EXCL: the lock as it is
                    os.pwrite(fd, self._me(), 0)
                    self.fd = fd
                    return
                info = _holder(os.pread(fd, 4096, 0).decode("utf-8", "replace"))
                st = os.fstat(fd)
                os.close(fd)
                if exc.errno in _NO_FLOCK:
                    self._acquire_exclusive()
                    return
                if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                    raise
                if self._stale(info):  # held only by orphans of a dead run: replace the file
                    self._unlink_if(st)
                    continue
                raise self._refuse(info) from None
            # the holder before us may have unlinked the file as it let go: lock the live one
            st = os.fstat(fd)
            try:
                now = os.stat(self.path)
            except FileNotFoundError:
                os.close(fd)
                continue
            if (st.st_dev, st.st_ino) != (now.st_dev, now.st_ino):
                os.close(fd)
                continue
            os.ftruncate(fd, 0)  # a dead holder's record, if any
            os.pwrite(fd, self._me(), 0)
            self.fd = fd
            return
        raise CheckpointLockedError(
            f"checkpoint {str(self.checkpoint)!r}: could not take its lock {str(self.path)!r} "
            "(other runs keep replacing it)"
        )

    def _unlink_if(self, st: os.stat_result) -> None:
        try:
            now = os.stat(self.path)
            if (now.st_dev, now.st_ino) == (st.st_dev, st.st_ino):
                os.unlink(self.path)
        except FileNotFoundError:
            pass

    def _acquire_exclusive(self) -> None:
        """Without flock: the lock is the file's existence; a dead pid's file is taken over."""
        for _ in range(5):
            try:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644)
            except FileExistsError:
                try:
                    info = _holder(self.path.read_text(encoding="utf-8", errors="replace"))
                    st = os.stat(self.path)
                except FileNotFoundError:
                    continue
                unwritten = "pid" not in info and time.time() - st.st_mtime > _UNWRITTEN_SECONDS
                if unwritten or self._stale(info):
                    self._unlink_if(st)
                    continue
                raise self._refuse(info) from None
            os.write(fd, self._me())
            self.fd = fd
            return
        raise CheckpointLockedError(
            f"checkpoint {str(self.checkpoint)!r}: could not take its lock {str(self.path)!r}"
        )

    def release(self) -> None:
        """Remove the lock file (still ours) and let go of the lock."""
        if self.fd is None:
            return
        fd, self.fd = self.fd, None
        try:
            self._unlink_if(os.fstat(fd))
        finally:
            os.close(fd)
