/// What crash recovery did: commits finished and uncommitted journals discarded.
package struct CommitRecovery: Sendable, Equatable {
    package var finished: [String] = []
    package var discarded: [String] = []

    package init(finished: [String] = [], discarded: [String] = []) {
        self.finished = finished
        self.discarded = discarded
    }
}
