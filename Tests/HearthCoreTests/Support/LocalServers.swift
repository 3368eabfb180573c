import Dispatch
import Foundation

/// Helpers that start real servers for outbound tests: scripts in `Tests/Servers/` run with
/// `python3`, listening on 127.0.0.1 on a free port, and stopped by ``LocalServer/stop()``.
/// Each script also exits by itself when the test process goes away (it watches its stdin).
enum LocalServers {
    /// `Tests/Servers/`, found relative to this source file.
    static let serversDirectory: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Support
        .deletingLastPathComponent()  // HearthCoreTests
        .deletingLastPathComponent()  // Tests
        .appendingPathComponent("Servers")

    /// Whether an executable called `name` is on `PATH`.
    static func hasExecutable(_ name: String) -> Bool {
        executablePath(name) != nil
    }

    static func executablePath(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        for directory in ["/usr/sbin", "/sbin"] where FileManager.default.isExecutableFile(atPath: "\(directory)/\(name)") {
            return "\(directory)/\(name)"
        }
        return nil
    }

    /// Kills `process` with SIGKILL and waits, up to 10 s, until the kernel says it has exited.
    /// Not SIGTERM: a child started from a Swift concurrency thread inherits that thread's
    /// signal mask, in which SIGTERM is blocked. Not `waitUntilExit()` nor `isRunning`:
    /// Foundation notices the exit only once every copy of a socket the child inherited is
    /// closed, so a process that got a copy too (a server another spawn started at the same
    /// moment) keeps them true until that one ends, and this thread (often one of the test
    /// pool's few) would spin for the whole deadline. `waitid` with `WNOWAIT` sees the exit at
    /// once and leaves the child for Foundation to reap.
    static func kill(_ process: Process) {
        let pid = process.processIdentifier
        guard pid > 0, process.isRunning else { return }
        _ = Glibc.kill(pid, SIGKILL)
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            var info = siginfo_t()
            let result = waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT)
            // -1: no such child any more (Foundation reaped it); a pid: it has exited.
            if result == -1 && errno != EINTR { return }
            if result == 0 && info._sifields._sigchld.si_pid == pid { return }
            usleep(1_000)
        }
    }

    /// Whether `python3` can import every module in `modules`.
    static func pythonHasModules(_ modules: [String]) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", modules.map { "import \($0)" }.joined(separator: "; ")]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return false
        }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }

    /// The HTTP/1.1 server (`http_test_server.py`, standard library only).
    static func startHTTP1() async throws -> LocalServer {
        try await LocalServer.start(script: "http_test_server.py", arguments: [], scheme: "http")
    }

    /// The HTTP/2-over-TLS server (`h2_test_server.py`, needs PyPI `h2`) with `ca`'s server
    /// certificate.
    static func startHTTP2(ca: TestCertificateAuthority) async throws -> LocalServer {
        try await LocalServer.start(
            script: "h2_test_server.py",
            arguments: ["--cert", ca.serverCertificateFile, "--key", ca.serverKeyFile],
            scheme: "https"
        )
    }

    /// A TCP port on 127.0.0.1 that nothing listens on (bound, then closed, so connecting to it
    /// is refused).
    static func unusedPort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw LocalServerError.socket("socket() failed") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0 else { throw LocalServerError.socket("bind() failed") }
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { throw LocalServerError.socket("getsockname() failed") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Runs `Tests/Servers/<script>` with `python3`, `input` on its stdin, to its end; its
    /// stdout, or ``LocalServerError/commandFailed(_:log:)`` with its stderr when it fails.
    static func runScript(_ script: String, _ arguments: [String], input: String = "") async throws -> String {
        let directory = try temporaryDirectory("hearth-script")
        defer { try? FileManager.default.removeItem(at: directory) }
        let stdout = directory.appendingPathComponent("stdout"), stderr = directory.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: stdout.path, contents: nil)
        _ = FileManager.default.createFile(atPath: stderr.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", serversDirectory.appendingPathComponent(script).path] + arguments
        let stdin = Pipe()
        process.standardInput = stdin
        process.standardOutput = try FileHandle(forWritingTo: stdout)
        process.standardError = try FileHandle(forWritingTo: stderr)
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
                return
            }
            stdin.fileHandleForWriting.write(Data(input.utf8))
            try? stdin.fileHandleForWriting.close()
        }
        process.terminationHandler = nil  // the handler would keep the Process alive
        guard status == 0 else {
            throw LocalServerError.commandFailed(script, log: (try? String(contentsOf: stderr, encoding: .utf8)) ?? "")
        }
        return try String(contentsOf: stdout, encoding: .utf8)
    }

    /// A fresh temporary directory, removed by the caller.
    static func temporaryDirectory(_ prefix: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(prefix)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

enum LocalServerError: Error, CustomStringConvertible {
    case didNotStart(script: String, log: String)
    case socket(String)
    case commandFailed(String, log: String)

    var description: String {
        switch self {
        case .didNotStart(let script, let log): "\(script) did not start: \(log)"
        case .socket(let message): message
        case .commandFailed(let command, let log): "\(command) failed: \(log)"
        }
    }
}

/// A server process started by a test. `@unchecked Sendable`: `Process` is used only to start
/// it and, once, to stop it; both are guarded by the lock.
final class LocalServer: @unchecked Sendable {
    let port: Int
    let scheme: String
    private let process: Process
    private let stdinPipe: Pipe
    private let logFile: URL
    private let lock = NSLock()
    private var stopped = false

    /// `scheme://127.0.0.1:port`.
    var baseURL: String { "\(scheme)://127.0.0.1:\(port)" }

    private init(port: Int, scheme: String, process: Process, stdinPipe: Pipe, logFile: URL) {
        self.port = port
        self.scheme = scheme
        self.process = process
        self.stdinPipe = stdinPipe
        self.logFile = logFile
    }

    deinit {
        stop()
    }

    /// Runs `Tests/Servers/<script>` and waits (up to 20 s) for the port it prints.
    static func start(script: String, arguments: [String], scheme: String) async throws -> LocalServer {
        let scriptPath = LocalServers.serversDirectory.appendingPathComponent(script).path
        let logFile = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-\(script)-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", scriptPath] + arguments
        let stdinPipe = Pipe()
        let stdoutPipe = Pipe()
        process.standardInput = stdinPipe
        process.standardOutput = stdoutPipe
        process.standardError = try FileHandle(forWritingTo: logFile)
        try process.run()

        let firstLine = await readFirstLine(stdoutPipe.fileHandleForReading, timeout: .seconds(20))
        guard let firstLine, let port = Int(firstLine) else {
            LocalServers.kill(process)
            let log = (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
            try? FileManager.default.removeItem(at: logFile)
            throw LocalServerError.didNotStart(script: script, log: log.isEmpty ? "no port printed" : log)
        }
        return LocalServer(port: port, scheme: scheme, process: process, stdinPipe: stdinPipe, logFile: logFile)
    }

    /// Kills the server and waits for it to exit.
    func stop() {
        lock.lock()
        defer { lock.unlock() }
        guard !stopped else { return }
        stopped = true
        LocalServers.kill(process)
        try? stdinPipe.fileHandleForWriting.close()
        try? FileManager.default.removeItem(at: logFile)
    }

    /// Reads up to the first newline on a plain thread (the read blocks), then resumes.
    private static func readFirstLine(_ handle: FileHandle, timeout: Duration) async -> String? {
        let box = FirstLineBox()
        return await withCheckedContinuation { continuation in
            box.set(continuation)
            let thread = Thread {
                var bytes: [UInt8] = []
                while true {
                    let chunk = handle.readData(ofLength: 1)
                    guard let byte = chunk.first else { break }
                    if byte == UInt8(ascii: "\n") { break }
                    bytes.append(byte)
                }
                box.resume(bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self))
            }
            thread.start()
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(Int(timeout.components.seconds * 1000))) {
                box.resume(nil)
            }
        }
    }
}

/// Resumes a continuation once, whichever of "line read" and "timed out" comes first.
private final class FirstLineBox: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<String?, Never>?

    func set(_ continuation: CheckedContinuation<String?, Never>) {
        lock.lock()
        self.continuation = continuation
        lock.unlock()
    }

    func resume(_ value: String?) {
        lock.lock()
        let continuation = self.continuation
        self.continuation = nil
        lock.unlock()
        continuation?.resume(returning: value)
    }
}

/// A throwaway CA and a server certificate it signed, made by `Tests/Servers/make_test_ca.py`
/// (PyPI `cryptography`) in a temporary directory. Call ``remove()`` when done.
struct TestCertificateAuthority: Sendable {
    let directory: URL
    /// PEM of the CA certificate: pass as ``HTTPClientOptions/caFile``.
    var caFile: String { directory.appendingPathComponent("ca.pem").path }
    /// PEM chain: server certificate, then the CA.
    var serverCertificateFile: String { directory.appendingPathComponent("server.pem").path }
    /// PEM PKCS#8 server key.
    var serverKeyFile: String { directory.appendingPathComponent("server.key").path }

    /// A CA whose server certificate covers `names` (DNS names or IP addresses).
    static func make(names: [String] = ["localhost", "127.0.0.1"]) async throws -> TestCertificateAuthority {
        let directory = try LocalServers.temporaryDirectory("hearth-ca")
        do {
            _ = try await LocalServers.runScript("make_test_ca.py", [directory.path] + names)
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
        return TestCertificateAuthority(directory: directory)
    }

    func remove() {
        try? FileManager.default.removeItem(at: directory)
    }
}
