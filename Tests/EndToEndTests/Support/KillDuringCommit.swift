import Foundation
import Testing
import HearthKit
import HearthTestSupport

/// The crash test's loop, shared by every job that has one: `hearth ARGS` on a fresh copy of a
/// pristine data directory, SIGKILLed at a random point, then `hearth recover`; the recovered
/// copy must be exactly the pristine one ("before") or exactly what an uninterrupted run wrote
/// ("after"), never a mix.
struct KillDuringCommit {
    var args: [String]
    var environment = ["HEARTH_FAULT_COMMIT_STEP_DELAY_US": "300"]
    /// Kill within this fraction of an uninterrupted run's length.
    var killWithin = 1.0
    /// How many copies are killed at once (more would take CPU the timing tests of the lane
    /// beside this one need). Each worker draws its own kill instants (from the
    /// seed and its number) and adapts its own window; the iterations are independent (each on
    /// its own copy), so running them side by side checks the same and ends sooner.
    var workers = 2

    struct Outcomes: Sendable {
        var before = 0
        var after = 0
        /// Runs that finished before the kill came.
        var completed = 0
        /// The first iteration that was neither all-before nor all-after, with its differing paths.
        var mixed: (iteration: Int, paths: [String])?
    }

    /// Runs uninterrupted on `reference` (a copy of `pristine` the caller made), then kills
    /// `iterations` runs, `workers` at a time, each at an instant drawn from a ``TestSeed``
    /// (printed; failures name it). `matches(data, isAfter)` may add the caller's own checks of
    /// a copy.
    func run(pristine: String, reference: String, scratch: String, iterations: Int, test: String = #function, matches: @escaping @Sendable (String, Bool) -> Void = { _, _ in }) async throws -> Outcomes {
        let seed = try TestSeed(test: test)
        let clock = ContinuousClock()
        let started = clock.now
        #expect(try await HearthProcess.run(args + ["--data", reference], environment: environment).status == 0)
        let full = clock.now - started
        let fullMicros = Double(full.components.seconds) * 1e6 + Double(full.components.attoseconds) / 1e12
        let (before, after) = await BlockingIO.run { (TreeSnapshot(pristine), TreeSnapshot(reference)) }
        #expect(!after.sameContent(as: before))

        let workers = max(1, min(workers, iterations))
        let outcomes = try await withThrowingTaskGroup(of: Outcomes.self) { group in
            for worker in 0..<workers {
                let mine = Array(stride(from: worker, to: iterations, by: workers))
                group.addTask {
                    try await kill(iterations: mine, worker: worker, seed: seed, fullMicros: fullMicros, pristine: pristine, scratch: scratch, before: before, after: after, matches: matches)
                }
            }
            var total = Outcomes()
            for try await o in group {
                total.before += o.before
                total.after += o.after
                total.completed += o.completed
                if let m = o.mixed, total.mixed.map({ m.iteration < $0.iteration }) ?? true { total.mixed = m }
            }
            return total
        }
        print("crash test \(args.prefix(2).joined(separator: " ")): \(iterations) SIGKILLs, \(workers) at a time → \(outcomes.before) all-before, \(outcomes.after) all-after (\(outcomes.completed) finished before the kill)")
        if let m = outcomes.mixed {
            Issue.record("iteration \(m.iteration): data is neither all-before nor all-after (differing paths: \(m.paths)); replay with \(seed)")
        }
        #expect(outcomes.before + outcomes.after == iterations, "replay with \(seed)")
        #expect(outcomes.before > 0, "replay with \(seed)")
        #expect(outcomes.after > 0, "replay with \(seed)")
        return outcomes
    }

    /// One worker's iterations, one after the other; it stops at the first mixed outcome.
    private func kill(iterations: [Int], worker: Int, seed: TestSeed, fullMicros: Double, pristine: String, scratch: String, before: TreeSnapshot, after: TreeSnapshot, matches: @escaping @Sendable (String, Bool) -> Void) async throws -> Outcomes {
        var rng = SplitMix64(seed: seed.value &+ UInt64(worker))
        var outcomes = Outcomes()
        // The uninterrupted run above may have been slower or faster than the killed ones (a
        // loaded or a quiet machine): each run that finishes before its kill shrinks the window
        // by a quarter, each all-before outcome widens it by 5% (up to three reference runs),
        // so the kills keep landing inside the runs and both outcomes occur.
        var window = max(fullMicros * killWithin, 2_000)
        let widest = max(fullMicros * 3, 2_000)
        for i in iterations {
            let data = scratch + "/run\(i)"
            try await BlockingIO.run { () throws(any Error) in try FileManager.default.copyItem(atPath: pristine, toPath: data) }
            let running = try HearthProcess.start(args + ["--data", data], environment: environment)
            // The subject: a kill at a random moment of the run (nothing to wait for).
            try await Task.sleep(for: .microseconds(UInt32.random(in: 1_000...UInt32(window), using: &rng)))
            Glibc.kill(running.process.processIdentifier, SIGKILL)
            await running.waitForExit()
            if running.process.terminationReason == .exit {
                outcomes.completed += 1
                window = max(window * 0.75, 2_000)
            }
            #expect(try await HearthProcess.run(["recover", "--data", data]).status == 0)
            let (journal, state) = await BlockingIO.run {
                ((try? FileManager.default.contentsOfDirectory(atPath: data + "/.hearth/journal")) ?? [], TreeSnapshot(data))
            }
            #expect(journal.isEmpty, "journal left after recover: \(journal); replay with \(seed)")
            if state.sameContent(as: before) {
                outcomes.before += 1
                window = min(window * 1.05, widest)
                matches(data, false)
            } else if state.sameContent(as: after) {
                outcomes.after += 1
                matches(data, true)
            } else {
                outcomes.mixed = (i, Array(Set(state.files.keys).symmetricDifference(after.files.keys).sorted().prefix(5)))
                return outcomes
            }
            try await BlockingIO.run { () throws(any Error) in try FileManager.default.removeItem(atPath: data) }
        }
        return outcomes
    }
}
