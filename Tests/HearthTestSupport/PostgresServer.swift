import CSpawn
import Foundation
import HearthKit
import HearthPostgres
import Synchronization

/// A real PostgreSQL server for the tests (Debian's `postgresql` package, see
/// scripts/install-deps): `initdb` + `pg_ctl start` in a temporary directory on a free port,
/// started once per test process and stopped when it exits. Run as root, the server runs as
/// the system user `hearthtest` (created if missing): PostgreSQL refuses to run as root.
/// Each test takes a database of its own (``database()``).
public final class PostgresServer: Sendable {
    public let port: Int
    public let directory: String

    /// Why the server could not start; the tests that need it fail with this message.
    public struct StartFailure: Error, CustomStringConvertible {
        public var description: String
    }

    /// `PG_BIN` or Debian's `/usr/lib/postgresql/<newest>/bin`.
    static var binDirectory: String? {
        if let env = ProcessInfo.processInfo.environment["PG_BIN"] { return env }
        let base = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: base)) ?? []).compactMap(Int.init).sorted()
        return versions.last.map { "\(base)/\($0)/bin" }
    }

    private static let started = Mutex<Task<PostgresServer, any Error>?>(nil)

    /// The process's server, started on first use. `initdb` and `pg_ctl start` take seconds
    /// (tens under load), so they run on a thread of their own and every caller awaits the same
    /// task: neither the cooperative pool nor ``BlockingIO``'s threads wait on them, and the
    /// tests that do not use PostgreSQL go on meanwhile.
    public static func shared() async throws -> PostgresServer {
        let task = started.withLock { task in
            if let task { return task }
            let starting = Task<PostgresServer, any Error> {
                try await withCheckedThrowingContinuation { continuation in
                    Thread { continuation.resume(with: Result { () throws(StartFailure) in try start() }) }.start()
                }
            }
            task = starting
            return starting
        }
        return try await task.value
    }

    private init(port: Int, directory: String) {
        self.port = port
        self.directory = directory
    }

    /// A new, empty database; returns its URL (user `hearth`, password `test-secret-pw`, which
    /// the server does not check: trust authentication).
    /// `copying`: a database URL to copy (`CREATE DATABASE … TEMPLATE`; nobody may be
    /// connected to it).
    public func database(copying template: String? = nil) async throws -> String {
        let name = "t_" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        let admin = url("postgres")
        let from = template.map { " TEMPLATE " + (URL(string: $0)?.lastPathComponent ?? "") } ?? ""
        try await BlockingIO.run { () throws(any Error) in _ = try PostgresConnection(url: admin).query("CREATE DATABASE \(name)\(from)") }
        return url(name)
    }

    public func url(_ database: String) -> String {
        "postgresql://hearth:test-secret-pw@127.0.0.1:\(port)/\(database)"
    }

    private static func start() throws(StartFailure) -> PostgresServer {
        guard let bin = binDirectory, FileManager.default.isExecutableFile(atPath: bin + "/initdb") else {
            throw StartFailure(description: "PostgreSQL's initdb was not found under /usr/lib/postgresql/*/bin (or $PG_BIN); run scripts/install-deps (Debian package postgresql)")
        }
        let root = getuid() == 0
        var template = Array((NSTemporaryDirectory() + "/hearth-pg.XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw StartFailure(description: "cannot create a temporary directory for PostgreSQL") }
        let dir = String(cString: made)
        var launcher: [String] = []
        if root {
            _ = shell(["/bin/sh", "-c", "id hearthtest >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin hearthtest"])
            guard shell(["/bin/chown", "hearthtest", dir]).status == 0 else {
                throw StartFailure(description: "cannot create or use the system user hearthtest to run PostgreSQL (it refuses to run as root)")
            }
            chmod(dir, 0o755)
            launcher = ["/usr/sbin/runuser", "-u", "hearthtest", "--"]
        }
        let initdb = shell(launcher + [bin + "/initdb", "-D", dir + "/db", "-U", "hearth", "--auth=trust", "-E", "UTF8", "--locale=C"])
        guard initdb.status == 0 else { throw StartFailure(description: "initdb failed: \(initdb.output)") }
        var lastError = ""
        for _ in 0..<5 {
            let port = Int.random(in: 20_000...60_000)
            let options = "-p \(port) -k \(dir) -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200"
            let start = shell(launcher + [bin + "/pg_ctl", "-D", dir + "/db", "-o", options, "-l", dir + "/server.log", "-w", "-t", "60", "start"])
            if start.status == 0 {
                let server = PostgresServer(port: port, directory: dir)
                stopAtExit(launcher: launcher, pgctl: bin + "/pg_ctl", directory: dir)
                return server
            }
            lastError = start.output + ((try? String(contentsOfFile: dir + "/server.log", encoding: .utf8)) ?? "")
        }
        throw StartFailure(description: "PostgreSQL did not start (pg_ctl in \(dir)): \(lastError)")
    }

    private static let stopCommand = Mutex<[String]?>(nil)

    private static func stopAtExit(launcher: [String], pgctl: String, directory: String) {
        stopCommand.withLock { $0 = launcher + [pgctl, "-D", directory + "/db", "-m", "immediate", "stop"] }
        atexit {
            if let command = PostgresServer.stopCommand.withLock({ $0 }) {
                _ = PostgresServer.shell(command)
                let dir = String(command[command.count - 4].dropLast(3))
                try? FileManager.default.removeItem(atPath: dir)
            }
        }
    }

    /// Runs a command to completion; its exit status and combined output (through a file:
    /// the server `pg_ctl` starts inherits its output and would hold a pipe open). Spawned with
    /// the product's `hearth_spawn` (no descriptor but 0, 1 and 2 reaches the child) and
    /// reaped with `waitpid` directly. The server outlives the command: had it inherited the
    /// socket pair Foundation's `Process` watches for another child's exit, waiting for that
    /// child would never end.
    static func shell(_ arguments: [String]) -> (status: Int32, output: String) {
        let log = NSTemporaryDirectory() + "/hearth-pg-command-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).log"
        defer { unlink(log) }
        let input = open("/dev/null", O_RDONLY | O_CLOEXEC)
        let output = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        defer {
            if input >= 0 { close(input) }
            if output >= 0 { close(output) }
        }
        guard input >= 0, output >= 0 else { return (127, "\(log): \(String(cString: strerror(errno)))") }
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for a in argv { free(a) } }
        var pid: pid_t = 0
        let rc = hearth_spawn(&pid, arguments[0], argv, environ, FileManager.default.currentDirectoryPath, [input, output, output])
        guard rc == 0 else { return (127, "\(arguments[0]): \(String(cString: strerror(rc)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1, errno == EINTR {}
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        let exited = status & 0x7f == 0
        return (exited ? (status >> 8) & 0xff : 128 + (status & 0x7f), text)
    }
}
