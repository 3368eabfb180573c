import Foundation
import HearthKit
import HearthDataDirectory
import HearthStore
import HearthHost
import Testing

/// Checks shared by the tests of `weekly-bonus`, `xp-award`, `achievement-unlock` and
/// `streak-reset`.
enum GamificationCheck {
    /// Every document under the data directory (`collection/id` → file text); Hearth's own
    /// `.hearth/` state is left out.
    static func snapshot(_ d: TestDataDirectory) -> [String: String] {
        var out: [String: String] = [:]
        guard let walker = FileManager.default.enumerator(atPath: d.root) else { return out }
        while let rel = walker.nextObject() as? String {
            if rel.split(separator: "/").contains(where: { $0.hasPrefix(".") }) { continue }
            guard rel.hasSuffix(".json") else { continue }
            let key = String(rel.dropLast(5))
            out[key] = d.text(key)
        }
        return out
    }

    /// The file's modification time (to prove a document was not rewritten).
    static func mtime(_ d: TestDataDirectory, _ path: String) -> Date? {
        (try? FileManager.default.attributesOfItem(atPath: d.root + "/" + path + ".json"))?[.modificationDate] as? Date
    }

    /// The ids of the messages waiting in the outbox (single files and batches), sorted.
    static func pendingOutbox(_ d: TestDataDirectory) -> [String] {
        guard let data = try? DataDirectory(root: d.root) else { return [] }
        return ((try? DirectoryOutboxFolders.messages(in: .pending, data: data)) ?? []).map(\.id).sorted()
    }

    /// Dry-runs `job`, checks that nothing was written, runs it for real, and checks that the
    /// plan lists exactly what the real run wrote: the same paths and actions, each created
    /// document byte for byte, each update's field changes applied to the old document giving
    /// the new file byte for byte, and the same outbox messages (queued only by the real run).
    /// Returns the real run's outcome.
    @discardableResult
    static func expectPlanMatchesRun(
        _ d: TestDataDirectory, _ job: String, now: String, params: [String: String] = [:], config: String = "",
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> RunOutcome {
        let before = snapshot(d)
        let outboxBefore = pendingOutbox(d)
        let dry = try await d.run(job, now: now, dryRun: true, params: params, config: config)
        #expect(dry.error == nil, sourceLocation: sourceLocation)
        #expect(snapshot(d) == before, "a dry run wrote documents", sourceLocation: sourceLocation)
        #expect(pendingOutbox(d) == outboxBefore, "a dry run queued messages", sourceLocation: sourceLocation)

        let real = try await d.run(job, now: now, params: params, config: config)
        #expect(real.error == nil, sourceLocation: sourceLocation)
        let after = snapshot(d)
        var written: [String: String] = [:]
        for (p, text) in after where before[p] != text { written[p] = before[p] == nil ? "create" : "update" }
        for p in before.keys where after[p] == nil { written[p] = "delete" }
        let planned = Dictionary(uniqueKeysWithValues: dry.plan.changes.map { ($0.path.description, $0.action.rawValue) })
        #expect(planned == written, sourceLocation: sourceLocation)

        for ch in dry.plan.changes {
            let p = ch.path.description
            switch ch.action {
            case .create:
                let doc = try #require(ch.document, sourceLocation: sourceLocation)
                #expect(String(decoding: JSONWriter.document(doc), as: UTF8.self) == after[p], "\(p)", sourceLocation: sourceLocation)
            case .update:
                guard let old = before[p], case .object(var o) = try JSONParser.parse(old) else {
                    Issue.record("\(p): no document before the update", sourceLocation: sourceLocation)
                    continue
                }
                for f in ch.fields { o[f.field] = f.after }
                #expect(String(decoding: JSONWriter.document(o), as: UTF8.self) == after[p], "\(p)", sourceLocation: sourceLocation)
            case .delete:
                #expect(after[p] == nil, sourceLocation: sourceLocation)
            }
        }
        #expect(dry.plan.messages == real.plan.messages, sourceLocation: sourceLocation)
        #expect(dry.plan.warnings == real.plan.warnings, sourceLocation: sourceLocation)
        let queued = Set(pendingOutbox(d)).subtracting(outboxBefore)
        #expect(queued == Set(real.plan.messages.map(\.id)), sourceLocation: sourceLocation)
        return real
    }

    /// Runs `job` under `onInvalidDocument = "fail"` and checks it fails with
    /// ``InvalidInputError`` naming `message`, committing nothing.
    static func expectFailsOnInvalid(
        _ d: TestDataDirectory, _ job: String, now: String, config: String = "", message: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let before = snapshot(d)
        let outboxBefore = pendingOutbox(d)
        let failing = try await d.run(job, now: now, config: config + "\n[defaults]\nonInvalidDocument = \"fail\"\n")
        let error = failing.error as? InvalidInputError
        #expect(error != nil, sourceLocation: sourceLocation)
        #expect(error?.issues.map(\.description) == [message], sourceLocation: sourceLocation)
        #expect(failing.record.status == .failed, sourceLocation: sourceLocation)
        #expect(snapshot(d) == before, "a failed run wrote documents", sourceLocation: sourceLocation)
        #expect(pendingOutbox(d) == outboxBefore, "a failed run queued messages", sourceLocation: sourceLocation)
    }
}

extension TestDataDirectory {
    /// Writes a document exactly as Hearth would (the text plus a trailing newline), so an
    /// untouched document can be compared with its input literally.
    func writeDocument(_ path: String, _ json: String) throws {
        try write(path, json + "\n")
    }

    /// The file's text without its trailing newline (compares with a `"""` literal).
    func documentText(_ path: String) -> String? {
        guard let t = text(path) else { return nil }
        return t.hasSuffix("\n") ? String(t.dropLast()) : t
    }
}
