import Synchronization
import Testing
import HearthTestSupport

/// The tests' one wait (Tests/HearthTestSupport/Eventually.swift): a value or a timeout that
/// names what was waited for, never a condition taken as met because it returned at all.
@Suite("eventually")
struct EventuallyTests {
    @Test func returnsTheFirstValueTheCheckGives() async throws {
        var checks = 0
        // The deadlines of the waits that are to succeed are long: the suite runs beside every
        // other core suite in one process, and a test that blocks a pool thread (a server's
        // stop() polling its child's exit) was seen to hold the wait 30 s past its time.
        let value = try await eventually("the third check", timeout: .seconds(120), pollEvery: .milliseconds(1)) { () -> String? in
            checks += 1
            return checks == 3 ? "third" : nil
        }
        #expect(value == "third")
        #expect(checks == 3)
    }

    @Test func aConditionThatNeverHoldsTimesOutNamingWhatWasAwaitedAndWhen() async throws {
        var described = 0
        var checks = 0
        let here: SourceLocation = #_sourceLocation
        let error = await #expect(throws: TimedOut.self) {
            try await eventually("the impossible (\(checks) checks)", timeout: .milliseconds(100), pollEvery: .milliseconds(10), sourceLocation: here) {
                checks += 1
                described = checks
                return false
            }
        }
        #expect(checks > 1)  // checked again, and once more at the deadline
        #expect(described == checks)
        #expect(error?.what == "the impossible (\(checks) checks)")  // as things were at the deadline
        #expect(error?.timeout == .milliseconds(100))
        #expect(error?.description.hasPrefix("timed out after 0.1 seconds waiting for the impossible") == true)
        #expect(error?.description.hasSuffix("(EventuallyTests.swift:\(here.line))") == true)
    }

    @Test func whatIsDescribedOnlyWhenTheWaitTimesOut() async throws {
        var described = 0
        func description() -> String {
            described += 1
            return "a condition"
        }
        try await eventually(description(), timeout: .seconds(120)) { true }
        #expect(described == 0)
    }

    @Test func withANotifierItChecksAgainOnlyAfterANotification() async throws {
        let changes = ChangeNotifier()
        let value = Mutex(0)
        let checks = Mutex(0)
        let writer = Task {
            for i in 1...3 {
                // Each write once the wait has checked the one before: nothing is coalesced.
                try await eventually("check \(i)", timeout: .seconds(120), pollEvery: .milliseconds(1)) { checks.withLock { $0 } == i }
                value.withLock { $0 = i }
                changes.notify()
            }
        }
        let seen = try await eventually("the third write", timeout: .seconds(120), wakingOn: changes) { () -> Int? in
            let v = value.withLock { $0 }
            checks.withLock { $0 += 1 }  // after the read: the writer's next write wakes the next check
            return v == 3 ? v : nil
        }
        try await writer.value
        #expect(seen == 3)
        #expect(checks.withLock { $0 } == 4)  // at the start, then once per notification
    }

    @Test func aCancelledWaitEndsWithCancellationError() async throws {
        let wait = Task {
            try await eventually("what never comes", timeout: .seconds(60), wakingOn: ChangeNotifier()) { false }
        }
        wait.cancel()
        await #expect(throws: CancellationError.self) { try await wait.value }
    }
}
