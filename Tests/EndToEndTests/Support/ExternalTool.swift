import Foundation
import HearthKit

/// Runs a tool the tests need besides `hearth` (python3 with `prometheus_client`, chromium):
/// waited for on a `BlockingIO` thread. A missing tool is an error naming
/// `scripts/install-deps`, never a silent skip.
enum ExternalTool {
    struct Result: Sendable {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    struct Missing: Error, CustomStringConvertible {
        var what: String
        var description: String { "\(what) is not installed: run scripts/install-deps (it installs it)" }
    }

    /// The first of `names` found on PATH.
    static func find(_ names: [String]) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for name in names {
            for dir in path.split(separator: ":") where FileManager.default.isExecutableFile(atPath: "\(dir)/\(name)") {
                return "\(dir)/\(name)"
            }
        }
        return nil
    }

    static func run(_ executable: String, _ args: [String], stdin: String? = nil, in directory: String? = nil) async throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = args
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        let text = stdin ?? ""
        return await BlockingIO.run {
            input.fileHandleForWriting.write(Data(text.utf8))
            try? input.fileHandleForWriting.close()
            // Read both pipes to their end before waiting, so a chatty tool never blocks on a full pipe.
            let errData = Locked<Data>(Data())
            let group = DispatchGroup()
            DispatchQueue.global().async(group: group) { errData.value = err.fileHandleForReading.readDataToEndOfFile() }
            let outData = out.fileHandleForReading.readDataToEndOfFile()
            group.wait()
            process.waitUntilExit()
            return Result(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self), stderr: String(decoding: errData.value, as: UTF8.self))
        }
    }

    /// `python3 -c script` with `stdin`; exit status 3 from the script means a module is missing.
    static func python(_ script: String, stdin: String = "") async throws -> Result {
        guard let python = find(["python3"]) else { throw Missing(what: "python3") }
        let r = try await run(python, ["-c", script], stdin: stdin)
        if r.status == 3 { throw Missing(what: r.stderr.trimmingCharacters(in: .whitespacesAndNewlines)) }
        return r
    }
}

/// A value shared between two threads under a lock.
final class Locked<Value: Sendable>: @unchecked Sendable {
    // @unchecked: every access to `stored` holds `lock`.
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
