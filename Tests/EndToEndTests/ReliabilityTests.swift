import Foundation
import HearthKit
import HearthDataDirectory
import HearthStore
import HearthHost
import Testing
import HearthTestSupport

/// The fault harness beyond commit kills (`CommitSafetyTests`): two jobs writing the same
/// users at once, a disk that fills up mid-run, and SIGKILLs at random points of a batch
/// delivery. `scripts/fault-harness` runs them with more iterations.
@Suite("reliability")
struct ReliabilityTests {
    static let now = "2026-11-18T12:00:00Z"

    /// `leaderboard-rebuild` (ranks) and `weekly-bonus` (points) both rewrite `users/*`. The
    /// first is held between its read and its commit while the second runs and commits: the
    /// first must notice, re-run, and leave every user with both jobs' changes — exactly what
    /// running them one after the other gives. Then the same with the roles swapped.
    @Test(arguments: [("leaderboard-rebuild", "weekly-bonus"), ("weekly-bonus", "leaderboard-rebuild")])
    func twoJobsWritingTheSameUsersAtOnceLoseNoUpdate(held: String, other: String) async throws {
        let s = try TempDirectory("hearth-e2e")
        defer { s.remove() }
        let pristine = s.path + "/pristine"
        #expect(try await HearthProcess.run(["seed", "--out", pristine, "--users", "120", "--seed", "5"]).status == 0)
        // The reference: `other` then `held`, one after the other.
        let reference = s.path + "/reference"
        try FileManager.default.copyItem(atPath: pristine, toPath: reference)
        for job in [other, held] {
            let r = try await HearthProcess.run(["run", job, "--data", reference, "--now", Self.now])
            #expect(r.status == 0, "\(r.stderr)")
        }
        let data = s.path + "/data"
        try FileManager.default.copyItem(atPath: pristine, toPath: data)

        let running = try HearthProcess.start(
            ["run", held, "--data", data, "--now", Self.now], environment: ["HEARTH_FAULT_PAUSE_BEFORE_COMMIT_MS": "4000"])
        let stderr = StderrCollector(running.stderrPipe)
        try await stderr.waitFor("pausing 4000 ms before the commit", timeout: .seconds(60))
        // Stopped in its pause until the other job has committed, however long that takes on a
        // loaded machine (with the end-to-end tests in parallel it once took over 4 s); continued,
        // it ends its pause and commits.
        let heldPID = running.process.processIdentifier
        kill(heldPID, SIGSTOP)
        let second: HearthProcess.Result
        do { second = try await HearthProcess.run(["run", other, "--data", data, "--now", Self.now]) } catch { kill(heldPID, SIGCONT); throw error }
        kill(heldPID, SIGCONT)
        #expect(second.status == 0, "\(second.stderr)")
        _ = await BlockingIO.run { running.stdoutPipe.fileHandleForReading.readDataToEndOfFile() }
        await running.waitForExit()
        // All of it: the lines after the pause may still be on their way from the pipe.
        let stderrText = try await stderr.untilEnd()

        #expect(running.process.terminationStatus == 0, "\(stderrText)")
        #expect(stderrText.contains("conflict: documents changed while the job ran; re-running"), "\(stderrText)")
        let got = TreeSnapshot(data)
        let want = TreeSnapshot(reference)
        let differing = Set(got.files.keys).union(want.files.keys).filter { got.files[$0]?.bytes != want.files[$0]?.bytes }.sorted()
        #expect(differing.isEmpty, "differs from running \(other) then \(held): \(differing.prefix(5))")
        #expect(got.files.keys.contains { $0.hasPrefix("users/") })
    }

    /// A run on a nearly full file system (a small tmpfs, several amounts of free space): it
    /// either succeeds, or fails with "No space left on device" naming the file; after space
    /// is freed and `hearth recover` runs, the data is all-before or all-after, with no temp
    /// file left anywhere. Skipped (with a message) where a tmpfs cannot be mounted.
    @Test func aFullDiskFailsTheRunCleanlyAndLosesNothing() async throws {
        let s = try TempDirectory("hearth-e2e")
        defer { s.remove() }
        let mount = s.path + "/mnt"
        try FileManager.default.createDirectory(atPath: mount, withIntermediateDirectories: true)
        guard getuid() == 0, Self.shell("mount -t tmpfs -o size=24m hearth-full-disk-test '\(mount)'") == 0 else {
            print("full-disk test skipped: mounting a small tmpfs needs root (and a system that allows mounts); run the tests as root to include it")
            return
        }
        defer { _ = Self.shell("umount -l '\(mount)'") }

        let pristine = s.path + "/pristine"
        #expect(try await HearthProcess.run(["seed", "--out", pristine, "--users", "150", "--seed", "9"]).status == 0)
        let reference = s.path + "/reference"
        try FileManager.default.copyItem(atPath: pristine, toPath: reference)
        let job = ["run", "weekly-bonus", "--now", Self.now]
        #expect(try await HearthProcess.run(job + ["--data", reference]).status == 0)
        let before = TreeSnapshot(pristine)
        let after = TreeSnapshot(reference)
        #expect(!after.sameContent(as: before))

        var outcomes = (failed: 0, succeeded: 0)
        for freeKiB in [0, 8, 32, 64, 128, 256, 512, 1024, 4096] {
            let data = mount + "/d"
            try? FileManager.default.removeItem(atPath: data)
            try? FileManager.default.removeItem(atPath: mount + "/filler")
            try FileManager.default.copyItem(atPath: pristine, toPath: data)
            Self.fill(mount, leavingKiB: freeKiB)

            let r = try await HearthProcess.run(job + ["--data", data])
            if r.status == 0 {
                outcomes.succeeded += 1
            } else {
                outcomes.failed += 1
                #expect(r.status == 74, "free \(freeKiB) KiB: exit \(r.status): \(r.stderr)")
                #expect(r.stderr.contains("No space left on device"), "free \(freeKiB) KiB: \(r.stderr)")
                #expect(r.stderr.contains(data), "the error names the file: \(r.stderr)")
            }
            try FileManager.default.removeItem(atPath: mount + "/filler")
            let recover = try await HearthProcess.run(["recover", "--data", data])
            #expect(recover.status == 0, "\(recover.stderr)")

            let state = TreeSnapshot(data)
            #expect(state.sameContent(as: before) || state.sameContent(as: after), "free \(freeKiB) KiB: neither all-before nor all-after")
            if r.status == 0 { #expect(state.sameContent(as: after)) }
            let leftovers = TreeSnapshot(data, includeState: true).files.keys.filter { $0.hasSuffix(".hearth-tmp") || $0.hasPrefix(".hearth/journal/") }
            #expect(leftovers.isEmpty, "free \(freeKiB) KiB: left behind: \(leftovers.sorted().prefix(5))")
        }
        print("full-disk test: \(outcomes.failed) runs failed cleanly for lack of space, \(outcomes.succeeded) fitted")
        #expect(outcomes.failed > 0)
        #expect(outcomes.succeeded > 0)
    }

    /// SIGKILL `hearth outbox deliver` at random points while it works through a batch of
    /// 300 events: the next `outbox deliver` finishes the job, every event reached the receiver
    /// at least once, the outbox ends empty. `HEARTH_DELIVERY_CRASH_ITERATIONS` (default 10).
    @Test func sigkillsAtRandomPointsOfABatchDeliveryLoseNoMessage() async throws {
        let iterations = Int(ProcessInfo.processInfo.environment["HEARTH_DELIVERY_CRASH_ITERATIONS"] ?? "") ?? 10
        let s = try TempDirectory("hearth-e2e")
        defer { s.remove() }
        let receiver = try WebhookReceiverProcess.start(secret: OutboxEndToEndTests.hookSecret)
        defer { receiver.stop() }
        try s.write("hook.secret", OutboxEndToEndTests.hookSecret + "\n")
        let events = (0..<300).map { i in
            OutboxMessage.event("bonus.paid", id: "bonus.paid-2026-W47-u\(i)", data: JSONObject([("userId", .string("u\(i)")), ("bonus", .int(50))]))
        }
        func prepare(_ name: String) throws -> String {
            let dir = s.path + "/" + name
            try FileManager.default.createDirectory(atPath: dir + "/d/.hearth/outbox/pending", withIntermediateDirectories: true)
            for case .put(let path, let bytes) in DirectoryOutboxFolders.batchOperations(events, job: "weekly-bonus", runID: "20261116T000500000Z-0001", createdAt: Date()) {
                try FileIO.writeAtomically(dir + "/d/" + path, bytes)
            }
            try s.write(name + "/hearth.toml", OutboxEndToEndTests.config(dataDir: "d", webhookURL: receiver.url("/ok/\(name)"), extra: "[outbox]\nconcurrency = 8"))
            try FileManager.default.copyItem(atPath: s.path + "/hook.secret", toPath: dir + "/hook.secret")
            return dir
        }
        // How long an uninterrupted delivery takes: kills land anywhere within it.
        let referenceDir = try prepare("reference")
        let clock = ContinuousClock()
        let started = clock.now
        let full = try await HearthProcess.run(["outbox", "deliver", "--config", referenceDir + "/hearth.toml"], in: referenceDir)
        let fullMicros = max(2_000, Int((clock.now - started).components.seconds * 1_000_000 + (clock.now - started).components.attoseconds / 1_000_000_000_000))
        #expect(full.status == 0, "\(full.stderr)")

        let seed = try TestSeed()
        var rng = seed.generator()
        var resent = 0
        for i in 0..<iterations {
            let dir = try prepare("it\(i)")
            let running = try HearthProcess.start(["outbox", "deliver", "--config", dir + "/hearth.toml"], in: dir)
            // The subject: a kill at a random moment of the delivery (nothing to wait for).
            try await Task.sleep(for: .microseconds(UInt32(Int.random(in: 1_000...fullMicros, using: &rng))))
            kill(running.process.processIdentifier, SIGKILL)
            await running.waitForExit()
            let again = try await HearthProcess.run(["outbox", "deliver", "--config", dir + "/hearth.toml"], in: dir)
            #expect(again.status == 0, "replay with \(seed): \(again.stderr)")
            let list = try await HearthProcess.run(["outbox", "list", "--config", dir + "/hearth.toml"], in: dir)
            #expect(list.stdout == "The outbox is empty.\n", "iteration \(i), \(seed): \(list.stdout.prefix(300))")
            #expect(((try? FileManager.default.contentsOfDirectory(atPath: dir + "/d/.hearth/outbox/pending")) ?? []).isEmpty, "iteration \(i), \(seed)")
            let got = try await receiver.received().filter { $0.path == "/ok/it\(i)" }
            #expect(Set(got.compactMap(\.id)) == Set(events.map(\.id)), "iteration \(i): an event never arrived; replay with \(seed)")
            resent += got.count - events.count
        }
        print("delivery crash test: \(iterations) SIGKILLs during a 300-event batch delivery → 0 lost, \(resent) sent twice (at-least-once)")
    }

    @discardableResult
    static func shell(_ command: String) -> Int32 {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", command + " >/dev/null 2>&1"]
        guard (try? p.run()) != nil else { return -1 }
        p.waitUntilExit()
        return p.terminationStatus
    }

    /// Writes `<mount>/filler` so that about `leavingKiB` KiB stay free.
    static func fill(_ mount: String, leavingKiB: Int) {
        var st = statvfs()
        guard statvfs(mount, &st) == 0 else { return }
        let free = Int(st.f_bavail) * Int(st.f_frsize)
        let size = max(0, free - leavingKiB * 1024)
        _ = FileManager.default.createFile(atPath: mount + "/filler", contents: Data(count: size))
    }
}
