package import HearthStore
extension DataDirectory {
    /// `.hearth/outbox/` as a queue: a fresh value for each delivery pass.
    package var outbox: any OutboxClaimingQueue { DirectoryOutbox(data: self) }
}
