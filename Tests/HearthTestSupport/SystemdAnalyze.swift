import Foundation

/// `systemd-analyze`, for the tests of exported units: `security --offline=true` (the
/// exposure score) and `verify`.
public enum SystemdAnalyze {
    public static let path = "/usr/bin/systemd-analyze"
    public static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: path) }

    /// `systemd-analyze ARGS`: its exit status and everything it printed (stdout and stderr).
    public static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = out
        try process.run()
        let output = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, output)
    }

    /// `systemd-analyze security --offline=true UNIT`: the overall exposure (e.g. 1.2; nil if
    /// there is none in the output), and the output.
    public static func exposure(of unit: String) throws -> (score: Double?, output: String) {
        let (_, output) = try run(["security", "--offline=true", "--no-pager", unit])
        // "→ Overall exposure level for hearth.service: 1.2 OK 🙂"
        guard let line = output.split(separator: "\n").last(where: { $0.contains("Overall exposure level") }),
            let word = line.split(separator: ":").last?.split(separator: " ").first
        else { return (nil, output) }
        return (Double(word), output)
    }

    /// `systemd-analyze verify --man=no UNITS`.
    public static func verify(_ units: [String]) throws -> (status: Int32, output: String) {
        try run(["verify", "--man=no"] + units)
    }
}
