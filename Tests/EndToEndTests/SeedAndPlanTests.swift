import Foundation
import Testing
import HearthKit
import HearthTestSupport

@Suite("seed, plan and run end to end")
struct SeedAndPlanTests {
    @Test func seedingTwiceGivesByteIdenticalTrees() async throws {
        let s = try TempDirectory("hearth-e2e")
        defer { s.remove() }
        // The three seeds at once: same options, same bytes, whatever else runs beside them.
        async let a = HearthProcess.run(["seed", "--out", s.path + "/a", "--users", "1000", "--seed", "7"])
        async let b = HearthProcess.run(["seed", "--out", s.path + "/b", "--users", "1000", "--seed", "7"])
        async let c = HearthProcess.run(["seed", "--out", s.path + "/c", "--users", "1000", "--seed", "8"])
        let (ra, rb, rc) = try await (a, b, c)
        #expect(ra.status == 0)
        #expect(rb.status == 0)
        #expect(rc.status == 0)
        async let snapshotA = BlockingIO.run { TreeSnapshot(s.path + "/a") }
        async let snapshotB = BlockingIO.run { TreeSnapshot(s.path + "/b") }
        async let snapshotC = BlockingIO.run { TreeSnapshot(s.path + "/c") }
        let (ta, tb, tc) = await (snapshotA, snapshotB, snapshotC)
        #expect(ra.stdout == "Wrote \(ta.files.count) documents for 1000 users to \(s.path)/a (seed 7).\n")
        #expect(ta.files.count > 20_000)
        #expect(ta.sameContent(as: tb))
        #expect(!ta.sameContent(as: tc))
    }

    @Test func thePlanListsExactlyTheDocumentsTheRealRunWritesAndNothingElseIsTouched() async throws {
        let s = try TempDirectory("hearth-e2e")
        defer { s.remove() }
        let data = s.path + "/d"
        #expect(try await HearthProcess.run(["seed", "--out", data, "--users", "300", "--seed", "7"]).status == 0)
        let plan = try await HearthProcess.run(["plan", "leaderboard-rebuild", "--data", data, "--now", "2026-11-18T12:00:00Z", "--format", "json"])
        #expect(plan.status == 0)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(plan.stdout.utf8)) as? [String: Any])
        let changes = try #require(json["changes"] as? [[String: Any]])
        let planned = Set(changes.map { ($0["path"] as! String) + ".json" })
        #expect(planned.count > 300)
        #expect(changes.allSatisfy { ["create", "update", "delete"].contains($0["action"] as! String) })

        // Every file's mtime moved a day back, so that a run touching a file it does not change
        // shows, whatever the file system's timestamp granularity.
        let dayAgo = Date().addingTimeInterval(-86_400)
        for path in FileManager.default.subpaths(atPath: data) ?? [] {
            try FileManager.default.setAttributes([.modificationDate: dayAgo], ofItemAtPath: data + "/" + path)
        }
        let before = TreeSnapshot(data)
        let run = try await HearthProcess.run(["run", "leaderboard-rebuild", "--data", data, "--now", "2026-11-18T12:00:00Z"])
        #expect(run.status == 0)
        let summary = (json["summary"] as! [String: Any])["line"] as! String
        #expect(run.stdout.hasSuffix(summary.replacingOccurrences(of: "Plan:", with: "Applied:") + "\n"))
        let after = TreeSnapshot(data)
        let changed = Set(after.files.keys.filter { after.files[$0] != before.files[$0] })
        #expect(changed == planned)
        // Unchanged documents keep their bytes and their mtime.
        for (path, entry) in before.files where !planned.contains(path) {
            #expect(after.files[path] == entry, "\(path) was touched")
        }
        let second = try await HearthProcess.run(["run", "leaderboard-rebuild", "--data", data, "--now", "2026-11-18T12:00:00Z"])
        #expect(second.status == 0)
        #expect(second.stdout == "No changes.\n")
        #expect(TreeSnapshot(data) == after)
        let detailed = try await HearthProcess.run(["plan", "leaderboard-rebuild", "--data", data, "--now", "2026-11-18T12:00:00Z", "--detailed-exitcode"])
        #expect(detailed.status == 0)
    }

    @Test func detailedExitcodeIsTwoWhenThePlanHasChanges() async throws {
        let s = try TempDirectory("hearth-e2e")
        defer { s.remove() }
        try s.write("d/users/a.json", #"{"name": "A", "totalPointsGifted": 150, "giftsGiven": 3}"#)
        let r = try await HearthProcess.run(["plan", "leaderboard-rebuild", "--data", s.path + "/d", "--now", "2026-11-18T12:00:00Z", "--detailed-exitcode", "--param", "periods=alltime"])
        #expect(r.status == 2)
        #expect(r.stdout == """
            leaderboard_cache: 1 to create
              + leaderboard_cache/alltime
                  type: "alltime"
                  topUsers: [{"userId":"a","name":"A","username":"","school":"","giftsGiven":3,"totalPointsGifted":150,"rank":1}]
                  lastUpdated: "2026-11-18T12:00:00.000Z"
                  totalUsers: 1

            users: 1 to update
              ~ users/a
                  rank: (absent) → 1
                  generosityLevel: (absent) → "Helper"
                  generosityScore: (absent) → 6

            Plan: 1 to create, 1 to update, 0 to delete; 0 pushes, 0 webhooks.

            """)
        let md = try await HearthProcess.run(["plan", "leaderboard-rebuild", "--data", s.path + "/d", "--now", "2026-11-18T12:00:00Z", "--format", "markdown", "--param", "periods=alltime"])
        #expect(md.stdout.contains("| update | `users/a` | rank: (absent) → 1<br>generosityLevel: (absent) → \"Helper\"<br>generosityScore: (absent) → 6 |"))
        #expect(md.stdout.hasSuffix("**Plan: 1 to create, 1 to update, 0 to delete; 0 pushes, 0 webhooks.**\n"))
    }
}
