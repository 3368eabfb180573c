import Foundation
import HearthKit
import HearthDataDirectory
import HearthStore
import HearthHost
import Jobs
import Logging
import Testing
import HearthTestSupport

/// Mutates valid demo documents (wrong types, truncation, huge numbers, deep nesting, invalid
/// UTF-8) and runs every job over them: no job may crash, every document that is not even
/// JSON must be reported by path, and no reported document may be rewritten.
@Suite("document fuzzing")
struct DocumentFuzzTests {
    static let replacements: [String] = [
        "\"12\"", "null", "[]", "{}", "true", "-1", "1e400", "99999999999999999999999", "-9223372036854775809",
        "1.5", "\"\"", "\"../../etc/passwd\"", "\"2026-13-45T99:99:99Z\"", "{\"_seconds\": \"x\"}", "[1, \"a\", null]",
        String(repeating: "[", count: 300) + String(repeating: "]", count: 300), "\"\\u0000\"", "\"\u{7}\"",
    ]

    /// One mutation of a document's bytes; `brokenJSON` when the result cannot parse.
    static func mutate(_ text: String, _ rng: inout SplitMix64) -> (bytes: [UInt8], brokenJSON: Bool) {
        var bytes = Array(text.utf8)
        switch rng.next() % 6 {
        case 0:  // truncate
            let cut = Int(rng.next() % UInt64(max(bytes.count - 1, 1)))
            return (Array(bytes.prefix(max(cut, 1))), true)
        case 1:  // invalid UTF-8 inside a string value
            if let q = bytes.lastIndex(of: UInt8(ascii: "\"")), q > 0 {
                bytes.insert(contentsOf: [0xC3, 0x28, 0xFF], at: q)
                return (bytes, true)
            }
            return ([0xFF], true)
        default:  // replace one field's value
            guard case .object(var o)? = try? JSONParser.parse(text), !o.isEmpty else { return (bytes, false) }
            let key = o.keys[Int(rng.next() % UInt64(o.count))]
            let raw = replacements[Int(rng.next() % UInt64(replacements.count))]
            o[key] = .string("__MUTATION__")
            let rendered = String(decoding: JSONWriter.document(o), as: UTF8.self).replacingOccurrences(of: "\"__MUTATION__\"", with: raw)
            return (Array(rendered.utf8), (try? JSONParser.parse(rendered)) == nil)
        }
    }

    @Test func tenThousandMutatedDocumentsCrashNoJobAndAreNeverRewritten() async throws {
        let d = try TestDataDirectory()
        defer { d.remove() }
        try DemoData(users: 600, seed: 11).write(to: d.root)
        // 42 unless HEARTH_TEST_SEED says otherwise: the assertions hold for any seed.
        let seed = try TestSeed(fixed: 42)
        var rng = seed.generator()
        var mutated: [String: [UInt8]] = [:]
        var broken: Set<String> = []
        let collections = ["users", "transactions", "streaks", "notifications", "trades", "userChallenges", "collaborations", "userXP", "gigs", "achievements", "broadcasts"]
        var candidates: [String] = []
        for c in collections { for id in d.ids(c) { candidates.append("\(c)/\(id)") } }
        candidates.sort()
        while mutated.count < 10_000 && mutated.count < candidates.count {
            let path = candidates[Int(rng.next() % UInt64(candidates.count))]
            guard mutated[path] == nil, let text = d.text(path) else { continue }
            let (bytes, isBroken) = Self.mutate(text, &rng)
            try Data(bytes).write(to: URL(fileURLWithPath: d.root + "/" + path + ".json"))
            mutated[path] = bytes
            if isBroken { broken.insert(path + ".json") }
        }
        #expect(mutated.count == 10_000, "\(seed)")

        let loader = ConfigLoader(jobs: JobCatalog.registry.descriptors, environment: [:])
        let config = try loader.parse("", file: "fuzz.toml", dataOverride: d.root)
        let data = try DataDirectory(root: d.root)
        var logger = Logger(label: "fuzz")
        logger.logLevel = .critical
        let report = try await DataCheck(config: config, data: data, registry: JobCatalog.registry, logger: logger)
            .run(now: Timestamp.parseISO8601("2026-11-18T12:00:00Z")!)
        let reported = Set(report.issues.map(\.file))
        var fieldIssues = 0
        for issue in report.issues {
            #expect(issue.description.hasPrefix(issue.file + ": "))
            #expect(FileManager.default.fileExists(atPath: d.root + "/" + issue.file), "\(issue.file) named but absent")
            // A document that is a valid JSON object is invalid because of a field: the field is named.
            if !broken.contains(issue.file), let bytes = FileManager.default.contents(atPath: d.root + "/" + issue.file),
                case .object? = try? JSONParser.parse(Array(bytes))
            {
                #expect(issue.description.contains(": field \""), "\(issue.description)")
                fieldIssues += 1
            }
        }
        print("fuzz: \(mutated.count) documents mutated, \(broken.count) not JSON, \(report.issues.count) reported, \(fieldIssues) of them naming the field")
        #expect(fieldIssues > 0, "\(seed)")
        // Every document that is not even JSON is named, in every collection some job reads.
        let read = Set(JobCatalog.registry.descriptors.flatMap(\.reads))
        for path in broken where read.contains(String(path.split(separator: "/")[0])) {
            #expect(reported.contains(path), "\(path) is broken JSON but no job named it (\(seed))")
        }
        // Real runs of every job an app does not call (a callable one answers calls only):
        // nothing a job reports as invalid is rewritten by that job.
        let runner = Runner(config: config, data: data, registry: JobCatalog.registry, logger: logger)
        let t = Timestamp.parseISO8601("2026-11-18T12:00:00Z")!
        for job in JobCatalog.registry.descriptors.filter({ !$0.callable }).map(\.name) {
            var before: [String: [UInt8]] = [:]
            for path in mutated.keys { before[path] = FileManager.default.contents(atPath: d.root + "/" + path + ".json").map { Array($0) } }
            let outcome = try await runner.run(job, options: RunOptions(logicalTime: t, startTime: t))
            if let error = outcome.error { Issue.record("\(job) failed on fuzzed data: \(error)") }
            for warning in outcome.record.warnings {
                // Only documents invalid as input (what `hearth check` names): a warning may also
                // report a rule's outcome on a valid document, e.g. notification-fanout marking a
                // broadcast of an unknown type failed (docs/jobs/notification-fanout.md).
                guard let file = warning.split(separator: ":").first.map(String.init), file.hasSuffix(".json"),
                    reported.contains(file), let bytes = before[String(file.dropLast(5))]
                else { continue }
                #expect(FileManager.default.contents(atPath: d.root + "/" + file).map { Array($0) } == bytes, "\(job) rewrote \(file), which it reported invalid (\(seed))")
            }
        }
    }
}
