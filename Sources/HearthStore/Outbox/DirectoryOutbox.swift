package import Foundation

/// The data directory's outbox (`.hearth/outbox/`, ``OutboxStore``) as an ``OutboxQueue``.
/// Delivery keeps its own per-file claims (`OutboxDeliverer.deliverDue(now:)`).
package struct DirectoryOutbox: OutboxQueue {
    package let data: DataDirectory

    package init(data: DataDirectory) {
        self.data = data
    }

    package func messages(in folder: OutboxStore.Folder) throws -> [OutboxEnvelope] {
        try OutboxStore.messages(in: folder, data: data)
    }

    package func retry(id: String, now: Date) throws -> Bool {
        try OutboxStore.retry(id: id, now: now, data: data)
    }

    package func nextDueDate() throws -> Date? {
        try OutboxStore.messages(in: .pending, data: data).map(\.dueAt).min()
    }
}
