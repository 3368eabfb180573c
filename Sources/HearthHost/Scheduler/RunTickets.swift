import HearthStore

/// Runs asked for over HTTP (docs/operations/api.md#run-a-job-now) by ticket — their first
/// attempt's run id — until they end, and the callers waiting for them; and the apps' calls in
/// flight (docs/callables.md), whose caller waits on the run itself.
struct RunTickets: Sendable {
    /// A run not ended yet: its job and whether an attempt is running (else it is queued).
    struct Open: Sendable {
        var job: String
        var running = false
    }

    /// How many ended runs are remembered for a late ``wait(for:)``.
    static let endedKept = 100

    private var open: [String: Open] = [:]
    /// The final records of the latest ended runs (nil: dropped before it ran), oldest first in `endedOrder`.
    private var ended: [String: RunRecord?] = [:]
    private var endedOrder: [String] = []
    private var waiters: [String: [CheckedContinuation<RunRecord?, Never>]] = [:]
    /// Calls running, by a number of their own: their job and their run.
    private var calls: [Int: (job: String, run: Task<AttemptRunner.Outcome, Never>)] = [:]
    private var nextCall = 0

    /// A call started; returns its number for ``callEnded(_:)``.
    mutating func callStarted(_ job: String, _ run: Task<AttemptRunner.Outcome, Never>) -> Int {
        nextCall += 1
        calls[nextCall] = (job, run)
        return nextCall
    }

    mutating func callEnded(_ number: Int) {
        calls[number] = nil
    }

    /// The jobs with calls running.
    var callingJobs: Set<String> { Set(calls.values.map(\.job)) }

    /// The runs of the calls running (to cancel them when the daemon stops).
    var callRuns: [Task<AttemptRunner.Outcome, Never>] { calls.values.map(\.run) }

    mutating func open(_ ticket: String, job: String) {
        open[ticket] = Open(job: job)
    }

    mutating func started(_ ticket: String?) {
        guard let ticket else { return }
        open[ticket]?.running = true
    }

    func pending(_ ticket: String) -> Open? {
        open[ticket]
    }

    /// Whether the run `ticket` has ended, and its final record (nil inside: dropped before it ran).
    func result(_ ticket: String) -> RunRecord?? {
        ended[ticket]
    }

    /// Resumes `waiter` once the open run `ticket` ends.
    mutating func wait(for ticket: String, _ waiter: CheckedContinuation<RunRecord?, Never>) {
        waiters[ticket, default: []].append(waiter)
    }

    /// The run `ticket` ended with `record` (nil: dropped before it ran): its waiters resume.
    mutating func end(_ ticket: String?, _ record: RunRecord?) {
        guard let ticket, open.removeValue(forKey: ticket) != nil else { return }
        ended[ticket] = record
        endedOrder.append(ticket)
        if endedOrder.count > Self.endedKept { ended[endedOrder.removeFirst()] = nil }
        for waiter in waiters.removeValue(forKey: ticket) ?? [] { waiter.resume(returning: record) }
    }
}
