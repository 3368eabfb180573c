package import Foundation
package import HearthKit

/// One operator action in the audit log (docs/operations/monitoring.md#the-audit-log): who did
/// what to which job, when, with what note, and how it ended. Written by the CLI (the Unix user
/// and `SUDO_USER`) and by the daemon's HTTP endpoint (the token's name and the peer address);
/// one JSON object per line in `.hearth/audit.jsonl`, or a row of `audit_log` on PostgreSQL:
///
/// ```json
/// {"time": "2026-11-26T14:02:11.204Z", "action": "pause", "job": "weekly-bonus", "note": "new rates",
///  "outcome": "ok", "via": "http", "token": "ops", "peer": "127.0.0.1", "user": null, "sudoUser": null, "target": null}
/// ```
package struct AuditEntry: Sendable, Equatable {
    package enum Action: String, Sendable, CaseIterable {
        case pause, resume, run, backfill
        case outboxRetry = "outbox-retry"
        case dataImport = "data-import"
    }

    package enum Via: String, Sendable { case cli, http }

    package var time: Date
    package var action: Action
    package var job: String?
    package var note: String?
    /// `ok`, or `refused: …` / `failed: …` with the reason.
    package var outcome: String
    package var via: Via
    /// The Unix user (CLI).
    package var user: String?
    /// `SUDO_USER` when the CLI ran under sudo.
    package var sudoUser: String?
    /// The name of the token (HTTP).
    package var token: String?
    /// The peer address (HTTP).
    package var peer: String?
    /// What the action was about besides the job: a run id, a message id, a file.
    package var target: String?

    package init(
        time: Date, action: Action, job: String?, note: String? = nil, outcome: String, via: Via, user: String? = nil, sudoUser: String? = nil,
        token: String? = nil, peer: String? = nil, target: String? = nil
    ) {
        self.time = time
        self.action = action
        self.job = job
        self.note = note
        self.outcome = outcome
        self.via = via
        self.user = user
        self.sudoUser = sudoUser
        self.token = token
        self.peer = peer
        self.target = target
    }

    /// Who, in one phrase: `alice (sudo from bob)`, `token ops from 127.0.0.1`.
    package var actor: String {
        switch via {
        case .cli: return (user ?? "?") + (sudoUser.map { " (sudo from \($0))" } ?? "")
        case .http: return "token \(token ?? "?")" + (peer.map { " from \($0)" } ?? "")
        }
    }

    package var json: JSONObject {
        func opt(_ s: String?) -> JSONValue { s.map { .string($0) } ?? .null }
        return JSONObject([
            ("time", Timestamp.json(time)), ("action", .string(action.rawValue)), ("job", opt(job)), ("note", opt(note)),
            ("outcome", .string(outcome)), ("via", .string(via.rawValue)), ("user", opt(user)), ("sudoUser", opt(sudoUser)),
            ("token", opt(token)), ("peer", opt(peer)), ("target", opt(target)),
        ])
    }

    package init?(json o: JSONObject) {
        guard let time = o["time"].flatMap(Timestamp.date(from:)), let action = o["action"]?.stringValue.flatMap(Action.init(rawValue:)),
            let via = o["via"]?.stringValue.flatMap(Via.init(rawValue:)), let outcome = o["outcome"]?.stringValue
        else { return nil }
        self.init(
            time: time, action: action, job: o["job"]?.stringValue, note: o["note"]?.stringValue, outcome: outcome, via: via,
            user: o["user"]?.stringValue, sudoUser: o["sudoUser"]?.stringValue, token: o["token"]?.stringValue, peer: o["peer"]?.stringValue,
            target: o["target"]?.stringValue)
    }
}
