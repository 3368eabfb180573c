import Foundation
import HearthKit
import HearthStore
import Synchronization

/// A session advisory lock held on its own connection (docs/storage/postgres.md#locks):
/// released by ``release()``, or by the server when the connection closes — a killed
/// process never leaves a stale lock.
package final class PostgresLock: StorageLock {
    private let connection: Mutex<PostgresConnection?>

    private init(connection: PostgresConnection) { self.connection = Mutex(connection) }

    /// Takes the lock named `key`, polling every 50 ms up to `timeout`.
    static func acquire(_ key: String, backend: PostgresBackend, holder: String, timeout: Duration, what: String) throws -> PostgresLock {
        let connection = try backend.connect()
        try connection.query("SELECT set_config('application_name', $1, false)", [String(holder.prefix(60))])
        let start = ContinuousClock.now
        while true {
            if try connection.query("SELECT pg_try_advisory_lock(hashtextextended($1, 0))", [key])[0, 0] == "t" {
                return PostgresLock(connection: connection)
            }
            let waited = ContinuousClock.now - start
            if waited >= timeout {
                throw LockBusyError(what: what, lockFile: "PostgreSQL advisory lock \(JSONWriter.quoted(key))", holder: "", waited: waited)
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    package func release() {
        connection.withLock { c in
            // Leaves the session as it found it, so the connection can be reused.
            if let held = c, (try? held.query("SELECT pg_advisory_unlock_all(), set_config('application_name', '', false)")) == nil { held.retire() }
            c = nil
        }
    }

    deinit { release() }
}
