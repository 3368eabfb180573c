import Foundation
import HearthKit
import HearthStore
import HearthSchedule

/// The slot and catch-up decisions (docs/scheduler.md#running-the-daemon,
/// docs/scheduler.md#policies): which of a job's due slots run, which are caught up, which are
/// recorded as skipped, and where its schedule goes on — always from the previous slot, never
/// from the clock. Also the random delays: a start's jitter and a retry's backoff. A value,
/// pure but for its random numbers (seeded in tests); the daemon logs, records and queues what
/// it decides.
///
/// - **On time or missed.** Only the latest due slot can be on time, and only when reached
///   within ``missedAfter``; the others were missed (the daemon was down, the machine slept,
///   the clock jumped) and are handled per `catchUp`: `none` records each as
///   `skipped-catch-up`; `latest` runs the most recent once and records the others, or records
///   them all when a slot is also due on time; `all` runs each in order. Slots older than
///   `catchUpWindow` are only counted.
/// - **Overlap.** A slot on time while the job is busy is skipped, or with `overlap = "queue"`
///   waits for the job (at most one waiting slot).
struct SlotPlanner: Sendable {
    /// A job's schedule as the planner sees it when its next slot is due.
    struct Job: Sendable {
        var schedule: Schedule
        var timeZone: TimeZone
        var policy: JobPolicy
        /// The job's next slot (due: at or before now).
        var nextSlot: Date
        var paused: Bool
        /// Running, waiting for its jitter or a retry, or with runs queued.
        var busy: Bool
        /// A scheduled slot already waits in its queue (`overlap = "queue"` holds one).
        var slotQueued: Bool
    }

    /// What to do with a job's slot that came on time.
    enum OnTime: Sendable, Equatable {
        /// The job is idle: it runs.
        case run(Date)
        /// The job is busy and `overlap = "queue"`: it waits for the job.
        case queueBehind(Date)
        /// The job is busy: recorded as `skipped-overlap` (`queueFull`: a slot already waits).
        case skip(Date, queueFull: Bool)
    }

    /// Slots older than the catch-up window: from the first of them to the window's start, `count` slots.
    struct BeforeWindow: Sendable, Equatable {
        var from: Date
        var windowStart: Date
        var count: Int
    }

    /// What to do with a job's due slots, in this order: record the paused ones, record the
    /// skipped catch-ups, queue the caught-up ones, then the one on time.
    struct Decision: Sendable, Equatable {
        /// Slots older than the catch-up window (not run, not recorded).
        var beforeWindow: BeforeWindow?
        /// Every due slot, when the job is paused (`skipped-paused`).
        var paused: [Date] = []
        /// The slots missed (for the log): the ones skipped and the ones caught up.
        var missed: [Date] = []
        var skippedCatchUp: [Date] = []
        /// Run late with trigger `catch-up`, in order.
        var caughtUp: [Date] = []
        var onTime: OnTime?
        /// The last slot dealt with (persisted) and the next one.
        var lastSlot: Date
        var nextSlot: Date?
    }

    /// A slot reached later than this after its time counts as missed (see `catchUp`).
    var missedAfter: Duration
    var random: AnyRandomNumberGenerator

    /// The decision for `job`'s slots due at `now`.
    func dueSlots(_ job: Job, now: Date) -> Decision {
        let (schedule, zone, policy, next) = (job.schedule, job.timeZone, job.policy, job.nextSlot)
        let windowStart = now - policy.catchUpWindow
        var beforeWindow: BeforeWindow?
        var due: [Date]
        if next < windowStart {
            beforeWindow = BeforeWindow(from: next, windowStart: windowStart, count: schedule.slots(from: next, through: windowStart, in: zone, limit: 100_000).count)
            due = schedule.slots(from: windowStart, through: now, in: zone)
        } else {
            due = schedule.slots(from: next, through: now, in: zone)
            if due.first != next { due.insert(next, at: 0) }
        }
        let lastSlot = due.last ?? windowStart
        var decision = Decision(beforeWindow: beforeWindow, lastSlot: lastSlot, nextSlot: schedule.nextFire(after: lastSlot, in: zone))
        if job.paused {
            decision.paused = due
            return decision
        }
        // Only the latest due slot can be on time: when several are due at once the daemon was
        // not awake for the earlier ones (stopped, asleep, clock jump), however recent they are.
        var missed = due
        var onTime: Date?
        if let last = due.last, last >= now - missedAfter {
            missed.removeLast()
            onTime = last
        }
        decision.missed = missed
        switch policy.catchUp {
        case .none:
            decision.skippedCatchUp = missed
        case .latest:
            // The most recent runs, unless a slot is also due on time right now.
            if onTime == nil, let last = missed.last {
                decision.skippedCatchUp = Array(missed.dropLast())
                decision.caughtUp = [last]
            } else {
                decision.skippedCatchUp = missed
            }
        case .all:
            decision.caughtUp = missed
        }
        if let slot = onTime {
            if !job.busy {
                decision.onTime = .run(slot)
            } else if policy.overlap == .queue, !job.slotQueued {
                decision.onTime = .queueBehind(slot)
            } else {
                decision.onTime = .skip(slot, queueFull: policy.overlap == .queue)
            }
        }
        return decision
    }

    /// How long a scheduled or catch-up run waits after its slot: a random `[0, jitter]`.
    mutating func jitter(_ policy: JobPolicy) -> Duration {
        RetryBackoff.jitter(policy.jitter, using: &random)
    }

    /// How long before the retry after failed attempt `attempt`.
    mutating func retryDelay(after attempt: Int, _ policy: JobPolicy) -> Duration {
        RetryBackoff.delay(retry: attempt, min: policy.backoffMin, max: policy.backoffMax, using: &random)
    }
}
