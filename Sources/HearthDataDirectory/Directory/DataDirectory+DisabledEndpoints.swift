import Foundation
import HearthKit
package import HearthStore

/// Disabled webhook endpoints in `.hearth/outbox/disabled-endpoints.json`:
///
/// ```json
/// {"ops": {"configHash": "9f2c…", "disabledAt": "2026-11-21T09:30:00.000Z", "reason": "HTTP 410 Gone"}}
/// ```
///
/// Updates are read-modify-write under an exclusive `flock` on `disabled-endpoints.lock`, and
/// written atomically.
extension DataDirectory {
    var disabledEndpointsPath: String { DirectoryOutboxFolders.root(self) + "/disabled-endpoints.json" }
    var disabledEndpointsLockPath: String { DirectoryOutboxFolders.root(self) + "/disabled-endpoints.lock" }

    /// Every entry; an unreadable file reads as none.
    package func disabledEndpoints() throws -> [String: DisabledEndpoint] {
        guard let bytes = try? FileIO.readSmallFile(disabledEndpointsPath), case .object(let o)? = try? JSONParser.parse(bytes) else { return [:] }
        var out: [String: DisabledEndpoint] = [:]
        for (name, value) in o {
            guard let e = value.objectValue, let hash = e["configHash"]?.stringValue else { continue }
            out[name] = DisabledEndpoint(
                configHash: hash, disabledAt: e["disabledAt"].flatMap(Timestamp.date(from:)) ?? Date(timeIntervalSince1970: 0),
                reason: e["reason"]?.stringValue ?? "")
        }
        return out
    }

    package func disableEndpoint(_ name: String, _ entry: DisabledEndpoint) throws {
        try FileIO.makeDirectories(DirectoryOutboxFolders.root(self), within: root)
        let lock = try CommitLock.acquire(path: disabledEndpointsLockPath, root: root, holder: "pid=\(getpid()) outbox", timeout: .seconds(30), what: "the disabled-endpoints list")
        defer { lock.release() }
        var o = JSONObject()
        if let bytes = try FileIO.readSmallFile(disabledEndpointsPath), case .object(let existing)? = try? JSONParser.parse(bytes) { o = existing }
        o[name] = .object(JSONObject([
            ("configHash", .string(entry.configHash)), ("disabledAt", Timestamp.json(entry.disabledAt)), ("reason", .string(entry.reason)),
        ]))
        try FileIO.writeAtomically(disabledEndpointsPath, JSONWriter.document(o))
        try FileIO.fsyncDirectory(DirectoryOutboxFolders.root(self))
    }
}
