import Foundation

/// The UTC-offset history of one time zone over a window of time, with the conversions the
/// cron engine needs, following the rules of Python's `zoneinfo` (PEP 495) exactly, because
/// the golden next-fire vectors come from `cronsim`, which does its arithmetic on `zoneinfo`
/// aware datetimes:
///
/// - a local ("wall") time plus a `fold` flag maps to an instant; for a wall time inside a
///   repeated (fall-back) interval `fold == false` picks the first occurrence and
///   `fold == true` the second; for a wall time inside a skipped (spring-forward) gap
///   `fold == false` uses the offset from *before* the transition (so it lands after the gap)
///   and `fold == true` the offset from after it (so it lands before the gap);
/// - an instant maps to a wall time plus `fold == true` when it lies in the second occurrence
///   of a repeated interval.
///
/// Transitions are fetched lazily from Foundation (`nextDaylightSavingTimeTransition`) as
/// the engine moves forward, and cross-checked with `secondsFromGMT(for:)` so that offset
/// changes that are not daylight-saving changes are found too.
struct CronZoneTimeline {
    let zone: TimeZone
    /// Every transition after this instant is recorded (up to `coveredUntil`).
    private let start: Int64
    private let startOffset: Int64
    private var instants: [Int64] = []
    private var offsetsBefore: [Int64] = []
    private var offsetsAfter: [Int64] = []
    /// All transitions in `(start, coveredUntil]` are in the arrays.
    private var coveredUntil: Int64
    /// A zone without any upcoming transition (UTC, fixed offsets, zones that dropped DST).
    private var exhausted = false

    /// A timeline whose conversions are valid for instants and wall times after `start`
    /// plus a day or so; the engine starts it a few days before the instant it searches from.
    init(zone: TimeZone, from start: Int64) {
        self.zone = zone
        self.start = start
        self.startOffset = Self.foundationOffset(zone, at: start)
        self.coveredUntil = start
    }

    @inline(__always)
    private static func foundationOffset(_ zone: TimeZone, at instant: Int64) -> Int64 {
        Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(instant))))
    }

    /// The offset in effect at `instant` according to the recorded transitions only.
    private func recordedOffset(at instant: Int64) -> Int64 {
        let index = upperBound(instants, instant)
        return index == 0 ? startOffset : offsetsAfter[index - 1]
    }

    private mutating func record(_ instant: Int64, before: Int64, after: Int64) {
        instants.append(instant)
        offsetsBefore.append(before)
        offsetsAfter.append(after)
    }

    /// Makes sure every transition up to `instant` is recorded. Coverage grows in big steps
    /// (to the next reported transition, or a year ahead) so that a search moving forward a
    /// minute at a time asks Foundation only now and then.
    private mutating func cover(through instant: Int64) {
        while coveredUntil < instant {
            if exhausted {
                let end = max(instant, coveredUntil + 366 * CronCivil.secondsPerDay)
                findUnreportedChanges(upTo: end)
                coveredUntil = end
                return
            }
            let from = Date(timeIntervalSince1970: TimeInterval(coveredUntil))
            guard let next = zone.nextDaylightSavingTimeTransition(after: from) else {
                exhausted = true
                continue
            }
            var at = Int64(next.timeIntervalSince1970.rounded(.up))
            if at <= coveredUntil { at = coveredUntil + 1 }
            findUnreportedChanges(upTo: at - 1)
            let before = Self.foundationOffset(zone, at: at - 1)
            let after = Self.foundationOffset(zone, at: at)
            if before != after { record(at, before: before, after: after) }
            coveredUntil = at
        }
    }

    /// Bisects for an offset change in `(coveredUntil, end]` that Foundation did not report.
    private mutating func findUnreportedChanges(upTo end: Int64) {
        var low = coveredUntil
        guard end > low else { return }
        var lowOffset = recordedOffset(at: low)
        // Bounded: each round records one change; real zones change a few times a year.
        for _ in 0..<64 {
            if Self.foundationOffset(zone, at: end) == lowOffset { return }
            var lo = low, hi = end
            while hi - lo > 1 {
                let mid = lo + (hi - lo) / 2
                if Self.foundationOffset(zone, at: mid) == lowOffset { lo = mid } else { hi = mid }
            }
            let after = Self.foundationOffset(zone, at: hi)
            record(hi, before: lowOffset, after: after)
            low = hi
            lowOffset = after
        }
    }

    /// Index of the first element greater than `value` (Python's `bisect_right`).
    @inline(__always)
    private func upperBound(_ array: [Int64], _ value: Int64) -> Int {
        var lo = 0, hi = array.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if array[mid] <= value { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// The UTC offset (seconds east of Greenwich) at `instant`.
    mutating func offset(at instant: Int64) -> Int64 {
        cover(through: instant)
        return recordedOffset(at: instant)
    }

    /// Converts an instant to wall seconds plus PEP 495 `fold` (`zoneinfo.fromutc`).
    mutating func local(_ instant: Int64) -> (wall: Int64, fold: Bool) {
        cover(through: instant)
        let index = upperBound(instants, instant)
        if index == 0 { return (instant + startOffset, false) }
        let after = offsetsAfter[index - 1]
        let shift = offsetsBefore[index - 1] - after
        let fold = shift > instant - instants[index - 1]
        return (instant + after, fold)
    }

    /// Converts wall seconds plus `fold` to an instant (`zoneinfo.utcoffset` rules).
    mutating func instant(wall: Int64, fold: Bool) -> Int64 {
        // A transition at instant T is seen at wall time T + max(before, after) by fold 0
        // and at T + min(before, after) by fold 1; offsets are within a day of UTC.
        cover(through: wall + 2 * CronCivil.secondsPerDay)
        var lo = 0, hi = instants.count
        while lo < hi {
            let mid = (lo + hi) / 2
            let before = offsetsBefore[mid], after = offsetsAfter[mid]
            let wallAtTransition = instants[mid] + (fold ? min(before, after) : max(before, after))
            if wallAtTransition <= wall { lo = mid + 1 } else { hi = mid }
        }
        let offset = lo == 0 ? startOffset : offsetsAfter[lo - 1]
        return wall - offset
    }

    /// Whether a wall time does not exist (falls in a spring-forward gap).
    mutating func isSkipped(wall: Int64) -> Bool {
        local(instant(wall: wall, fold: false)).wall != wall
    }

    /// Recorded transitions in `(from, through]`: instant, offset before, offset after.
    mutating func transitions(from: Int64, through: Int64) -> [(instant: Int64, before: Int64, after: Int64)] {
        cover(through: through)
        var result: [(instant: Int64, before: Int64, after: Int64)] = []
        for index in instants.indices where instants[index] > from && instants[index] <= through {
            result.append((instants[index], offsetsBefore[index], offsetsAfter[index]))
        }
        return result
    }
}
