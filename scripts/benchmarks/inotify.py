"""The few inotify calls the trigger bench needs, through ctypes (no pip package)."""
import ctypes
import os
import select
import struct


class Inotify:
    """Watches one folder for files renamed into it or closed after writing."""
    MOVED_TO, CLOSE_WRITE = 0x80, 0x08

    def __init__(self, folder):
        self.libc = ctypes.CDLL("libc.so.6", use_errno=True)
        self.fd = self.libc.inotify_init1(0)
        if self.libc.inotify_add_watch(self.fd, folder.encode(), self.MOVED_TO | self.CLOSE_WRITE) < 0:
            raise OSError(ctypes.get_errno(), "inotify_add_watch " + folder)
        self.buffered = []

    def names(self, timeout):
        """Names of files renamed into the folder or closed after writing, waiting up to `timeout` s."""
        if not self.buffered:
            ready, _, _ = select.select([self.fd], [], [], timeout)
            if not ready:
                return []
            data = os.read(self.fd, 1 << 20)
            i = 0
            while i < len(data):
                _, _, _, length = struct.unpack_from("iIII", data, i)
                self.buffered.append(data[i + 16:i + 16 + length].split(b"\0", 1)[0].decode())
                i += 16 + length
        out, self.buffered = self.buffered, []
        return out

    def close(self):
        os.close(self.fd)
