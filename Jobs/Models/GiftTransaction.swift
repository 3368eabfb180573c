import Foundation
import HearthKit

/// A completed gift: a `transactions` document with `type == "gift"`,
/// `status == "completed"` and a non-null `fromUserId`.
struct GiftTransaction: Sendable {
    var id: String
    var fromUserID: String
    var amount: Int64
    var createdAt: Date?

    /// nil when the transaction is not a completed gift. Only a completed gift's fields are
    /// checked, so a malformed bonus does not make this job skip anything.
    static func decode(_ d: Document) throws(FieldError) -> GiftTransaction? {
        guard try d.string("type") == "gift", try d.string("status") == "completed",
            let from = try d.documentID("fromUserId")
        else { return nil }
        return GiftTransaction(id: d.id, fromUserID: from, amount: try d.int("amount") ?? 0, createdAt: try d.timestamp("createdAt"))
    }
}
