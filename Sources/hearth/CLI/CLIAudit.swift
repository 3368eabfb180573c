import Foundation
import HearthKit
import HearthStore

/// Records a CLI action in the audit log (docs/operations/monitoring.md#the-audit-log) as the
/// Unix user running `hearth`, with `SUDO_USER` when set. A log that cannot be written is a
/// warning: the action itself has been done.
enum CLIAudit {
    static func record(
        _ store: any StorageBackend, _ action: AuditEntry.Action, job: String?, note: String? = nil, outcome: String = "ok", target: String? = nil
    ) {
        let environment = ProcessInfo.processInfo.environment
        let euid = UInt32(geteuid())
        let entry = AuditEntry(
            time: Date(), action: action, job: job, note: note, outcome: outcome, via: .cli,
            user: ProcessIdentity.userName(euid) ?? "uid \(euid)", sudoUser: environment["SUDO_USER"].flatMap { $0.isEmpty ? nil : $0 }, target: target)
        do { try store.appendAudit(entry) } catch {
            emitError("warning: could not write the audit log: \(error)\n")
        }
    }

    /// `failed: <first line of the error>`.
    static func failed(_ error: any Error) -> String {
        "failed: " + (String(describing: error).split(separator: "\n").first.map(String.init) ?? "")
    }
}
