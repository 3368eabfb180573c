#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization
package import HearthStore

/// A deliverer's claim on one outbox message: an exclusive, non-blocking `flock` on the
/// message file itself (`pending/<name>.json`), held while its targets are sent.
///
/// Why a lock and not a rename into `inflight/<pid>/`: the kernel drops a `flock` when its
/// holder dies (SIGKILL included), so a crashed deliverer never leaves a stale claim behind that
/// would need pid-liveness guessing (pids are reused quickly in containers), and the message
/// never leaves `pending/` while it is being delivered, so `hearth outbox list` and a crash at
/// any instant see it where it belongs. Why the message file rather than a separate lock file:
/// creating and deleting one lock file per message costs more than the delivery bookkeeping
/// itself (ext4 inode allocation), and a separate file could be left behind by a crash.
///
/// The message file is replaced (state update, temp file + rename) or removed when its
/// delivery ends, so a lock is only a claim if, after locking, the path still names the very
/// inode that was locked (`fstat` = `stat`); otherwise another deliverer has just finished
/// with it and the claim is refused. The holder replaces or removes the file only after its
/// last send, so two deliverers never send one message at the same time.
package final class OutboxClaim: Sendable {
    /// The outcome of trying to claim a message.
    package enum Attempt {
        case claimed(OutboxClaim)
        /// Another deliverer holds it (or has just replaced it).
        case busy
        /// The file is gone: delivered (or moved) since it was listed.
        case gone
    }

    let path: String
    /// The file's size when claimed; message files are never modified in place (they are
    /// replaced by rename), so it is the size of what `read()` returns.
    let size: Int
    /// The locked descriptor; nil once released.
    private let fd: Mutex<Int32?>

    private init(path: String, fd: Int32, size: Int) {
        self.path = path
        self.size = size
        self.fd = Mutex(fd)
    }

    /// Claims the message file at `path` without waiting.
    package static func tryClaim(_ path: String) throws(FileIO.Failure) -> Attempt {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        if fd < 0 {
            if errno == ENOENT { return .gone }
            throw FileIO.Failure(path: path, operation: "open", errno: errno)
        }
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            if errno == EINTR { continue }
            let e = errno
            close(fd)
            if e == EWOULDBLOCK { return .busy }
            throw FileIO.Failure(path: path, operation: "flock", errno: e)
        }
        var held = stat()
        var named = stat()
        guard fstat(fd, &held) == 0 else {
            let e = errno
            close(fd)
            throw FileIO.Failure(path: path, operation: "fstat", errno: e)
        }
        if stat(path, &named) != 0 {
            close(fd)
            return .gone
        }
        guard held.st_ino == named.st_ino, held.st_dev == named.st_dev else {
            close(fd)
            return .busy  // replaced meanwhile by a deliverer that just finished an attempt
        }
        return .claimed(OutboxClaim(path: path, fd: fd, size: Int(held.st_size)))
    }

    /// The claimed file's bytes.
    package func read() throws(FileIO.Failure) -> [UInt8] {
        guard let descriptor = fd.withLock({ $0 }) else { throw FileIO.Failure(path: path, operation: "read (released)", errno: EBADF) }
        guard size <= 64 << 20 else { throw FileIO.Failure(path: path, operation: "read (over 64 MiB)", errno: EFBIG) }
        var out = [UInt8](repeating: 0, count: size)
        var done = 0
        while done < size {
            let n = out.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + done, size - done, off_t(done)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw FileIO.Failure(path: path, operation: "read", errno: errno)
            }
            if n == 0 { out.removeLast(size - done); break }
            done += n
        }
        return out
    }

    /// Releases the claim (closing the descriptor drops the lock).
    package func release() {
        guard let descriptor = fd.withLock({ d -> Int32? in
            defer { d = nil }
            return d
        }) else { return }
        close(descriptor)
    }

    deinit {
        release()
    }
}
