package import Foundation

extension Schedule {
    /// Every fire time `t` with `from <= t <= through`, in order, at most `limit` of them
    /// (the earliest). Used for missed slots (catch-up) and `hearth backfill`.
    package func slots(from: Date, through: Date, in zone: TimeZone, limit: Int = Int.max) -> [Date] {
        guard from <= through, limit > 0 else { return [] }
        var result: [Date] = []
        var cursor = from.addingTimeInterval(-1)
        while result.count < limit {
            let batch = fireTimes(after: cursor, in: zone, count: Swift.min(512, limit - result.count))
            guard let last = batch.last else { break }
            for t in batch {
                if t > through { return result }
                if t >= from { result.append(t) }
            }
            cursor = last
        }
        return result
    }
}
