/// Delays between a failed attempt and its retry, and before a run (`jitter`).
///
/// Retry `n` (1 for the first retry) waits a uniformly random time in
/// `[backoff.min, min(backoff.max, backoff.min × 2ⁿ)]`: the ceiling doubles with every retry
/// up to `backoff.max` ("exponential with full jitter"), and no retry comes sooner than
/// `backoff.min`. With `min = 10s, max = 5m`: retry 1 in [10 s, 20 s], retry 2 in [10 s, 40 s],
/// retry 3 in [10 s, 80 s], …, from retry 5 on in [10 s, 5 m].
package enum RetryBackoff {
    /// The range retry `n` (1-based) waits in.
    package static func bounds(retry n: Int, min: Duration, max: Duration) -> ClosedRange<Duration> {
        let lower = min
        let factor = Double(1 << Swift.min(Swift.max(n, 1), 40))
        let ceilingSeconds = DurationFormat.seconds(min) * factor
        let upper = ceilingSeconds >= DurationFormat.seconds(max) ? max : milliseconds(ceilingSeconds)
        return lower...Swift.max(lower, upper)
    }

    /// A random delay for retry `n`, within ``bounds(retry:min:max:)``.
    package static func delay(retry n: Int, min: Duration, max: Duration, using generator: inout some RandomNumberGenerator) -> Duration {
        uniform(bounds(retry: n, min: min, max: max), using: &generator)
    }

    /// A random delay in `[0, jitter]` (zero when `jitter` is zero).
    package static func jitter(_ jitter: Duration, using generator: inout some RandomNumberGenerator) -> Duration {
        uniform(.zero...jitter, using: &generator)
    }

    static func uniform(_ range: ClosedRange<Duration>, using generator: inout some RandomNumberGenerator) -> Duration {
        let low = milliseconds(range.lowerBound)
        let high = milliseconds(range.upperBound)
        guard high > low else { return range.lowerBound }
        return .milliseconds(Int64.random(in: low...high, using: &generator))
    }

    static func milliseconds(_ d: Duration) -> Int64 {
        d.components.seconds * 1000 + d.components.attoseconds / 1_000_000_000_000_000
    }

    static func milliseconds(_ seconds: Double) -> Duration {
        .milliseconds(Int64((seconds * 1000).rounded(.down)))
    }
}
