import Foundation
import Testing
import HearthKit

/// Runs the built `hearth` executable (next to the test bundle, or `$HEARTH_BIN`).
enum HearthProcess {
    struct Result: Sendable {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static var binary: String {
        if let env = ProcessInfo.processInfo.environment["HEARTH_BIN"] { return env }
        // The test bundle lives in the products directory (.build/debug/…xctest).
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = dir.appendingPathComponent("hearth").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return root.appendingPathComponent(".build/debug/hearth").path
    }

    /// The end-to-end tests fail (never skip) without the binary: a green run must mean they ran.
    struct BinaryMissing: Error, CustomStringConvertible {
        var path: String
        var description: String { "the hearth executable is not at \(path): run `swift build` first (or set HEARTH_BIN)" }
    }

    /// Runs `hearth args…` to completion in `directory`. The wait happens on a `BlockingIO`
    /// thread, never on a cooperative one, so the other tests' timers keep running meanwhile.
    @discardableResult
    static func run(_ args: [String], in directory: String? = nil, environment: [String: String] = [:], launcher: [String] = []) async throws -> Result {
        try await start(args, in: directory, environment: environment, launcher: launcher).finish()
    }

    struct Running: Sendable {
        var process: Process
        var stdoutPipe: Pipe
        var stderrPipe: Pipe

        /// Reads stdout, then stderr, to their ends and waits for the exit (off the cooperative pool).
        func finish() async -> Result {
            await BlockingIO.run { () -> Result in
                let out = stdoutPipe.fileHandleForReading.readDataToEndOfFile()
                let err = stderrPipe.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                return Result(status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self), stderr: String(decoding: err, as: UTF8.self))
            }
        }

        /// Waits until the child prints `needle` on stderr (e.g. that it paused before its
        /// commit), runs `meanwhile`, then reads both pipes to their ends and waits for the exit.
        func finish(after needle: String, _ meanwhile: () throws -> Void) async throws -> Result {
            let stderr = StderrCollector(stderrPipe)
            do { try await stderr.waitFor(needle, timeout: .seconds(60)) } catch {
                kill(process.processIdentifier, SIGKILL)
                await waitForExit()
                throw error
            }
            try meanwhile()
            let out = await BlockingIO.run { stdoutPipe.fileHandleForReading.readDataToEndOfFile() }
            await waitForExit()
            return Result(status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self), stderr: try await stderr.untilEnd())
        }

        /// Waits for the exit without reading the pipes (off the cooperative pool).
        func waitForExit() async {
            await HearthProcess.waitForExit(process)
        }
    }

    /// Waits for `process` to exit on a `BlockingIO` thread.
    static func waitForExit(_ process: Process) async {
        await BlockingIO.run { process.waitUntilExit() }
    }

    /// `launcher` runs the binary through another program (`setpriv … --`), which gets the
    /// binary and `args` after its own arguments.
    static func start(_ args: [String], in directory: String? = nil, environment: [String: String] = [:], launcher: [String] = []) throws -> Running {
        guard FileManager.default.isExecutableFile(atPath: binary) else { throw BinaryMissing(path: binary) }
        let p = Process()
        if let program = launcher.first {
            p.executableURL = URL(fileURLWithPath: program)
            p.arguments = Array(launcher.dropFirst()) + [binary] + args
        } else {
            p.executableURL = URL(fileURLWithPath: binary)
            p.arguments = args
        }
        var env = ProcessInfo.processInfo.environment
        env["HEARTH_CONFIG"] = nil
        for (k, v) in environment { env[k] = v }
        p.environment = env
        p.currentDirectoryURL = URL(fileURLWithPath: directory ?? FileManager.default.temporaryDirectory.path)
        let out = Pipe()
        let err = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = FileHandle.nullDevice
        try p.run()
        return Running(process: p, stdoutPipe: out, stderrPipe: err)
    }
}
