import Foundation
import Synchronization
import HearthKit
import HearthStore

extension OutboxDeliverer {
    // MARK: Targets

    /// A message's targets for this attempt, or why it is dropped.
    enum Resolution {
        case targets([OutboxEnvelope.Target])
        case drop(String)
    }

    /// Fixes an event's endpoints at its first attempt; afterwards marks endpoints that were
    /// removed from the configuration or disabled as skipped. Drops the message when there is
    /// nobody to send it to. The caller stores the targets in the envelope.
    func resolveEndpoints(_ envelope: OutboxEnvelope, pass: Pass) -> Resolution {
        let type = envelope.recipient
        let disabled = pass.disabled.withLock { $0 }
        if !envelope.hasTargets {
            let subscribed = webhooks.filter { $0.events.isEmpty || $0.events.contains(type) }
            let live = subscribed.filter { !disabled.contains($0.name) }
            if live.isEmpty {
                return .drop(subscribed.isEmpty
                    ? "no webhook endpoint subscribes to \(type)"
                    : "every endpoint subscribed to \(type) is disabled (410): \(subscribed.map(\.name).joined(separator: ", "))")
            }
            return .targets(live.map { OutboxEnvelope.Target(name: $0.name) })
        }
        return .targets(envelope.targets.map { t in
            guard t.state == .pending else { return t }
            var t = t
            if !webhooks.contains(where: { $0.name == t.name }) {
                t.state = .skipped
                t.error = "the endpoint is no longer configured"
            } else if disabled.contains(t.name) {
                t.state = .skipped
                t.error = "the endpoint is disabled (it answered 410)"
            }
            return t
        })
    }

    /// Fixes a push's device tokens at its first attempt. Drops the message when it cannot be
    /// pushed at all. The caller stores the targets in the envelope.
    func resolveTokens(_ envelope: OutboxEnvelope, pass: Pass) async -> Resolution {
        guard let provider = pushProvider else { return .drop(Self.noProviderReason) }
        if envelope.hasTargets { return .targets(envelope.targets) }
        let userID = envelope.userID
        var tokens: [String]
        if let queued = envelope.queuedTokens {
            tokens = queued
        } else if let known = pass.tokens.withLock({ $0[userID] }) {
            tokens = known
        } else {
            tokens = await readTokens(for: [userID], provider: provider)[userID] ?? []
        }
        var seen = Set<String>()
        tokens = tokens.filter { !$0.isEmpty && seen.insert($0).inserted }
        if tokens.isEmpty { return .drop("user \(userID) has no device tokens") }
        return .targets(tokens.map { OutboxEnvelope.Target(name: $0) })
    }

    /// Why a push is dropped without a provider.
    static let noProviderReason = "skipped: no push provider configured ([push] provider = \"none\")"

    /// Reads, in one call to the store, the device tokens of the users the claimed pushes
    /// would need to look up, into `pass` (a claim of 1,000 pushes is one read, not 1,000:
    /// on PostgreSQL one query).
    func prefetchTokens(for messages: [OutboxEnvelope], pass: Pass) async {
        guard let provider = pushProvider else { return }
        var users: [String] = []
        var wanted = Set<String>()
        for m in messages where m.kind == .push && !m.hasTargets && m.queuedTokens == nil {
            if wanted.insert(m.userID).inserted { users.append(m.userID) }
        }
        // Read afresh for each claim: a token removed by an earlier claim is gone.
        let found = users.count > 1 ? await readTokens(for: users, provider: provider) : [:]
        pass.tokens.withLock { $0 = found }
    }

    /// The device tokens on `users/{id}` for `provider` (``DeviceTokens``: the one rule jobs'
    /// plans use too), for each of `userIDs`; a missing or invalid user has none.
    func readTokens(for userIDs: [String], provider: any PushProvider) async -> [String: [String]] {
        let store = self.store
        let kind = provider.kind
        return await BlockingIO.run { () -> [String: [String]] in
            let paths = userIDs.compactMap { try? DocumentPath("users", $0) }
            var out: [String: [String]] = [:]
            for read in store.read(paths[...]) {
                if case .document(let user) = read { out[user.id] = DeviceTokens(of: user, provider: kind).tokens }
            }
            for id in userIDs where out[id] == nil { out[id] = [] }
            return out
        }
    }

    /// Sends to every pending target at once; returns (target index, answer).
    func send(_ envelope: OutboxEnvelope, kind: OutboxMessage.Kind, targets: [OutboxEnvelope.Target], pass: Pass) async -> [(Int, Attempt)] {
        let pending = targets.indices.filter { targets[$0].state == .pending }
        guard !pending.isEmpty else { return [] }
        let body: [UInt8] = kind == .event
            ? WebhookSender.body(type: envelope.recipient, timestamp: envelope.createdAt ?? clock(), data: envelope.payload) : []
        let push: PushNotification? = kind == .push ? envelope.push(tokens: pending.map { targets[$0].name }) : nil
        if pending.count == 1, let index = pending.first {  // the common case: no task group needed
            if let push { return [(index, await self.push(push, to: targets[index].name))] }
            return [(index, await post(body, id: envelope.id, to: targets[index].name, pass: pass))]
        }
        return await withTaskGroup(of: (Int, Attempt).self) { group in
            for index in pending {
                let name = targets[index].name
                group.addTask {
                    if let push {
                        return (index, await self.push(push, to: name))
                    }
                    return (index, await self.post(body, id: envelope.id, to: name, pass: pass))
                }
            }
            var out: [(Int, Attempt)] = []
            for await answer in group { out.append(answer) }
            return out
        }
    }

    func post(_ body: [UInt8], id: String, to endpointName: String, pass: Pass) async -> Attempt {
        guard let endpoint = webhooks.first(where: { $0.name == endpointName }) else {
            return .retry(after: nil, reason: "the endpoint is no longer configured")
        }
        let secret: WebhookSecret
        switch self.secret(for: endpoint, pass: pass) {
        case .success(let s): secret = s
        case .failure(let error): return .retry(after: nil, reason: "cannot sign: \(error.description)")
        }
        switch await sender.send(url: endpoint.url, id: id, body: body, secret: secret, now: clock()) {
        case .delivered: return .delivered
        case .gone: return .gone(reason: "HTTP 410 Gone")
        case .retry(let after, let reason): return .retry(after: after, reason: reason)
        case .cancelled: return .cancelled
        }
    }

    func push(_ push: PushNotification, to token: String) async -> Attempt {
        guard let provider = pushProvider else { return .retry(after: nil, reason: "no push provider configured") }
        if Task.isCancelled { return .cancelled }
        switch await provider.send(push, to: token) {
        case .delivered: return .delivered
        case .removeToken(let reason): return .removeToken(reason: reason)
        case .retry(let after, let reason): return .retry(after: after, reason: reason)
        case .permanentFailure(let reason): return .permanent(reason: reason)
        }
    }

    /// The endpoint's secret, read once per pass (at delivery time, never cached longer).
    func secret(for endpoint: WebhookConfig, pass: Pass) -> Swift.Result<WebhookSecret, WebhookSecretError> {
        if let known = pass.secrets.withLock({ $0[endpoint.name] }) { return known }
        let loaded: Swift.Result<WebhookSecret, WebhookSecretError>
        do {
            loaded = .success(try WebhookSecret.load(file: endpoint.secretFile, env: endpoint.secretEnv, environment: environment))
        } catch {
            loaded = .failure(WebhookSecretError("webhook endpoint \(endpoint.name): \(error.description)"))
        }
        pass.secrets.withLock { $0[endpoint.name] = loaded }
        return loaded
    }

    /// How a target is shown: endpoint names as they are, device tokens by their last 6 characters.
    static func label(_ target: String, kind: OutboxMessage.Kind) -> String {
        kind == .push ? Redaction.redact(target) : target
    }
}
