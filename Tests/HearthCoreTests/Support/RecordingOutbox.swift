import Foundation
import HearthHost

/// A ``DaemonOutbox`` that records when the daemon asked for a pass and answers with the next
/// due dates the test scripted (then nil: nothing pending).
final class RecordingOutbox: DaemonOutbox {
    private let passes = Locked<[Date]>([])
    private let answers: Locked<[Date?]>

    init(answers: [Date?] = []) {
        self.answers = Locked(answers)
    }

    var passTimes: [Date] { passes.value }

    func deliverDue(at now: Date) async -> Date? {
        passes.value.append(now)
        var remaining = answers.value
        guard !remaining.isEmpty else { return nil }
        let next = remaining.removeFirst()
        answers.value = remaining
        return next
    }

    func reload(_ config: HearthConfig) throws(ConfigError) {}
}
