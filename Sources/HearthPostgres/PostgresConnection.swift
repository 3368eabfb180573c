import CLibPQ
import Foundation
import Synchronization

/// One libpq connection (docs/storage/postgres.md). Every call is blocking; callers on the
/// cooperative pool run them through `BlockingIO`. libpq is loaded (`dlopen`) when the first
/// connection is opened (docs/decisions/0005-load-libcurl-and-libpq-on-first-use.md).
///
/// `@unchecked Sendable`: the `PGconn` is only touched inside `mutex`, so one thread at a time
/// uses it, which is all libpq asks of a connection.
package final class PostgresConnection: @unchecked Sendable {
    /// The libpq connection; for a ``shared(url:statements:pool:)`` one, only while a statement
    /// runs. Read and set only inside `mutex`.
    private var handle: OpaquePointer?
    /// The URL a shared connection borrows its connections for (nil: not a shared one).
    private let sharedURL: String?
    private let mutex = Mutex(())
    /// Secrets to remove from every error message (the URL and its password).
    private let secrets: [String]
    /// Counts the statements sent (shared by a backend's connections); nil: not counted.
    private let statements: PostgresStatementCount?
    /// Where the connection goes when the last reference to it goes away; nil: closed then.
    private let pool: PostgresConnectionPool?
    /// False once ``retire()`` was called: closed, never pooled.
    private let reusable = Atomic<Bool>(true)

    /// A connection in a ``PostgresConnectionPool``, outside any transaction, with no session
    /// state. `@unchecked Sendable`: the pool hands each one to at most one new
    /// ``PostgresConnection``, which alone touches it from then on, or closes it.
    struct Idle: @unchecked Sendable {
        fileprivate let conn: OpaquePointer

        func close() { hearth_PQfinish(conn) }

        /// Whether the server has sent nothing since it went idle: a connection the server
        /// ended (restarted, `pg_terminate_backend`) has its last message or the end of the
        /// stream waiting, and is not worth a failed statement.
        var isQuiet: Bool {
            let fd = hearth_PQsocket(conn)
            guard fd >= 0 else { return false }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            return poll(&p, 1, 0) == 0
        }
    }

    /// Connects to `url` (a `postgresql://` URL or a libpq `key=value` string); every statement
    /// sent is counted in `statements`.
    /// With a `pool`: takes an idle connection from it when it has one, and gives this one back
    /// to it at the end.
    package init(url: String, statements: PostgresStatementCount? = nil, pool: PostgresConnectionPool? = nil) throws(PostgresError) {
        self.statements = statements
        self.pool = pool
        secrets = PostgresConnection.secrets(in: url)
        sharedURL = nil
        handle = try PostgresConnection.establish(url, statements: statements, pool: pool, secrets: secrets)
    }

    /// A backend's shared connection, for single statements outside any transaction (a run's
    /// history, a pause, a claim, reads outside a run): each statement borrows a connection from
    /// `pool` (or opens one) and gives it back when done, so a process that only runs a job
    /// opens no connection for it, and a daemon holds none while idle.
    /// ``transaction(_:_:)`` and ``copyIn(_:_:)`` are refused.
    package static func shared(url: String, statements: PostgresStatementCount? = nil, pool: PostgresConnectionPool) -> PostgresConnection {
        PostgresConnection(shared: url, statements: statements, pool: pool)
    }

    private init(shared url: String, statements: PostgresStatementCount?, pool: PostgresConnectionPool) {
        self.statements = statements
        self.pool = pool
        secrets = PostgresConnection.secrets(in: url)
        sharedURL = url
        handle = nil
    }

    /// An idle connection from `pool`, else a new one.
    private static func establish(_ url: String, statements: PostgresStatementCount?, pool: PostgresConnectionPool?, secrets: [String]) throws(PostgresError) -> OpaquePointer {
        if let idle = pool?.take() { return idle.conn }
        if let failure = hearth_pq_load() {
            throw PostgresError("libpq cannot be loaded (\(String(cString: failure))); the PostgreSQL store ([store] kind = \"postgres\") needs it: install the Debian package libpq5")
        }
        guard let c = hearth_PQconnectdb(url) else { throw PostgresError("cannot allocate a PostgreSQL connection") }
        guard hearth_PQstatus(c) == CONNECTION_OK else {
            let message = PostgresConnection.redact(String(cString: hearth_PQerrorMessage(c)), secrets: secrets)
            hearth_PQfinish(c)
            throw PostgresError("cannot connect to PostgreSQL: \(message.trimmingCharacters(in: .whitespacesAndNewlines)); check the URL in [store] urlEnv/urlFile and that the server is running")
        }
        statements?.connected()
        // Notices (e.g. "relation already exists, skipping") are not errors; keep them off stderr.
        hearth_PQsetNoticeProcessor(c, { _, _ in }, nil)
        return c
    }

    /// The libpq connection; a shared one borrows one first. Call inside `mutex`.
    private func open() throws(PostgresError) -> OpaquePointer {
        if let handle { return handle }
        let c = try PostgresConnection.establish(sharedURL ?? "", statements: statements, pool: pool, secrets: secrets)
        handle = c
        return c
    }

    /// After a statement of a shared connection: its borrowed connection back to the pool (or
    /// closed). Call inside `mutex`.
    private func giveBack() {
        guard sharedURL != nil, let conn = handle else { return }
        handle = nil
        recycle(conn)
    }

    deinit {
        if let conn = handle { recycle(conn) }
    }

    /// `conn` back to the pool when it is healthy, reusable and outside a transaction (one still
    /// open, e.g. a run's read-only snapshot, is rolled back first, while the pool has room);
    /// else closed.
    private func recycle(_ conn: OpaquePointer) {
        if let pool, reusable.load(ordering: .relaxed), hearth_PQstatus(conn) == CONNECTION_OK, pool.hasRoom {
            var state = hearth_PQtransactionStatus(conn)
            if state == PQTRANS_INTRANS || state == PQTRANS_INERROR, let r = hearth_PQexec(conn, "ROLLBACK") {
                hearth_PQclear(r)
                state = hearth_PQtransactionStatus(conn)
            }
            if state == PQTRANS_IDLE, pool.put(Idle(conn: conn)) { return }
        }
        hearth_PQfinish(conn)
    }

    /// Keeps this connection out of the pool: it carries session state (`LISTEN`, a session
    /// setting, a session lock that could not be released) that its next user must not inherit.
    package func retire() { reusable.store(false, ordering: .relaxed) }

    /// Runs one statement with text parameters (`$1`, `$2`, …); returns its rows as text.
    @discardableResult
    package func query(_ sql: String, _ parameters: [String?] = []) throws(PostgresError) -> PostgresRows {
        try mutex.withLock { _ throws(PostgresError) in
            defer { giveBack() }
            return try run(sql, parameters)
        }
    }

    /// Runs several statements (no parameters), e.g. a migration.
    package func execute(_ sql: String) throws(PostgresError) {
        try mutex.withLock { _ throws(PostgresError) in
            defer { giveBack() }
            let conn = try open()
            statements?.add()
            guard let r = hearth_PQexec(conn, sql) else { throw failure(conn, nil, sql: sql) }
            defer { hearth_PQclear(r) }
            let status = hearth_PQresultStatus(r)
            guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else { throw failure(conn, r, sql: sql) }
        }
    }

    /// Runs `body` in a transaction (callers give it a connection no other task uses meanwhile:
    /// each statement takes the lock, not the whole transaction): `BEGIN` (with `mode`, e.g. `ISOLATION LEVEL REPEATABLE
    /// READ`), then `COMMIT`, or `ROLLBACK` when `body` throws.
    package func transaction<T>(_ mode: String = "", _ body: () throws -> T) throws -> T {
        guard sharedURL == nil else { throw PostgresError("a transaction needs a connection of its own (PostgresBackend.connect()), not the shared one") }
        try execute("BEGIN \(mode)")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// A notification (`NOTIFY` / `pg_notify`) received on a channel this connection `LISTEN`s to.
    package struct Notification: Sendable, Equatable {
        package var channel: String
        package var payload: String
        /// The server process that sent it.
        package var senderPID: Int32
    }

    /// The connection's socket, to wait on (`poll`) until the server sends something; -1 when
    /// the connection is broken.
    package var socket: Int32 { mutex.withLock { _ in handle.map { hearth_PQsocket($0) } ?? -1 } }

    /// Reads what the server has sent, without blocking, and returns the notifications
    /// received so far (none when nothing came); throws when the connection is broken (the
    /// server ended it, the network dropped).
    package func notifications() throws(PostgresError) -> [Notification] {
        try mutex.withLock { _ throws(PostgresError) -> [Notification] in
            let conn = try open()
            guard hearth_PQconsumeInput(conn) == 1, hearth_PQstatus(conn) == CONNECTION_OK else {
                let message = String(cString: hearth_PQerrorMessage(conn)).trimmingCharacters(in: .whitespacesAndNewlines)
                throw PostgresError("PostgreSQL: \(redacted(message.isEmpty ? "the connection was lost" : message)) (waiting for notifications)")
            }
            var received: [Notification] = []
            while let n = hearth_PQnotifies(conn) {
                defer { hearth_PQfreemem(n) }
                received.append(Notification(channel: String(cString: n.pointee.relname), payload: String(cString: n.pointee.extra), senderPID: n.pointee.be_pid))
            }
            return received
        }
    }

    private func run(_ sql: String, _ parameters: [String?]) throws(PostgresError) -> PostgresRows {
        let conn = try open()
        statements?.add()
        let result: OpaquePointer? = withCStrings(parameters) { pointers in
            hearth_PQexecParams(conn, sql, Int32(parameters.count), nil, pointers, nil, nil, 0)
        }
        guard let r = result else { throw failure(conn, nil, sql: sql) }
        defer { hearth_PQclear(r) }
        switch hearth_PQresultStatus(r) {
        case PGRES_COMMAND_OK:
            return PostgresRows(columns: 0, values: [], affected: Int(String(cString: hearth_PQcmdTuples(r))) ?? 0)
        case PGRES_TUPLES_OK:
            let rows = Int(hearth_PQntuples(r))
            let columns = Int(hearth_PQnfields(r))
            var values: [String?] = []
            values.reserveCapacity(rows * columns)
            for i in 0..<rows {
                for j in 0..<columns {
                    if hearth_PQgetisnull(r, Int32(i), Int32(j)) == 1 {
                        values.append(nil)
                    } else {
                        let length = Int(hearth_PQgetlength(r, Int32(i), Int32(j)))
                        let p = hearth_PQgetvalue(r, Int32(i), Int32(j))!
                        values.append(p.withMemoryRebound(to: UInt8.self, capacity: length) {
                            String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
                        })
                    }
                }
            }
            return PostgresRows(columns: columns, values: values, affected: rows)
        default:
            throw failure(conn, r, sql: sql)
        }
    }

    /// Runs `sql`, a `COPY … FROM STDIN` statement, sending the bytes `next` hands out (the
    /// rows in COPY's text format, any number of whole or partial rows per call; nil when done)
    /// as its data; returns the number of rows copied. When `next` throws, the copy is ended
    /// with that error (the server discards the rows: nothing is copied) and the error
    /// rethrown.
    package func copyIn(_ sql: String, _ next: () throws -> [UInt8]?) throws -> Int {
        guard sharedURL == nil else { throw PostgresError("COPY needs a connection of its own (PostgresBackend.connect()), not the shared one") }
        return try mutex.withLock { _ throws(any Error) -> Int in
            let conn = try open()
            statements?.add()
            guard let start = hearth_PQexec(conn, sql) else { throw failure(conn, nil, sql: sql) }
            let status = hearth_PQresultStatus(start)
            guard status == PGRES_COPY_IN else {
                defer { hearth_PQclear(start) }
                throw failure(conn, start, sql: sql)
            }
            hearth_PQclear(start)
            var thrown: (any Error)?
            do {
                while let bytes = try next() {
                    if bytes.isEmpty { continue }
                    let sent = bytes.withUnsafeBufferPointer { buffer in
                        buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                            hearth_PQputCopyData(conn, $0, Int32(buffer.count))
                        }
                    }
                    guard sent == 1 else { throw failure(conn, nil, sql: sql) }
                }
            } catch { thrown = error }
            guard hearth_PQputCopyEnd(conn, thrown == nil ? nil : "the client stopped the copy") == 1 else {
                _ = finishCopy(conn)
                throw thrown ?? failure(conn, nil, sql: sql)
            }
            let (ok, rows, error) = finishCopy(conn)
            if let thrown { throw thrown }
            guard ok else { throw PostgresError("PostgreSQL: \(redacted(error)) (in COPY …)") }
            return rows
        }
    }

    /// Runs `sql`, a `COPY … TO STDOUT` statement, handing `body` each message of data the
    /// server sends, as libpq received it (the buffer is freed when `body` returns); returns
    /// the number of rows copied. When `body` throws, the rest of the data is read and dropped,
    /// so the connection stays usable, and the error rethrown.
    package func copyOut(_ sql: String, _ body: (UnsafeRawBufferPointer) throws -> Void) throws -> Int {
        try mutex.withLock { _ throws(any Error) -> Int in
            defer { giveBack() }
            let conn = try open()
            statements?.add()
            guard let start = hearth_PQexec(conn, sql) else { throw failure(conn, nil, sql: sql) }
            guard hearth_PQresultStatus(start) == PGRES_COPY_OUT else {
                defer { hearth_PQclear(start) }
                throw failure(conn, start, sql: sql)
            }
            hearth_PQclear(start)
            var thrown: (any Error)?
            var received: Int32 = 0
            while true {
                var buffer: UnsafeMutablePointer<CChar>?
                received = hearth_PQgetCopyData(conn, &buffer, 0)
                guard received > 0, let buffer else { break }   // -1: the copy is done; -2: it failed
                defer { hearth_PQfreemem(buffer) }
                guard thrown == nil else { continue }
                do { try body(UnsafeRawBufferPointer(start: buffer, count: Int(received))) } catch { thrown = error }
            }
            let lost = received == -2 ? String(cString: hearth_PQerrorMessage(conn)).trimmingCharacters(in: .whitespacesAndNewlines) : ""
            let (ok, rows, error) = finishCopy(conn)
            if let thrown { throw thrown }
            guard ok, received == -1 else {
                let message = error.isEmpty ? (lost.isEmpty ? "the connection was lost" : lost) : error
                throw PostgresError("PostgreSQL: \(redacted(message)) (in COPY …)")
            }
            return rows
        }
    }

    /// Reads the results of a finished copy until libpq has none left: whether it succeeded,
    /// the rows it copied, and the server's message when it did not.
    private func finishCopy(_ conn: OpaquePointer) -> (ok: Bool, rows: Int, error: String) {
        var ok = true
        var rows = 0
        var error = ""
        while let r = hearth_PQgetResult(conn) {
            if hearth_PQresultStatus(r) == PGRES_COMMAND_OK {
                rows += Int(String(cString: hearth_PQcmdTuples(r))) ?? 0
            } else {
                ok = false
                if let m = hearth_PQresultErrorMessage(r) { error = String(cString: m).trimmingCharacters(in: .whitespacesAndNewlines) }
            }
            hearth_PQclear(r)
        }
        return (ok, rows, error)
    }

    private func failure(_ conn: OpaquePointer, _ result: OpaquePointer?, sql: String) -> PostgresError {
        var state: String?
        if let result, let s = hearth_PQresultErrorField(result, Int32(UInt8(ascii: "C"))) { state = String(cString: s) }
        let message = String(cString: hearth_PQerrorMessage(conn)).trimmingCharacters(in: .whitespacesAndNewlines)
        let statement = sql.split(separator: " ").prefix(3).joined(separator: " ")
        return PostgresError("PostgreSQL: \(redacted(message)) (in \(statement) …)", sqlState: state)
    }

    private func redacted(_ s: String) -> String { PostgresConnection.redact(s, secrets: secrets) }

    static func redact(_ s: String, secrets: [String]) -> String {
        var out = s
        for secret in secrets where !secret.isEmpty { out = out.replacingOccurrences(of: secret, with: "…") }
        return out
    }

    /// The URL itself and the password in it (`postgresql://user:PASSWORD@host/db` or `password=…`).
    static func secrets(in url: String) -> [String] {
        var out = [url]
        if let components = URLComponents(string: url), let password = components.password { out.append(password) }
        for part in url.split(separator: " ") where part.hasPrefix("password=") { out.append(String(part.dropFirst(9))) }
        return out.sorted { $0.count > $1.count }
    }
}

/// Passes `strings` to C as `const char * const *` (nil stays NULL: SQL NULL).
private func withCStrings<R>(_ strings: [String?], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> R) -> R {
    if strings.isEmpty { return body(nil) }
    var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { $0.map { strdup($0)! } }
    defer { for p in pointers { free(p) } }
    return pointers.withUnsafeMutableBufferPointer { buffer in
        buffer.baseAddress!.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: strings.count) { body($0) }
    }
}
