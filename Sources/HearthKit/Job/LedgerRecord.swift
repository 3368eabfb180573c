public import Foundation

/// One entry a run records in Hearth's ledger: bookkeeping kept outside the apps' documents
/// (e.g. "a push was queued for notification n1"), committed atomically with the run, before
/// its documents. See docs/data-directory.md for where a backend keeps it.
public struct LedgerRecord: Sendable, Equatable {
    public var namespace: String
    public var key: String
    public var value: String
    public var date: Date

    public init(namespace: String, key: String, value: String, date: Date) {
        self.namespace = namespace
        self.key = key
        self.value = value
        self.date = date
    }

    /// Namespaces are job-chosen constants; they must be one safe path component.
    public static func isValidNamespace(_ s: String) -> Bool {
        !s.isEmpty && s.count <= 100 && !s.hasPrefix(".") && s.utf8.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x2D || b == 0x5F || b == 0x2E
        }
    }
}
