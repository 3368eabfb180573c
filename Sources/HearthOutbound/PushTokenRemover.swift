import Dispatch
import Foundation
import HearthKit
import HearthStore

/// Removes device tokens a push service declared dead (FCM `UNREGISTERED`, APNs 410) from the
/// users' documents: `fcmTokens` (array), the older `fcmToken` (string) and `apnsTokens`
/// (array) of `users/{userId}`.
///
/// Each removal is a follow-up commit through the ``Committer``, like a job's: read the
/// documents, take the writers' lock, finish any crashed commit, check that every document is
/// still the version read (the apps write them too), commit; on a conflict, read again and
/// retry (up to 3 re-reads). Requests that arrive while a commit is in progress are batched
/// into the next one, so thousands of dead tokens cost a few commits, not thousands. The
/// blocking file and lock work runs off the Swift concurrency pool.
actor PushTokenRemover {
    /// A removal that could not be committed (lock busy, conflicts, I/O); the push stays
    /// pending for that token and is retried.
    struct Failure: Error, Sendable, CustomStringConvertible {
        var description: String
    }

    static let maxRereads = 3

    private let data: DataDirectory
    private let lockTimeout: Duration
    private var queued: [String: Set<String>] = [:]
    private var waiting: [CheckedContinuation<Result<Void, Failure>, Never>] = []
    private var flushing = false

    init(data: DataDirectory, lockTimeout: Duration) {
        self.data = data
        self.lockTimeout = lockTimeout
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
            let data = self.data
            let timeout = lockTimeout
            let result: Result<Void, Failure>
            do {
                try await BlockingIO.run { () throws(any Error) in try Self.commit(batch, data: data, lockTimeout: timeout) }
                result = .success(())
            } catch {
                result = .failure(Failure(description: "removing dead device tokens from users/: \(error)"))
            }
            for w in waiters { w.resume(returning: result) }
        }
        flushing = false
    }

    /// One follow-up commit removing `removals` (user id → tokens). Blocking.
    static func commit(_ removals: [String: Set<String>], data: DataDirectory, lockTimeout: Duration) throws {
        let committer = Committer(data: data)
        var rereads = 0
        while true {
            var changeset = Changeset()
            for (userID, tokens) in removals.sorted(by: { $0.key < $1.key }) {
                guard let path = try? DocumentPath("users", userID), case .document(let doc) = data.read(path) else { continue }
                let updated = without(tokens, in: doc.object)
                if !updated.sameContent(as: doc.object) {
                    changeset.put(.init(path: path, action: .update, before: doc.object, after: updated, expected: doc.version))
                }
            }
            if changeset.entries.isEmpty { return }
            let lock = try committer.lock(holder: "pid=\(getpid()) outbox token removal", timeout: lockTimeout)
            defer { lock.release() }
            try committer.recover()
            let conflicts = try committer.conflicts(in: changeset)
            if conflicts.isEmpty {
                try committer.commit(changeset, id: "outbox-tokens-\(Int64(Date().timeIntervalSince1970 * 1000))-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
                return
            }
            rereads += 1
            if rereads > maxRereads {
                throw ConflictError(paths: conflicts, attempts: rereads)
            }
        }
    }

    /// `user` without `tokens` in `fcmTokens`, `fcmToken` and `apnsTokens`; other fields untouched.
    static func without(_ tokens: Set<String>, in user: JSONObject) -> JSONObject {
        var o = user
        for field in ["fcmTokens", "apnsTokens"] {
            if case .array(let list)? = o[field] {
                let kept = list.filter { v in v.stringValue.map { !tokens.contains($0) } ?? true }
                if kept.count != list.count { o[field] = .array(kept) }
            }
        }
        if let single = o["fcmToken"]?.stringValue, tokens.contains(single) {
            o["fcmToken"] = nil
        }
        return o
    }
}
