/// An id an app's call chooses — `send-gift`'s `requestId`, `award-xp`'s skill
/// (docs/jobs/send-gift.md#errors, docs/jobs/award-xp.md#rules): 1–64 of `[A-Za-z0-9_-]`, so that
/// it fits in a document id whatever it is joined with.
enum ClientID {
    static let maxLength = 64

    static func isValid(_ s: String) -> Bool {
        (1...maxLength).contains(s.utf8.count) && s.utf8.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == UInt8(ascii: "_") || c == UInt8(ascii: "-")
        }
    }
}
