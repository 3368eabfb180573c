#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// A deliverer's claim on one outbox message: an exclusive, non-blocking `flock` on
/// `.hearth/outbox/claims/<name>.lock`.
///
/// Why a lock file and not a rename into `inflight/<pid>/`: the kernel drops a `flock` when its
/// holder dies (SIGKILL included), so a crashed deliverer never leaves a stale claim that needs
/// pid-liveness guessing (pids are reused quickly in containers), and the message file itself
/// never leaves `pending/` while it is being delivered, so `hearth outbox list` and a crash at
/// any instant see it where it belongs.
///
/// The lock file is removed once the message has left `pending/`, which makes one race
/// possible: a second deliverer may have opened the old lock file just before it was unlinked
/// and lock that orphaned inode afterwards. So a claim is valid only if, after locking, the
/// path still names the very inode that was locked (`fstat` = `stat`); otherwise it is given
/// up and reported as busy. Whoever unlinks a lock file holds its lock at that moment, so two
/// valid claims on one message can never coexist.
final class OutboxClaim: Sendable {
    let path: String
    /// The locked descriptor; nil once released.
    private let fd: Mutex<Int32?>

    private init(path: String, fd: Int32) {
        self.path = path
        self.fd = Mutex(fd)
    }

    /// Claims `path` without waiting; nil when another deliverer holds it.
    static func tryClaim(_ path: String) throws(FileIO.Failure) -> OutboxClaim? {
        var fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o640)
        if fd < 0, errno == ENOENT {
            try FileIO.makeDirectories(FileIO.directoryName(path))
            fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o640)
        }
        guard fd >= 0 else { throw FileIO.Failure(path: path, operation: "open claim", errno: errno) }
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            if errno == EINTR { continue }
            let e = errno
            close(fd)
            if e == EWOULDBLOCK { return nil }
            throw FileIO.Failure(path: path, operation: "flock", errno: e)
        }
        var held = stat()
        var named = stat()
        guard fstat(fd, &held) == 0, stat(path, &named) == 0, held.st_ino == named.st_ino, held.st_dev == named.st_dev else {
            close(fd)  // the lock file was replaced meanwhile: someone else finished this message
            return nil
        }
        return OutboxClaim(path: path, fd: fd)
    }

    /// Releases the claim; with `removingLockFile` (the message has left `pending/`) the lock
    /// file is unlinked first, while still held.
    func release(removingLockFile: Bool) {
        guard let descriptor = fd.withLock({ d -> Int32? in
            defer { d = nil }
            return d
        }) else { return }
        if removingLockFile { unlink(path) }
        close(descriptor)
    }

    deinit {
        release(removingLockFile: false)
    }
}
