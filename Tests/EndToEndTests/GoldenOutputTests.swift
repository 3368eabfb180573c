import Foundation
import Testing
import HearthTestSupport

/// Every job's output on a small seeded data directory, byte for byte, against the golden files
/// in `Fixtures/golden/` (docs/performance.md#golden-files): what performance work must never
/// change. Regenerate them — only for an intended change of a job's output — with
/// `HEARTH_UPDATE_GOLDEN=1 swift test --filter GoldenOutputTests`, and review the diff.
@Suite("golden outputs of every job")
struct GoldenOutputTests {
    static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    static let goldenDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().path + "/Fixtures/golden"
    static let now = "2026-11-18T12:00:00Z"
    static let seedArguments = ["--users", "100", "--seed", "5"]

    /// The twelve compiled-in jobs and the two shipped command jobs (`functions/`).
    static let jobs = [
        "leaderboard-rebuild", "weekly-bonus", "xp-award", "achievement-unlock", "streak-reset", "gig-quality-score",
        "notification-fanout", "gift-settle", "report-triage", "xp-leaderboard", "friend-notify", "conversation-sync", "expire-gigs", "daily-digest",
    ]

    /// The built-in jobs with their defaults, plus the two command jobs of docs/functions.md.
    static var config: String {
        """
        dataDir = "d"
        timeZone = "UTC"
        [notifications]
        types = ["gift_received", "friend_request", "friend_accepted", "achievement_unlocked", "gig_expired"]
        [jobs.expire-gigs]
        command = ["python3", "\(repo)/functions/expire_gigs.py"]
        reads = ["gigs", "users"]
        writes = ["gigs", "notifications"]
        schedule = "0 * * * *"
        params = { maxAgeDays = 30 }
        [jobs.daily-digest]
        command = ["node", "\(repo)/functions/daily_digest.js"]
        reads = ["notifications", "users", "digests"]
        writes = ["digests"]
        schedule = "0 8 * * *"
        """
    }

    @Test(arguments: jobs)
    func aRunOnTheSeededDataWritesExactlyItsGoldenOutput(job: String) async throws {
        let s = try TempDirectory("hearth-golden")
        defer { s.remove() }
        let seed = try await HearthProcess.run(["seed", "--out", s.path + "/d"] + Self.seedArguments)
        #expect(seed.status == 0, "\(seed.stderr)")
        try s.write("hearth.toml", Self.config)
        let before = TreeSnapshot(s.path + "/d", includeState: true)
        let run = try await HearthProcess.run(["run", job, "--config", "hearth.toml", "--now", Self.now], in: s.path)
        #expect(run.status == 0, "\(run.stderr)")
        let output = Self.output(job: job, stdout: run.stdout, before: before, after: TreeSnapshot(s.path + "/d", includeState: true))

        let golden = Self.goldenDirectory + "/\(job).txt"
        if ProcessInfo.processInfo.environment["HEARTH_UPDATE_GOLDEN"] == "1" {
            try FileManager.default.createDirectory(atPath: Self.goldenDirectory, withIntermediateDirectories: true)
            try output.write(to: URL(fileURLWithPath: golden))
        }
        let expected = try #require(FileManager.default.contents(atPath: golden), "no golden file \(golden)")
        if output != expected {
            let actual = s.path + "-\(job).actual.txt"
            try? output.write(to: URL(fileURLWithPath: actual))
            Issue.record("\(job): output differs from \(golden) (kept in \(actual)); first difference: \(Self.firstDifference(expected, output))")
        }
    }

    /// The run's summary line, then every file the run created, changed or deleted, in path
    /// order, with its exact bytes. Left out, because they differ from run to run: the run
    /// record and the locks (a random run id, wall-clock times). In the outbox and the ledger,
    /// that run id is replaced by `RUN`, and the wall-clock `finishedAt` of a message the run
    /// dropped (no push provider or webhook configured) by `WALL`.
    static func output(job: String, stdout: String, before: TreeSnapshot, after: TreeSnapshot) -> Data {
        let runID = after.files.keys.lazy.compactMap { Self.runID(job: job, inPath: $0) }.first
        func normalized(_ data: Data) -> Data {
            var text = String(decoding: data, as: UTF8.self)
            if let runID { text = text.replacingOccurrences(of: runID, with: "RUN") }
            text = text.replacingOccurrences(of: #""finishedAt": "[^"]*""#, with: #""finishedAt": "WALL""#, options: .regularExpression)
            return Data(text.utf8)
        }
        var out = Data("hearth run \(job) --now \(now) on hearth seed \(seedArguments.joined(separator: " "))\n".utf8)
        out += Data("\(stdout.split(separator: "\n").last ?? "")\n".utf8)
        let paths = Set(before.files.keys).union(after.files.keys).filter(isOutput).sorted()
        for path in paths where before.files[path]?.bytes != after.files[path]?.bytes {
            let shown = runID.map { path.replacingOccurrences(of: $0, with: "RUN") } ?? path
            guard let entry = after.files[path] else {
                out += Data("== deleted \(shown)\n".utf8)
                continue
            }
            out += Data("== \(before.files[path] == nil ? "created" : "changed") \(shown) (\(entry.bytes.count) bytes)\n".utf8)
            out += normalized(entry.bytes)
            if entry.bytes.last != UInt8(ascii: "\n") { out += Data("\n== (no newline at end)\n".utf8) }
        }
        return out
    }

    /// Documents, the outbox and the ledger; not run records, locks or scheduler state.
    static func isOutput(_ path: String) -> Bool {
        !path.hasPrefix(".hearth/") || path.hasPrefix(".hearth/outbox/") || path.hasPrefix(".hearth/ledger/")
    }

    /// The run id in the name of the run's record, `.hearth/runs/<job>/<runId>.json`.
    static func runID(job: String, inPath path: String) -> String? {
        let prefix = ".hearth/runs/\(job)/"
        guard path.hasPrefix(prefix), path.hasSuffix(".json") else { return nil }
        return String(path.dropFirst(prefix.count).dropLast(5))
    }

    /// "line N" of the first line that differs, with both versions.
    static func firstDifference(_ expected: Data, _ actual: Data) -> String {
        let e = String(decoding: expected, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        let a = String(decoding: actual, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        for i in 0..<max(e.count, a.count) where (i < e.count ? e[i] : nil) != (i < a.count ? a[i] : nil) {
            return "line \(i + 1): expected \(i < e.count ? String(e[i]) : "<end>"), got \(i < a.count ? String(a[i]) : "<end>")"
        }
        return "none"
    }
}
