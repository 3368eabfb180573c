import HearthKit

/// The friendships gift-settle and send-gift read with `requireFriendship` (docs/jobs/gift-settle.md#what-a-verdict-rests-on).
extension GiftSettle {
    /// Two user ids in sorted order (a friendship's key).
    struct Pair: Hashable, Sendable {
        var a: String
        var b: String
        init(_ x: String, _ y: String) { (a, b) = x < y ? (x, y) : (y, x) }
    }

    /// A `friendships` document as read: its pair, whether it is accepted, its path and version.
    struct Friendship: Sendable {
        var pair: Pair
        var accepted: Bool
        var document: Document

        /// A `friendships` document's pair, status and path and version; nil without both user ids.
        init?(_ d: Document) throws(FieldError) {
            guard let a = try d.string("userId1"), let b = try d.string("userId2") else { return nil }
            pair = Pair(a, b)
            accepted = try d.string("status") == "accepted"
            document = d.pathAndVersion
        }
    }

    /// The friendships a run read: the accepted pairs, and every document of each pair (what a
    /// `not_friends` verdict, or a gift that needed the friendship, rests on).
    struct Friendships {
        var accepted = Set<Pair>()
        var documents: [Pair: [Document]] = [:]

        mutating func add(_ f: Friendship) {
            if f.accepted { accepted.insert(f.pair) }
            documents[f.pair, default: []].append(f.document)
        }
    }
}
