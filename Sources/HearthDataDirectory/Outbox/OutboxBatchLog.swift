#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization
import HearthKit
package import HearthStore

/// The append-only delivery log of one ``OutboxBatch`` (`pending/<name>.jsonl.log`), written
/// by the one deliverer holding the batch's claim.
///
/// Records are buffered and written with one `write` once ``flushThreshold`` bytes have
/// gathered or ``flushInterval`` has passed since the last write (and at the end of a pass),
/// then `fdatasync`ed every ``syncThreshold`` bytes and at the end of the pass. A SIGKILL loses
/// at most the buffered records (some 70 messages, or 50 ms worth) and a power cut the unsynced
/// ones: their messages are sent again by the next pass (at-least-once), none is lost.
package final class OutboxBatchLog: Sendable {
    static let flushThreshold = 4 << 10
    static let flushInterval: Duration = .milliseconds(50)
    static let syncThreshold = 1 << 20

    let path: String
    private struct State {
        var fd: Int32 = -1
        var buffer: [UInt8] = []
        var unsynced = 0
        var lastWrite = ContinuousClock.now
        var failure: FileIO.Failure?
    }
    private let state = Mutex(State())

    package init(path: String) {
        self.path = path
    }

    /// Adds one record; written out once enough have gathered.
    package func append(_ record: [UInt8]) {
        state.withLock { s in
            s.buffer += record
            if s.buffer.count >= Self.flushThreshold || ContinuousClock.now - s.lastWrite >= Self.flushInterval { write(&s, sync: false) }
        }
    }

    /// Writes what is buffered and makes the log durable. Throws the first write failure of
    /// the pass, if any (the records it lost are sent again next pass).
    package func flush() throws(FileIO.Failure) {
        let failure = state.withLock { s -> FileIO.Failure? in
            write(&s, sync: true)
            return s.failure
        }
        if let failure { throw failure }
    }

    package func closeFile() {
        state.withLock { s in
            if s.fd >= 0 { close(s.fd) }
            s.fd = -1
        }
    }

    deinit { closeFile() }

    private func write(_ s: inout State, sync: Bool) {
        guard s.failure == nil else { return }
        do throws(FileIO.Failure) {
            if !s.buffer.isEmpty {
                if s.fd < 0 {
                    s.fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o640)
                    if s.fd < 0 { throw FileIO.Failure(path: path, operation: "open", errno: errno) }
                    // A record torn by a crash stays on a line of its own.
                    let end = lseek(s.fd, 0, SEEK_END)
                    var last: UInt8 = 0x0A
                    if end > 0, pread(s.fd, &last, 1, end - 1) == 1, last != 0x0A { s.buffer.insert(0x0A, at: 0) }
                }
                try FileIO.writeAll(s.fd, s.buffer, path: path)
                s.lastWrite = ContinuousClock.now
                s.unsynced += s.buffer.count
                s.buffer.removeAll(keepingCapacity: true)
            }
            if s.fd >= 0, s.unsynced > 0, sync || s.unsynced >= Self.syncThreshold {
                if fdatasync(s.fd) != 0 { throw FileIO.Failure(path: path, operation: "fdatasync", errno: errno) }
                s.unsynced = 0
            }
        } catch {
            s.failure = error
        }
    }
}
