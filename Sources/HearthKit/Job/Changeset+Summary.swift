extension Changeset {
    /// `Plan: 3 to create, 120 to update, 0 to delete; 45 pushes, 2 webhooks.` (or `Applied:`),
    /// or `No changes.`: the line `hearth plan` and `hearth run` end with, and
    /// HearthTesting's `TestJobContext.summaryLine`.
    package static func summaryLine(dryRun: Bool, created: Int, updated: Int, deleted: Int, messages: [OutboxMessage]) -> String {
        if created + updated + deleted == 0 && messages.isEmpty { return "No changes." }
        let p = messages.count { $0.kind == .push }
        let w = messages.count { $0.kind == .event }
        return "\(dryRun ? "Plan" : "Applied"): \(created) to create, \(updated) to update, \(deleted) to delete; "
            + "\(p) push\(p == 1 ? "" : "es"), \(w) webhook\(w == 1 ? "" : "s")."
    }

    /// ``summaryLine(dryRun:created:updated:deleted:messages:)`` of this changeset.
    package func summaryLine(dryRun: Bool) -> String {
        let c = counts
        return Self.summaryLine(dryRun: dryRun, created: c.created, updated: c.updated, deleted: c.deleted, messages: messages)
    }
}
