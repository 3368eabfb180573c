import Foundation
import Testing

/// Runs the built `hearth` executable (next to the test bundle, or `$HEARTH_BIN`).
enum HearthProcess {
    struct Result {
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

    static var available: Bool { FileManager.default.isExecutableFile(atPath: binary) }

    /// Runs `hearth args…` to completion in `directory`.
    @discardableResult
    static func run(_ args: [String], in directory: String? = nil, environment: [String: String] = [:]) throws -> Result {
        let p = try start(args, in: directory, environment: environment)
        let out = p.stdoutPipe.fileHandleForReading.readDataToEndOfFile()
        let err = p.stderrPipe.fileHandleForReading.readDataToEndOfFile()
        p.process.waitUntilExit()
        return Result(status: p.process.terminationStatus, stdout: String(decoding: out, as: UTF8.self), stderr: String(decoding: err, as: UTF8.self))
    }

    struct Running {
        var process: Process
        var stdoutPipe: Pipe
        var stderrPipe: Pipe
    }

    static func start(_ args: [String], in directory: String? = nil, environment: [String: String] = [:]) throws -> Running {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        p.arguments = args
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

/// A temp directory for end-to-end tests.
struct Scratch {
    let path: String
    init() throws {
        let p = FileManager.default.temporaryDirectory.path + "/hearth-e2e-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: p, withIntermediateDirectories: true)
        path = p
    }
    func write(_ relative: String, _ text: String) throws {
        let file = path + "/" + relative
        try FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
    }
    func read(_ relative: String) -> String? {
        FileManager.default.contents(atPath: path + "/" + relative).map { String(decoding: $0, as: UTF8.self) }
    }
    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// Every regular file under a directory (skipping `.hearth/`): relative path → bytes and mtime.
struct TreeSnapshot: Equatable {
    struct Entry: Equatable {
        var bytes: Data
        var mtime: Date
    }
    var files: [String: Entry]

    init(_ root: String, includeState: Bool = false) {
        var out: [String: Entry] = [:]
        let fm = FileManager.default
        if let e = fm.enumerator(atPath: root) {
            while let rel = e.nextObject() as? String {
                if !includeState, rel.hasPrefix(".hearth") { continue }
                let full = root + "/" + rel
                let attrs = try? fm.attributesOfItem(atPath: full)
                guard attrs?[.type] as? FileAttributeType == .typeRegular else { continue }
                out[rel] = Entry(bytes: fm.contents(atPath: full) ?? Data(), mtime: attrs?[.modificationDate] as? Date ?? .distantPast)
            }
        }
        files = out
    }

    /// Same paths and bytes (mtimes ignored).
    func sameContent(as other: TreeSnapshot) -> Bool {
        files.count == other.files.count && files.allSatisfy { other.files[$0.key]?.bytes == $0.value.bytes }
    }
}
