import HearthKit

/// A `send-gift` call's own fields, checked (docs/jobs/send-gift.md#errors, checks 1–4).
extension SendGift {
    /// The longest `message`, in Unicode code points.
    static let maxMessageLength = 500

    struct Request: Sendable, Equatable {
        var to: String
        var amount: Int64
        var message: String?
        var requestID: String?

        /// Checks `data` in the documented order; the first check that fails is thrown. A field
        /// that is `null` counts as absent; fields not named here are ignored.
        init(_ data: JSONValue, uid: String, maxAmount: Int64) throws(CallError) {
            let invalidRequest = GiftSettle.Failure.invalidRequest.rawValue
            // 1. The request's shape.
            let o = try Call(data: data).dataObject(reason: invalidRequest)
            func field(_ name: String) -> JSONValue? {
                guard let value = o[name], !value.isNull else { return nil }
                return value
            }
            guard let to = field("toUserId")?.stringValue, DocumentPath.isValid(name: to) else {
                throw CallError(.invalidArgument, "toUserId must be the id of the user who gets the points.", reason: invalidRequest)
            }
            if let m = field("message"), m.stringValue.map({ $0.unicodeScalars.count <= SendGift.maxMessageLength }) != true {
                throw CallError(.invalidArgument, "message must be text of at most \(SendGift.maxMessageLength) characters.", reason: invalidRequest)
            }
            if let r = field("requestId"), r.stringValue.map(ClientID.isValid) != true {
                throw CallError(.invalidArgument, "requestId must be 1 to 64 letters, digits, \"_\" or \"-\".", reason: invalidRequest)
            }
            // 2. The amount.
            guard let amount = GiftSettlement.amount(field("amount")) else {
                throw CallError(.invalidArgument, "amount must be a whole number of points, at least 1.", reason: GiftSettle.Failure.invalidAmount.rawValue)
            }
            // 3. The limit.
            if maxAmount > 0, amount > maxAmount {
                throw CallError(.invalidArgument, "A gift can be at most \(maxAmount) points.", reason: GiftSettle.Failure.overLimit.rawValue)
            }
            // 4. Not to oneself.
            if to == uid {
                throw CallError(.invalidArgument, "You cannot send points to yourself.", reason: GiftSettle.Failure.selfGift.rawValue)
            }
            self.to = to
            self.amount = amount
            message = field("message")?.stringValue
            requestID = field("requestId")?.stringValue
        }
    }
}
