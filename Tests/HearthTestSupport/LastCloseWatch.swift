import Foundation
import Glibc
public import Testing

/// Tells when a file written through a watched path is closed for the last time (inotify
/// `IN_CLOSE_WRITE`): for change-feed tests, which must not go on while a write of theirs may
/// still be closed.
///
/// A file's last close is not always the writer's `close`. A child process that another test
/// spawns while the descriptor is open gets a copy of it at its `fork`; close-on-exec closes
/// that copy at its `exec`, which on a loaded machine can come many milliseconds later. The
/// file's `IN_CLOSE_WRITE` comes then, under the name the file has by that time: a test that
/// renamed it into a watched folder, or started a feed after writing it, sees a second write.
public final class LastCloseWatch: Sendable {
    private let descriptor: Int32
    private let path: String

    /// Watches the file at `path` (open it first: a watch added after the last close waits in
    /// vain), or the files of the directory at `path`.
    public init(_ path: String) throws {
        let fd = inotify_init1(Int32(IN_CLOEXEC) | Int32(IN_NONBLOCK))
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        guard inotify_add_watch(fd, path, UInt32(IN_CLOSE_WRITE)) >= 0 else {
            let e = errno
            close(fd)
            throw POSIXError(POSIXErrorCode(rawValue: e) ?? .EIO)
        }
        descriptor = fd
        self.path = path
    }

    deinit { close(descriptor) }

    /// Blocks (call it off the cooperative pool) until a last close comes, or returns at once
    /// when one came since the last call; the names of the files closed, in order ("" for the
    /// watched file itself). Throws ``TimedOut`` after `timeout`.
    public func wait(timeout: Duration = .seconds(10), sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
        let deadline = ContinuousClock.now + timeout
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if n > 0 {
                let names = Self.closedNames(buffer[0..<n])
                if !names.isEmpty { return names }
                continue  // only IN_IGNORED: the watched file went
            }
            guard n < 0, errno == EAGAIN || errno == EINTR else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            let left = deadline - ContinuousClock.now
            guard left > .zero else {
                throw TimedOut(what: "the last close of \(path) (or of a file in it)", timeout: timeout, sourceLocation: sourceLocation)
            }
            var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            _ = poll(&ready, 1, Int32(clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1))
        }
    }

    /// The names of the `IN_CLOSE_WRITE` records among the `struct inotify_event`s read: wd,
    /// mask, cookie, len, then `len` bytes of NUL-padded name.
    private static func closedNames(_ bytes: ArraySlice<UInt8>) -> [String] {
        Array(bytes).withUnsafeBytes { raw in
            var names: [String] = []
            var at = 0
            while at + 16 <= raw.count {
                let mask = raw.loadUnaligned(fromByteOffset: at + 4, as: UInt32.self)
                let length = Int(raw.loadUnaligned(fromByteOffset: at + 12, as: UInt32.self))
                if mask & UInt32(IN_CLOSE_WRITE) != 0 {
                    let name = raw[(at + 16)..<min(raw.count, at + 16 + length)].prefix { $0 != 0 }
                    names.append(String(decoding: name, as: UTF8.self))
                }
                at += 16 + length
            }
            return names
        }
    }
}
