import CSpawn
import Foundation
import HearthKit
import HearthStore
import Synchronization

/// PostgreSQL's change feed (docs/triggers.md#the-change-feed--postgresql): a connection of
/// its own that `LISTEN`s to the channel migration 4's triggers notify, and a thread of its own
/// that blocks in `poll()` on that connection's socket and on a stop pipe. Each notification
/// of a requested collection becomes a ``ChangeFeedEvent/changed(_:)``. When the connection
/// drops it connects again (backing off), `LISTEN`s again, and only then delivers
/// ``ChangeFeedEvent/lost(collections:reason:)``: a run that event starts reads everything
/// written until the feed was back. Ending the stream's iteration stops the thread and closes
/// the connection.
final class PostgresChangeFeed: Sendable {
    private let collections: Set<String>
    private let connect: @Sendable () throws -> PostgresConnection
    private let continuation: AsyncStream<ChangeFeedEvent>.Continuation
    /// The connection `start` opened, until the thread takes it (so that only the thread holds
    /// it, and closing it is the thread's dropping it).
    private let first: Mutex<PostgresConnection?>
    /// The pipe whose write end stops the thread (`stop`), closed by the thread when it ends.
    private let pipe: Mutex<(read: Int32, write: Int32)?>

    /// The first reconnect waits `reconnectMin`, then longer, up to `reconnectMax`.
    static let reconnectMin = Duration.milliseconds(100)
    static let reconnectMax = Duration.seconds(10)

    /// Connects, `LISTEN`s and starts the thread; errors doing so are thrown.
    static func start(collections: Set<String>, connect: @escaping @Sendable () throws -> PostgresConnection) throws -> AsyncStream<ChangeFeedEvent> {
        let connection = try listen(connect)
        var fds: [Int32] = [-1, -1]
        let failed = hearth_pipe_cloexec(&fds)
        guard failed == 0 else {
            throw PostgresError("cannot create a pipe for the change feed: \(String(cString: strerror(failed)))")
        }
        let (stream, continuation) = AsyncStream.makeStream(of: ChangeFeedEvent.self)
        let feed = PostgresChangeFeed(collections: collections, connect: connect, continuation: continuation, first: connection, pipe: (fds[0], fds[1]))
        continuation.onTermination = { _ in feed.stop() }
        Thread.detachNewThread { feed.run() }
        return stream
    }

    private init(
        collections: Set<String>, connect: @escaping @Sendable () throws -> PostgresConnection,
        continuation: AsyncStream<ChangeFeedEvent>.Continuation, first: PostgresConnection, pipe: (read: Int32, write: Int32)
    ) {
        self.collections = collections
        self.connect = connect
        self.continuation = continuation
        self.first = Mutex(first)
        self.pipe = Mutex(pipe)
    }

    /// A new connection listening to the channel, named in `pg_stat_activity`.
    private static func listen(_ connect: () throws -> PostgresConnection) throws -> PostgresConnection {
        let connection = try connect()
        connection.retire()  // it listens
        try connection.query("SELECT set_config('application_name', $1, false)", [applicationName])
        try connection.query("LISTEN \(PostgresSchema.changeFeedChannel)")
        return connection
    }

    /// The `application_name` of the feed's connection.
    static let applicationName = "hearth change feed"

    /// Wakes the thread to end (the stream's consumer stopped).
    private func stop() {
        pipe.withLock { p in
            guard let p else { return }
            var byte: UInt8 = 1
            _ = write(p.write, &byte, 1)
        }
    }

    /// The thread: wait, read, deliver; reconnect when the connection breaks; end when stopped.
    private func run() {
        guard let stopFD = pipe.withLock({ $0?.read }) else { return }
        var connection = first.withLock { c in
            defer { c = nil }
            return c
        }
        var random = SystemRandomNumberGenerator()
        var failures = 0
        var dropped = ""  // why the connection dropped
        var lastFailure = ""  // why the last reconnect failed
        loop: while true {
            if let c = connection {
                switch wait(stopFD, c.socket, timeout: -1) {
                case .stopped: break loop
                case .timedOut: continue
                case .readable:
                    do {
                        for n in try c.notifications() where n.channel == PostgresSchema.changeFeedChannel { deliver(n.payload) }
                    } catch {
                        dropped = String(describing: error)
                        connection = nil
                    }
                }
            } else {
                failures += 1
                let delay = RetryBackoff.delay(retry: failures, min: Self.reconnectMin, max: Self.reconnectMax, using: &random)
                let ms = delay.components.seconds * 1000 + delay.components.attoseconds / 1_000_000_000_000_000
                if case .stopped = wait(stopFD, -1, timeout: Int32(clamping: ms)) { break loop }
                do {
                    connection = try Self.listen(connect)
                    let attempts = failures == 1 ? "" : " after \(failures) attempts (the last failed: \(lastFailure))"
                    continuation.yield(.lost(collections: collections, reason: "the change feed's PostgreSQL connection dropped (\(dropped)); listening again\(attempts)"))
                    failures = 0
                } catch {
                    lastFailure = String(describing: error)
                }
            }
        }
        connection = nil  // PQfinish: the server ends the LISTEN
        pipe.withLock { p in
            if let fds = p {
                close(fds.read)
                close(fds.write)
            }
            p = nil
        }
        continuation.finish()
    }

    private enum Wake { case stopped, readable, timedOut }

    /// Blocks until the stop pipe or `socket` (when not -1) is readable, or `timeout`
    /// milliseconds pass (-1: no limit). A broken socket counts as readable: reading says why.
    private func wait(_ stopFD: Int32, _ socket: Int32, timeout: Int32) -> Wake {
        var fds = [pollfd(fd: stopFD, events: Int16(POLLIN), revents: 0), pollfd(fd: socket, events: Int16(POLLIN), revents: 0)]
        // A broken connection has no socket (-1): reading it says why.
        let count: nfds_t = socket >= 0 ? 2 : 1
        while true {
            let n = poll(&fds, count, socket < 0 && timeout < 0 ? 0 : timeout)
            if n < 0, errno == EINTR { continue }
            if fds[0].revents != 0 { return .stopped }
            if n > 0 || (socket < 0 && timeout < 0) { return .readable }
            return .timedOut
        }
    }

    /// Turns a payload (`{"sequence", "collection", "writer", "chain", "paths"}`) into a batch
    /// when its collection was asked for; an unreadable one means writes may be missed.
    private func deliver(_ payload: String) {
        guard case .object(let o)? = try? JSONParser.parse(payload), let collection = o["collection"]?.stringValue,
            let sequence = o["sequence"]?.intValue
        else {
            continuation.yield(.lost(collections: collections, reason: "an unreadable notification on \(PostgresSchema.changeFeedChannel): \(payload.prefix(200))"))
            return
        }
        guard collections.contains(collection) else { return }
        var paths: [DocumentPath]?
        if let listed = o["paths"]?.arrayValue {
            // A path that is not a valid document path (an app's odd id) names nothing to read
            // by: the run reads everything.
            let parsed = listed.compactMap { item in
                item.stringValue.flatMap { try? DocumentPath(components: $0.split(separator: "/", omittingEmptySubsequences: false).map(String.init)) }
            }
            if parsed.count == listed.count { paths = parsed }
        }
        let writer = o["writer"]?.stringValue
        let chain = Int(o["chain"]?.intValue ?? 0)
        continuation.yield(.changed(ChangeBatch(collection: collection, paths: paths, writer: writer, chain: chain, sequence: sequence)))
    }
}
