import Synchronization

/// The idle connections of one backend, reused by its next ``PostgresBackend/connect()``
/// (docs/storage/postgres.md#connections).
///
/// A run opens several connections one after another — its snapshot, its commit, its run
/// record, its lock — and each new one costs a server process and an authentication (3–5 ms on
/// the same machine, more across a network or with SCRAM). A connection goes back to the pool
/// when the last reference to it goes away, if it is healthy, outside any transaction (an open
/// read-only one is rolled back first) and carries no session state (``PostgresConnection/retire()``:
/// the change feed's `LISTEN`). The pool keeps at most ``capacity``, and hands none out that
/// has been idle ``maxIdle`` or longer, or that the server has written to since (it ended it).
package final class PostgresConnectionPool: Sendable {
    /// Connections kept idle at most; more are closed.
    static let capacity = 4
    /// An idle connection older than this is closed, not reused.
    static let maxIdle = Duration.seconds(10)

    private struct Entry {
        var connection: PostgresConnection.Idle
        var since: ContinuousClock.Instant
    }

    private let idle = Mutex<[Entry]>([])

    package init() {}

    /// The most recently returned connection that has been idle for less than ``maxIdle`` and
    /// heard nothing from the server since (``PostgresConnection/Idle/isQuiet``); the others
    /// are closed.
    func take() -> PostgresConnection.Idle? {
        let now = ContinuousClock.now
        // Entries are appended as they come back, so the stale ones are a prefix.
        let stale = idle.withLock { entries -> [Entry] in
            let cut = entries.firstIndex { now - $0.since < Self.maxIdle } ?? entries.count
            defer { entries.removeFirst(cut) }
            return Array(entries[..<cut])
        }
        for entry in stale { entry.connection.close() }
        while let candidate = idle.withLock({ $0.popLast()?.connection }) {
            if candidate.isQuiet { return candidate }
            candidate.close()
        }
        return nil
    }

    /// Whether ``put(_:)`` would keep one more.
    var hasRoom: Bool { idle.withLock { $0.count < Self.capacity } }

    /// Keeps `connection` for a later ``take()``; false (the caller closes it) when full.
    func put(_ connection: PostgresConnection.Idle) -> Bool {
        idle.withLock { entries in
            guard entries.count < Self.capacity else { return false }
            entries.append(Entry(connection: connection, since: .now))
            return true
        }
    }

    deinit {
        for entry in idle.withLock({ $0 }) { entry.connection.close() }
    }
}
