import Foundation

/// Test-only delays read from the environment, so crash and conflict tests can hit the
/// narrow windows they need. Unset in production: every hook is a no-op.
///
/// - `HEARTH_FAULT_COMMIT_STEP_DELAY_US`: sleep this many microseconds after every step of a
///   commit (journal write, commit rename, each file; each statement of a PostgreSQL commit), so
///   a SIGKILL lands inside the commit.
/// - `HEARTH_FAULT_PAUSE_BEFORE_COMMIT_MS`: on a run's first attempt, sleep this long between
///   running the job and taking the commit lock, so another process can change a document.
package enum FaultInjection {
    static let commitStepDelay: UInt32 = value("HEARTH_FAULT_COMMIT_STEP_DELAY_US")
    static let pauseBeforeCommit: UInt32 = value("HEARTH_FAULT_PAUSE_BEFORE_COMMIT_MS")

    private static func value(_ name: String) -> UInt32 {
        ProcessInfo.processInfo.environment[name].flatMap { UInt32($0) } ?? 0
    }

    package static func commitStep() {
        if commitStepDelay > 0 { usleep(commitStepDelay) }
    }

    package static func beforeCommit(attempt: Int) {
        guard pauseBeforeCommit > 0, attempt == 1 else { return }
        // Tests wait for this line to know the job has read everything.
        FileHandle.standardError.write(Data("hearth fault injection: pausing \(pauseBeforeCommit) ms before the commit\n".utf8))
        usleep(pauseBeforeCommit * 1000)
    }
}
