import Testing
import Foundation
import HearthKit
import HearthDataDirectory
import HearthStore
import HearthHost
import HearthOutbound
import Jobs
import Logging
import HearthTestSupport

/// A throwaway data directory for job tests: write documents as JSON text, run a job with
/// a given `--now`, read back exactly what is on disk.
struct TestDataDirectory {
    let directory: TempDirectory
    var root: String { directory.path }

    init() throws {
        directory = try TempDirectory("hearth-test")
    }

    /// Writes `json` (any formatting) to `path` (`users/u1`, without `.json`).
    func write(_ path: String, _ json: String) throws {
        let file = root + "/" + path + ".json"
        try FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(json.utf8).write(to: URL(fileURLWithPath: file))
    }

    /// The file's text, or nil when absent.
    func text(_ path: String) -> String? {
        guard let d = FileManager.default.contents(atPath: root + "/" + path + ".json") else { return nil }
        return String(decoding: d, as: UTF8.self)
    }

    /// The document parsed (for field checks).
    func object(_ path: String) throws -> JSONObject? {
        guard let t = text(path) else { return nil }
        guard case .object(let o) = try JSONParser.parse(t) else { return nil }
        return o
    }

    /// Document ids in a collection.
    func ids(_ collection: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: root + "/" + collection)) ?? [])
            .filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }.map { String($0.dropLast(5)) }.sorted()
    }

    /// Runs a job at `now` (both T and S) with `config` TOML (dataDir is this directory).
    func run(_ job: String, now: String, dryRun: Bool = false, params: [String: String] = [:], config: String = "") async throws -> RunOutcome {
        let loader = ConfigLoader(jobs: JobCatalog.registry.descriptors, environment: [:])
        let cfg = try loader.parse(config, file: "test.toml", dataOverride: root)
        let data = try DataDirectory(root: root)
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        // No HTTP client: tests that need one build their own environment.
        let runner = Runner(config: cfg, data: data, registry: JobCatalog.registry, environment: JobEnvironment(notificationTypes: cfg.notificationTypes, pushProvider: cfg.push.provider), logger: logger)
        let date = try #require(Timestamp.parseISO8601(now))
        return try await runner.run(job, options: RunOptions(trigger: .cli, logicalTime: date, startTime: date, dryRun: dryRun, parameters: params))
    }

    func remove() { directory.remove() }
}

extension DemoData {
    /// Writes the demo documents into a data directory, as `hearth seed` does.
    @discardableResult
    func write(to root: String) throws -> Int {
        let writer = try DirectoryWriter(root: root)
        return try write(into: writer.put)
    }
}
