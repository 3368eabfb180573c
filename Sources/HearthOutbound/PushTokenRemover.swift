import Foundation
import HearthKit
import HearthStore

/// Removes device tokens a push service declared dead (FCM `UNREGISTERED`, APNs 410) from the
/// users' documents: every token field of `users/{userId}` that a known provider reads
/// (``PushProviders/tokenFields``, with the configured provider's own).
///
/// Each removal is a follow-up commit through the storage backend
/// (``CommitStore/commitDocuments(_:id:holder:timeout:)``), like a job's: read the documents,
/// commit them unless one changed since it was read (the apps write them too; the data
/// directory also takes the writers' lock and finishes any crashed commit first); on a
/// conflict, read again and retry (up to 3 re-reads). Requests that arrive while a commit is in progress are batched
/// into the next one, so thousands of dead tokens cost a few commits, not thousands. The
/// blocking file and lock work runs off the Swift concurrency pool.
actor PushTokenRemover {
    /// A removal that could not be committed (lock busy, conflicts, I/O); the push stays
    /// pending for that token and is retried.
    struct Failure: Error, Sendable, CustomStringConvertible {
        var description: String
    }

    static let maxRereads = 3

    private let store: any StorageBackend
    private let lockTimeout: Duration
    private let fields: [DeviceTokens.Field]
    private var queued: [String: Set<String>] = [:]
    private var waiting: [CheckedContinuation<Result<Void, Failure>, Never>] = []
    private var flushing = false

    init(store: any StorageBackend, lockTimeout: Duration, fields: [DeviceTokens.Field]) {
        self.store = store
        self.lockTimeout = lockTimeout
        self.fields = fields
    }

    /// Removes `tokens` from `users/{userID}`; returns once that is committed (or there was
    /// nothing to remove: no such user, an invalid document, tokens already gone).
    func remove(_ tokens: [String], fromUser userID: String) async throws(Failure) {
        queued[userID, default: []].formUnion(tokens)
        let result = await withCheckedContinuation { continuation in
            waiting.append(continuation)
            if !flushing {
                flushing = true
                Task { await self.flush() }
            }
        }
        try result.get()
    }

    private func flush() async {
        while !queued.isEmpty {
            let batch = queued
            let waiters = waiting
            queued = [:]
            waiting = []
            let result: Result<Void, Failure>
            do {
                try await Self.commit(batch, fields: fields, store: store, lockTimeout: lockTimeout)
                result = .success(())
            } catch {
                result = .failure(Failure(description: "removing dead device tokens from users/: \(error)"))
            }
            for w in waiters { w.resume(returning: result) }
        }
        flushing = false
    }

    /// One follow-up commit removing `removals` (user id → tokens).
    static func commit(_ removals: [String: Set<String>], fields: [DeviceTokens.Field], store: any CommitStore, lockTimeout: Duration) async throws {
        var rereads = 0
        while true {
            let changeset = try await BlockingIO.run { () throws(any Error) -> Changeset in
                var changeset = Changeset()
                for (userID, tokens) in removals.sorted(by: { $0.key < $1.key }) {
                    guard let path = try? DocumentPath("users", userID), case .document(let doc) = store.read(path) else { continue }
                    let updated = DeviceTokens.removing(tokens, from: doc.object, fields: fields)
                    if !updated.sameContent(as: doc.object) {
                        changeset.put(.init(path: path, action: .update, before: doc.object, after: updated, expected: doc.version))
                    }
                }
                return changeset
            }
            if changeset.entries.isEmpty { return }
            let id = "outbox-tokens-\(Int64(Date().timeIntervalSince1970 * 1000))-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            switch try await store.commitDocuments(changeset, id: id, holder: "pid=\(getpid()) outbox token removal", timeout: lockTimeout) {
            case .committed:
                return
            case .conflict(let conflicts):
                rereads += 1
                if rereads > maxRereads {
                    throw ConflictError(paths: conflicts, attempts: rereads)
                }
            }
        }
    }
}
