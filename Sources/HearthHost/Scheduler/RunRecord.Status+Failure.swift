package import HearthStore

extension RunRecord.Status {
    /// Failed, conflict, cancelled: the attempt committed nothing and may be retried.
    package var isFailure: Bool {
        switch self {
        case .failed, .conflict, .cancelled: true
        case .succeeded, .succeededWithWarnings, .skippedOverlap, .skippedCatchUp, .skippedPaused: false
        }
    }
}
