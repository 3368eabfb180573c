import Foundation
import HearthStore
import Testing

/// What every backend's ``AuditLog`` does (``Backend``): entries kept whole, newest first.
@Suite("audit log conformance")
struct AuditLogConformanceTests {
    @Test(arguments: Backend.allCases)
    func theAuditLogKeepsEveryFieldNewestFirstByJobAndLimit(_ backend: Backend) async throws {
        let (store, remove) = try await backend.make()
        defer { remove() }
        #expect(try store.auditEntries(job: nil, limit: nil) == [])
        let entries = [
            AuditEntry(time: Conformance.t0, action: .pause, job: "a", note: "new rates", outcome: "ok", via: .cli, user: "alice", sudoUser: "bob"),
            AuditEntry(time: Conformance.t0 + 1, action: .run, job: "b", outcome: "refused: b is paused", via: .http, token: "ops", peer: "127.0.0.1"),
            AuditEntry(time: Conformance.t0 + 2, action: .outboxRetry, job: nil, outcome: "ok", via: .http, token: "ops", peer: "::1", target: "push-1"),
            AuditEntry(time: Conformance.t0 + 3, action: .resume, job: "a", outcome: "ok", via: .cli, user: "alice"),
        ]
        for e in entries { try store.appendAudit(e) }
        #expect(try store.auditEntries(job: nil, limit: nil) == entries.reversed())
        #expect(try store.auditEntries(job: "a", limit: nil) == [entries[3], entries[0]])
        #expect(try store.auditEntries(job: nil, limit: 2) == [entries[3], entries[2]])
    }

    @Test(arguments: Backend.allCases)
    func aJobWithoutEntriesHasNoneAndALimitBeyondTheEntriesGivesThemAll(_ backend: Backend) async throws {
        let (store, remove) = try await backend.make()
        defer { remove() }
        let entries = [
            AuditEntry(time: Conformance.t0, action: .pause, job: "a", outcome: "ok", via: .cli, user: "alice"),
            AuditEntry(time: Conformance.t0 + 1, action: .resume, job: "a", outcome: "ok", via: .cli, user: "alice"),
        ]
        for e in entries { try store.appendAudit(e) }
        #expect(try store.auditEntries(job: "b", limit: nil) == [])
        #expect(try store.auditEntries(job: "a", limit: 10) == [entries[1], entries[0]])
    }
}
