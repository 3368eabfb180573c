import Foundation
import HearthKit
import HearthHTTP

/// `Tests/Servers/webhook_receiver.py` for end-to-end tests: started on 127.0.0.1 with a
/// signing secret, it verifies every request's signature with Python's `hmac`, records it, and
/// answers as the path says (see the script).
final class WebhookReceiverProcess: @unchecked Sendable {
    // @unchecked: `Process` and the pipe are only touched by `start` and `stop`, which tests
    // call from one task.
    let port: Int
    private let process: Process
    private let stdin: Pipe

    struct Received: Decodable {
        var path: String
        var id: String?
        var signatureValid: Bool
        var type: String?
        var body: String
        var completedAt: Double?
    }

    private init(port: Int, process: Process, stdin: Pipe) {
        self.port = port
        self.process = process
        self.stdin = stdin
    }

    static func start(secret: String) throws -> WebhookReceiverProcess {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Servers/webhook_receiver.py").path
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", script, "--secret", secret]
        let stdin = Pipe()
        let stdout = Pipe()
        p.standardInput = stdin
        p.standardOutput = stdout
        p.standardError = FileHandle.nullDevice
        try p.run()
        var line: [UInt8] = []
        while true {
            let byte = stdout.fileHandleForReading.readData(ofLength: 1)
            guard let b = byte.first, b != UInt8(ascii: "\n") else { break }
            line.append(b)
        }
        guard let port = Int(String(decoding: line, as: UTF8.self)) else {
            kill(p.processIdentifier, SIGKILL)
            p.waitUntilExit()
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "webhook_receiver.py did not start"])
        }
        return WebhookReceiverProcess(port: port, process: p, stdin: stdin)
    }

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    func received() async throws -> [Received] {
        let client = try CurlHTTPClient()
        defer { client.shutdown() }
        let response = try await client.send(HTTPRequest(url: url("/_received")))
        return try JSONDecoder().decode([Received].self, from: Data(response.body))
    }

    func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        try? stdin.fileHandleForWriting.close()
    }

    deinit { stop() }
}
