/// Standard competition ranking (1, 2, 2, 4) of docs/jobs/README.md#rules-every-job-follows: sorted by the score descending,
/// equals ordered by user id ascending and sharing a rank.
struct Ranking<Score: Comparable> {
    struct Entry {
        var userID: String
        var score: Score
        var rank: Int
    }

    var entries: [Entry]

    init(_ items: [(userID: String, score: Score)]) {
        let sorted = items.sorted { a, b in a.score != b.score ? a.score > b.score : a.userID < b.userID }
        var out: [Entry] = []
        out.reserveCapacity(sorted.count)
        for (i, item) in sorted.enumerated() {
            let rank = (i > 0 && sorted[i - 1].score == item.score) ? out[i - 1].rank : i + 1
            out.append(Entry(userID: item.userID, score: item.score, rank: rank))
        }
        entries = out
    }

    /// The first `count` entries that `isListed` (private users keep their rank and count
    /// towards the total, but are not listed), in ranking order.
    func listed(_ count: Int, where isListed: (Entry) -> Bool) -> [Entry] {
        var out: [Entry] = []
        for e in entries where out.count < count {
            if isListed(e) { out.append(e) }
        }
        return out
    }
}

/// Gift totals compared as docs/jobs/leaderboard-rebuild.md#rules ranks them: points gifted, then gift count.
struct GiftScore: Comparable {
    var totalPointsGifted: Int64
    var giftsGiven: Int64

    static func < (a: GiftScore, b: GiftScore) -> Bool {
        (a.totalPointsGifted, a.giftsGiven) < (b.totalPointsGifted, b.giftsGiven)
    }
}
