public import Foundation

/// The outbox on disk: `.hearth/outbox/pending/<id>.json` holds a message waiting for
/// delivery (written in the job's atomic commit), with its delivery state.
public enum OutboxStore {
    public static func relativePath(pending id: String) -> String {
        ".hearth/outbox/pending/\(fileName(id)).json"
    }

    /// Message ids become file names; anything outside `[A-Za-z0-9._-]` is percent-encoded.
    public static func fileName(_ id: String) -> String {
        var out = ""
        for b in id.utf8 {
            let c = Character(Unicode.Scalar(b))
            if c.isASCII, c.isLetter || c.isNumber || c == "-" || c == "_" || (c == "." && !out.isEmpty) {
                out.append(c)
            } else {
                out += String(format: "%%%02X", b)
            }
        }
        return out
    }

    /// The stored form of a queued message.
    public static func envelope(_ m: OutboxMessage, job: String, runID: String, createdAt: Date) -> JSONObject {
        JSONObject([
            ("id", .string(m.id)), ("kind", .string(m.kind.rawValue)), ("recipient", .string(m.recipient)),
            ("title", .string(m.title)), ("payload", .object(m.payload)), ("job", .string(job)), ("runId", .string(runID)),
            ("createdAt", Timestamp.json(createdAt)), ("attempts", .int(0)), ("nextAttemptAt", Timestamp.json(createdAt)),
            ("lastError", .null),
        ])
    }
}
