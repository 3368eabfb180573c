#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import HearthKit
import HearthStore

/// An exclusive `flock` on a file under `.hearth/` (the writers' lock `.hearth/lock`, or a
/// per-job run lock). The holder writes `pid=… job=…` into the file so that a waiter can
/// name it. The kernel releases the lock when the process dies, so a crash never leaves it stuck.
package final class CommitLock: Sendable {
    package let path: String
    private let fd: Int32

    private init(path: String, fd: Int32) {
        self.path = path
        self.fd = fd
    }

    /// Waits up to `timeout` for the lock; throws ``LockBusyError`` naming the holder.
    /// `root` is the data directory the lock is under: it is never recreated.
    package static func acquire(path: String, root: String, holder: String, timeout: Duration, what: String) throws -> CommitLock {
        try FileIO.makeDirectories(FileIO.directoryName(path), within: root)
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o640)
        guard fd >= 0 else { throw FileIO.Failure(path: path, operation: "open lock", errno: errno) }
        let deadline = ContinuousClock.now + timeout
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else {
                let e = errno
                close(fd)
                throw FileIO.Failure(path: path, operation: "flock", errno: e)
            }
            if ContinuousClock.now >= deadline {
                let info = (try? FileIO.readSmallFile(path)).flatMap { $0 }.map { String(decoding: $0, as: UTF8.self) } ?? ""
                close(fd)
                throw LockBusyError(what: what, lockFile: path, holder: info.trimmingCharacters(in: .whitespacesAndNewlines), waited: timeout)
            }
            usleep(20_000)
        }
        ftruncate(fd, 0)
        let text = Array("\(holder)\n".utf8)
        _ = text.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        return CommitLock(path: path, fd: fd)
    }

    /// Releases the lock (also done by closing at deinit).
    package func release() {
        ftruncate(fd, 0)
        flock(fd, LOCK_UN)
    }

    deinit {
        flock(fd, LOCK_UN)
        close(fd)
    }
}
