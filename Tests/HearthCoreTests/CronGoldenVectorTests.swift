import Foundation
import Testing
@testable import HearthKit
@testable import HearthStore
@testable import HearthHTTP
@testable import HearthSchedule
@testable import HearthOutbound
@testable import HearthHost
import HearthTestSupport

/// Golden next-fire vectors produced by Python's `cronsim` (scripts/gen_cron_vectors.py):
/// 360 expressions × 5 zones × bases around every DST transition of 2025-2027 × 20 fires.
@Suite("Cron golden vectors (cronsim)")
struct CronGoldenVectorTests {
    private struct Fixture: Decodable {
        struct Entry: Decodable {
            let expr: String
            /// `[zoneIndex, base, fire1, ..., fireN]`, epoch seconds.
            let runs: [[Int64]]
        }
        let cronsim: String
        let count: Int
        let zones: [String]
        let transitions: [String: [Int64]]
        let expressions: [Entry]
    }

    private static func loadFixture() throws -> Fixture {
        let url = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()
            .appendingPathComponent("Fixtures/cron/vectors.json")
        return try JSONDecoder().decode(Fixture.self, from: Data(contentsOf: url))
    }

    private static func utc(_ seconds: Int64) -> String {
        let date = Date(timeIntervalSince1970: TimeInterval(seconds))
        return date.formatted(.iso8601)
    }

    @Test("fireTimes and chained nextFire equal every cronsim vector")
    func everyVectorMatchesCronsim() throws {
        let fixture = try Self.loadFixture()
        #expect(fixture.expressions.count >= 300)
        let zones = try fixture.zones.map { name in
            try #require(TimeZone(identifier: name), "unknown zone \(name)")
        }
        var mismatches: [String] = []
        var checked = 0
        for entry in fixture.expressions {
            let schedule = try Schedule(parsing: entry.expr)
            for run in entry.runs {
                let zone = zones[Int(run[0])]
                let base = run[1]
                let expected = Array(run.dropFirst(2))
                let baseDate = Date(timeIntervalSince1970: TimeInterval(base))
                let batch = schedule.fireTimes(after: baseDate, in: zone, count: expected.count)
                    .map { Int64($0.timeIntervalSince1970) }
                // The daemon asks one slot at a time: chaining must give the same answers.
                var chained: [Int64] = []
                var cursor = baseDate
                for _ in expected.indices {
                    guard let next = schedule.nextFire(after: cursor, in: zone) else { break }
                    chained.append(Int64(next.timeIntervalSince1970))
                    cursor = next
                }
                checked += expected.count
                for (label, actual) in [("fireTimes", batch), ("chained nextFire", chained)] where actual != expected {
                    let index = zip(actual, expected).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset ?? min(actual.count, expected.count)
                    let got = index < actual.count ? Self.utc(actual[index]) : "nothing"
                    let want = index < expected.count ? Self.utc(expected[index]) : "nothing"
                    mismatches.append(
                        "\"\(entry.expr)\" in \(zone.identifier) after \(Self.utc(base)) (\(base)) [\(label)]: "
                            + "fire #\(index + 1) is \(got), cronsim says \(want)")
                }
            }
        }
        #expect(checked >= 300_000, "only \(checked) fire times checked")
        let mismatchCount = mismatches.count
        let report = mismatches.prefix(20).joined(separator: "\n")
        #expect(mismatchCount == 0, "\(mismatchCount) mismatching runs; first 20:\n\(report)")
    }

    @Test("the fixture covers every DST transition of 2025-2027 in New York, Berlin and Lord Howe")
    func fixtureCoversEveryTransition() throws {
        let fixture = try Self.loadFixture()
        for name in ["America/New_York", "Europe/Berlin", "Australia/Lord_Howe"] {
            let transitions = try #require(fixture.transitions[name])
            #expect(transitions.count == 6, "\(name) has \(transitions.count) transitions")
            let zoneIndex = try #require(fixture.zones.firstIndex(of: name))
            // Foundation must know the same transitions, or every comparison would be moot.
            let zone = try #require(TimeZone(identifier: name))
            var cursor = Date(timeIntervalSince1970: 1_735_689_600)  // 2025-01-01
            for transition in transitions {
                let next = try #require(zone.nextDaylightSavingTimeTransition(after: cursor))
                #expect(Int64(next.timeIntervalSince1970) == transition, "\(name)")
                cursor = next
            }
            for transition in transitions {
                let expressionsNear = fixture.expressions.filter { entry in
                    entry.runs.contains { $0[0] == Int64(zoneIndex) && abs($0[1] - transition) <= 3 * 3_600 }
                }
                #expect(expressionsNear.count >= 300, "\(name) transition \(transition): \(expressionsNear.count)")
            }
        }
    }
}
