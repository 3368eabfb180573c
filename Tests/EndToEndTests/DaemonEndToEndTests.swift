import Foundation
import Testing
import HearthTestSupport

/// The real `hearth daemon` on a temp data directory: runs on an every-2-seconds schedule
/// (allowed only because the config says `allowSecondIntervals = true`), reloads on SIGHUP
/// (keeping its configuration when the new one is invalid), stops on SIGTERM with exit 0, and
/// talks to systemd's notify socket.
@Suite("Daemon end to end")
struct DaemonEndToEndTests {
    struct Record {
        var logicalTime: Date
        var trigger: String
        var status: String
    }

    static func config(schedule: String, disabling others: [String]) -> String {
        var text = """
            dataDir = "data"
            shutdownGrace = "5s"
            [scheduler]
            allowSecondIntervals = true
            [jobs.leaderboard-rebuild]
            schedule = "\(schedule)"

            """
        for name in others { text += "[jobs.\(name)]\nenabled = false\n" }
        return text
    }

    static func records(_ dir: TempDirectory) async throws -> [Record] {
        let r = try await HearthProcess.run(["history", "leaderboard-rebuild", "--config", "hearth.toml", "--limit", "1000", "--format", "json"], in: dir.path)
        guard r.status == 0, let array = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]] else { return [] }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return array.compactMap { o in
            guard let t = (o["logicalTime"] as? String).flatMap(formatter.date(from:)) else { return nil }
            return Record(logicalTime: t, trigger: o["trigger"] as? String ?? "", status: o["status"] as? String ?? "")
        }.sorted { $0.logicalTime < $1.logicalTime }
    }

    /// The records once `condition` holds for them: polled, every 250 ms (`hearth history` is
    /// a process of its own, and nothing tells when the daemon writes one).
    static func waitForRecords(_ dir: TempDirectory, _ what: String, timeout: Duration, stderr: StderrCollector, sourceLocation: SourceLocation = #_sourceLocation, _ condition: ([Record]) -> Bool) async throws -> [Record] {
        var last: [Record] = []
        return try await eventually("\(what) (\(last.count) records); stderr: \(stderr.text)", timeout: timeout, pollEvery: .milliseconds(250), sourceLocation: sourceLocation) {
            last = try await records(dir)
            return condition(last) ? last : nil
        }
    }

    /// Whether the datagram `text` has the line `wanted`.
    /// CLOCK_MONOTONIC now, in microseconds.
    static func monotonicMicroseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000 + UInt64(ts.tv_nsec) / 1000
    }

    static func lines(_ text: String, contain wanted: String) -> Bool {
        text.split(separator: "\n").contains(Substring(wanted))
    }

    /// Waits for `process` to exit; after `timeout` kills it (so a hung daemon fails the test
    /// instead of hanging the suite) and returns false.
    static func waitForExit(_ process: Process, timeout: TimeInterval) async throws -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await HearthProcess.waitForExit(process)
                return true
            }
            group.addTask {
                // Cancelled once the process exits; a timeout otherwise.
                (try? await Task.sleep(for: .seconds(timeout))) == nil
            }
            let exited = await group.next() ?? false
            if !exited { kill(process.processIdentifier, SIGKILL) }
            group.cancelAll()
            return exited
        }
    }

    @Test func theDaemonRunsTheScheduleReloadsOnSIGHUPAndStopsOnSIGTERM() async throws {
        let dir = try TempDirectory("hearth-e2e")
        defer { dir.remove() }
        let seed = try await HearthProcess.run(["seed", "--out", "data", "--users", "20"], in: dir.path)
        try #require(seed.status == 0, "\(seed.stderr)")
        let list = try await HearthProcess.run(["list", "--data", "data", "--format", "json"], in: dir.path)
        let jobs = (try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]])?.compactMap { $0["job"] as? String } ?? []
        let others = jobs.filter { $0 != "leaderboard-rebuild" }
        try #require(jobs.contains("leaderboard-rebuild"))
        try dir.write("hearth.toml", Self.config(schedule: "every 2 seconds", disabling: others))

        let listener = try NotifySocketListener()
        defer { listener.close() }
        let daemon = try HearthProcess.start(["daemon", "--config", "hearth.toml"], in: dir.path, environment: ["NOTIFY_SOCKET": listener.path])
        defer { if daemon.process.isRunning { kill(daemon.process.processIdentifier, SIGKILL) } }
        let stderr = StderrCollector(daemon.stderrPipe)
        var notifications = try await listener.wait("READY=1; stderr: \(stderr.text)") { Self.lines($0, contain: "READY=1") }

        // Runs every 2 s, each with its slot (a whole multiple of 2 s) as logical time.
        let first = try await Self.waitForRecords(dir, "two runs", timeout: .seconds(10), stderr: stderr) { $0.count >= 2 }
        #expect(first.count >= 2, "stderr: \(stderr.text)")
        for r in first {
            #expect(r.trigger == "schedule")
            #expect(r.status == "succeeded")
            #expect(r.logicalTime.timeIntervalSince1970.truncatingRemainder(dividingBy: 2) == 0)
        }

        // An invalid configuration is refused and the old one kept.
        try dir.write("hearth.toml", Self.config(schedule: "every 2 fortnights", disabling: others))
        kill(daemon.process.processIdentifier, SIGHUP)
        try await stderr.waitFor("configuration reload failed")
        #expect(stderr.text.contains("every 2 fortnights"))
        #expect(daemon.process.isRunning)

        // A valid one applies from now: every 3 s.
        try dir.write("hearth.toml", Self.config(schedule: "every 3 seconds", disabling: others))
        let beforeHUP = Self.monotonicMicroseconds()
        kill(daemon.process.processIdentifier, SIGHUP)
        try await stderr.waitFor("configuration reloaded")
        let afterHUP = Self.monotonicMicroseconds()
        let reloadedAt = Date()
        let after = try await Self.waitForRecords(dir, "two runs after the reload", timeout: .seconds(12), stderr: stderr) { rs in rs.filter { $0.logicalTime > reloadedAt }.count >= 2 }
        let afterReload = after.filter { $0.logicalTime > reloadedAt }
        #expect(afterReload.count >= 2, "stderr: \(stderr.text)")
        for r in afterReload { #expect(r.logicalTime.timeIntervalSince1970.truncatingRemainder(dividingBy: 3) == 0) }

        kill(daemon.process.processIdentifier, SIGTERM)
        let exited = try await Self.waitForExit(daemon.process, timeout: 15)
        #expect(exited, "no exit within 15 s of SIGTERM (killed); stderr: \(stderr.text)")
        #expect(daemon.process.terminationStatus == 0, "stderr: \(stderr.text)")
        #expect(try await stderr.untilEnd().contains("scheduler stopped"))  // read to its end: the exit can come before the last line is read
        notifications += try await listener.wait("STOPPING=1", timeout: .seconds(1)) { Self.lines($0, contain: "STOPPING=1") }
        // systemd's Type=notify-reload wants the reload's CLOCK_MONOTONIC time with it.
        let reloading = try #require(notifications.last { $0.hasPrefix("RELOADING=1") })  // the valid reload's
        let usec = try #require(reloading.split(separator: "\n").first { $0.hasPrefix("MONOTONIC_USEC=") }.flatMap { UInt64($0.dropFirst("MONOTONIC_USEC=".count)) })
        #expect((beforeHUP...afterHUP).contains(usec), "\(reloading) not between \(beforeHUP) and \(afterHUP)")

        // Every record is a scheduled, successful run; nothing ran twice for one slot.
        let all = try await Self.records(dir)
        #expect(Set(all.map(\.status)) == ["succeeded"])
        #expect(Set(all.map(\.logicalTime)).count == all.count)
        let state = dir.read("data/.hearth/scheduler/leaderboard-rebuild.json") ?? ""
        #expect(state.contains("\"schedule\": \"every 3 seconds\""))
    }
}
