import Foundation
import HearthKit
import HearthStore
import Testing

/// What every backend's ``OutboxStore`` does (``Backend``): a message queued outside a commit
/// waits pending as queued, and endpoints a 410 disabled are kept by name.
@Suite("outbox store conformance")
struct OutboxConformanceTests {
    @Test(arguments: Backend.allCases)
    func disabledEndpointsAreRecordedByName(_ backend: Backend) async throws {
        let (store, remove) = try await backend.make()
        defer { remove() }
        #expect(try store.disabledEndpoints().isEmpty)
        let entry = DisabledEndpoint(configHash: "abc", disabledAt: Conformance.t0, reason: "410 Gone")
        try store.disableEndpoint("crm", entry)
        #expect(try store.disabledEndpoints() == ["crm": entry])
    }

    @Test(arguments: Backend.allCases)
    func disablingAnEndpointAgainReplacesItsEntryAndKeepsTheOthers(_ backend: Backend) async throws {
        let (store, remove) = try await backend.make()
        defer { remove() }
        let crm = DisabledEndpoint(configHash: "abc", disabledAt: Conformance.t0, reason: "410 Gone")
        try store.disableEndpoint("crm", crm)
        try store.disableEndpoint("billing", DisabledEndpoint(configHash: "def", disabledAt: Conformance.t0, reason: "410 Gone"))
        let billing = DisabledEndpoint(configHash: "ghi", disabledAt: Conformance.t0 + 60, reason: "410 Gone (again)")
        try store.disableEndpoint("billing", billing)
        #expect(try store.disabledEndpoints() == ["billing": billing, "crm": crm])
    }

    @Test(arguments: Backend.allCases)
    func anEnqueuedMessageWaitsPendingAsQueuedAndIsDueAtOnce(_ backend: Backend) async throws {
        let (store, remove) = try await backend.make()
        defer { remove() }
        #expect(try store.outbox.hasPending() == false)
        let message = OutboxMessage.event("job.failed", id: "job.failed-a-r1", data: JSONObject([("job", .string("a"))]))
        try await store.enqueue(message, job: "a", runID: "r1", createdAt: Conformance.t0)

        let pending = try store.outbox.messages(in: .pending)
        #expect(pending.map(\.object) == [OutboxEnvelope.queued(message, job: "a", runID: "r1", createdAt: Conformance.t0)])
        #expect(try store.outbox.messages(in: .dead).isEmpty)
        #expect(try store.outbox.messages(in: .dropped).isEmpty)
        // Due at once: no later than its creation (a data directory counts a message never
        // attempted as due since ever, the others from its creation).
        let due = try #require(try store.outbox.nextDueDate())
        #expect(due <= Conformance.t0)
        #expect(try store.outbox.hasPending())
    }
}
