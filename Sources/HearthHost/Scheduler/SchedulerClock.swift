package import Foundation
package import HearthKit

/// The scheduler's view of time: "now" (wall clock) and a sleep until a wall-clock instant.
///
/// The daemon never polls: it asks the clock to sleep until its next slot, retry or jittered
/// start. Tests inject a manual clock whose `sleep(until:)` returns only when the test moves
/// time forward, so they never wait on the wall clock.
package protocol SchedulerClock: HearthClock {
    /// Returns once `now() >= deadline`, or earlier when the clock cannot promise that (e.g. a
    /// long sleep is cut into parts, or the system clock was set): callers always re-check
    /// `now()` and sleep again if needed. Throws `CancellationError` when the calling task is
    /// cancelled.
    func sleep(until deadline: Date) async throws
}
