import Foundation
import HearthKit
import HearthStore

/// What the conformance suites (`Conformance/`) build their stores' contents from.
enum Conformance {
    static let t0 = Date(timeIntervalSince1970: 1_795_000_000)  // 2026-11-18T…Z, whole seconds

    static func path(_ text: String) throws -> DocumentPath { try DocumentPath(parsing: text) }

    static func object(_ json: String) throws -> JSONObject {
        guard case .object(let o) = try JSONParser.parse(Array(json.utf8)) else { throw StoreError("not an object: \(json)") }
        return o
    }

    /// A changeset creating each `path → JSON` (expected absent).
    static func creating(_ documents: [(String, String)]) throws -> Changeset {
        var c = Changeset()
        for (p, json) in documents { c.put(path: try path(p), action: .create, before: nil, after: try object(json), expected: nil) }
        return c
    }

    static func record(_ job: String, _ runID: String, start seconds: Double, status: RunRecord.Status = .succeeded, trigger: RunRecord.Trigger = .cli) -> RunRecord {
        let start = t0.addingTimeInterval(seconds)
        return RunRecord(runID: runID, job: job, trigger: trigger, logicalTime: start, start: start, end: start, attempt: 1, status: status, dryRun: false)
    }

    static func commit(_ store: any CommitStore, _ changeset: Changeset, runID: String = "r1") async throws -> CommitResult {
        let commit = RunCommit(job: "j", runID: runID, changeset: changeset, record: record("j", runID, start: 0))
        return try await store.commit(commit, holder: "test", timeout: .seconds(5))
    }

    /// `n` of each read document, "missing" or "invalid".
    static func outcomes(_ reads: [DocumentRead]) -> [String] {
        reads.map { read in
            switch read {
            case .document(let d): d.object["n"]?.intValue.map(String.init) ?? "?"
            case .missing: "missing"
            case .invalid: "invalid"
            }
        }
    }
}
