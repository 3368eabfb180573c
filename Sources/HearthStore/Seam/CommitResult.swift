package import HearthKit

/// What ``CommitStore/commit(_:holder:timeout:)`` did.
package enum CommitResult: Sendable, Equatable {
    case committed
    /// These documents changed since the run read them; nothing was written.
    case conflict([DocumentPath])
}
