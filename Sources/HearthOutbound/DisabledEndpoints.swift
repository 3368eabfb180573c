package import Foundation
import Crypto
import HearthKit
package import HearthStore
import HearthSchedule

/// Webhook endpoints disabled by a `410 Gone`, in `.hearth/outbox/disabled-endpoints.json`:
///
/// ```json
/// {"ops": {"configHash": "9f2c…", "disabledAt": "2026-11-21T09:30:00.000Z", "reason": "HTTP 410 Gone"}}
/// ```
///
/// An entry holds only while the endpoint's configuration is the same: the hash covers its
/// `url`, `secretFile` and `secretEnv` (never the secret's value), so editing any of them
/// enables the endpoint again. Updates are read-modify-write under an exclusive `flock` on
/// `disabled-endpoints.lock`, and written atomically.
package struct DisabledEndpoints: Sendable {
    /// One disabled endpoint.
    package struct Entry: Sendable, Equatable {
        package var configHash: String
        package var disabledAt: Date
        package var reason: String
    }

    package let data: DataDirectory

    package init(data: DataDirectory) { self.data = data }

    var path: String { OutboxStore.root(data) + "/disabled-endpoints.json" }
    var lockPath: String { OutboxStore.root(data) + "/disabled-endpoints.lock" }

    /// The configuration hash an entry is keyed by: SHA-256 of url, secretFile, secretEnv.
    package static func configHash(_ endpoint: WebhookConfig) -> String {
        let text = [endpoint.url, endpoint.secretFile ?? "", endpoint.secretEnv ?? ""].joined(separator: "\u{0}")
        return SHA256.hash(data: Array(text.utf8)).prefix(16).map { b in
            let s = String(b, radix: 16)
            return b < 16 ? "0" + s : s
        }.joined()
    }

    /// Every entry, whether or not it still matches the configuration.
    package func entries() -> [String: Entry] {
        guard let bytes = try? FileIO.readSmallFile(path), case .object(let o)? = try? JSONParser.parse(bytes) else { return [:] }
        var out: [String: Entry] = [:]
        for (name, value) in o {
            guard let e = value.objectValue, let hash = e["configHash"]?.stringValue else { continue }
            out[name] = Entry(configHash: hash, disabledAt: e["disabledAt"].flatMap(Timestamp.date(from:)) ?? Date(timeIntervalSince1970: 0), reason: e["reason"]?.stringValue ?? "")
        }
        return out
    }

    /// The names of the configured endpoints that are disabled (their configuration is unchanged
    /// since the 410).
    package func disabledNames(among endpoints: [WebhookConfig]) -> Set<String> {
        let all = entries()
        return Set(endpoints.filter { all[$0.name]?.configHash == Self.configHash($0) }.map(\.name))
    }

    /// Records that `endpoint` answered 410.
    package func disable(_ endpoint: WebhookConfig, reason: String, at date: Date) throws {
        try FileIO.makeDirectories(OutboxStore.root(data))
        let lock = try CommitLock.acquire(path: lockPath, holder: "pid=\(getpid()) outbox", timeout: .seconds(30), what: "the disabled-endpoints list")
        defer { lock.release() }
        var o = JSONObject()
        if let bytes = try FileIO.readSmallFile(path), case .object(let existing)? = try? JSONParser.parse(bytes) { o = existing }
        o[endpoint.name] = .object(JSONObject([
            ("configHash", .string(Self.configHash(endpoint))), ("disabledAt", Timestamp.json(date)), ("reason", .string(reason)),
        ]))
        try FileIO.writeAtomically(path, JSONWriter.document(o))
        try FileIO.fsyncDirectory(OutboxStore.root(data))
    }
}
