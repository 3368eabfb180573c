import Foundation
import HearthKit
import Testing

@Suite("Timestamps")
struct TimestampTests {
    @Test(arguments: [
        ("\"2026-11-21T09:30:00Z\"", "2026-11-21T09:30:00.000Z"),
        ("\"2026-11-21T09:30:00.123456Z\"", "2026-11-21T09:30:00.123Z"),
        ("\"2026-11-21T10:30:00+01:00\"", "2026-11-21T09:30:00.000Z"),
        ("\"2026-11-21T03:30:00-0600\"", "2026-11-21T09:30:00.000Z"),
        (#"{"_seconds": 1763717400, "_nanoseconds": 500000000}"#, "2025-11-21T09:30:00.500Z"),
        (#"{"seconds": 1763717400, "nanos": 0}"#, "2025-11-21T09:30:00.000Z"),
    ])
    func everyAcceptedFormReadsAsTheSameInstant(json: String, expected: String) throws {
        let date = try #require(Timestamp.date(from: try JSONParser.parse(json)))
        #expect(Timestamp.format(date) == expected)
    }

    @Test(arguments: ["2026-11-21", "2026-11-21T09:30:00", "2026-02-30T00:00:00Z", "yesterday", "2026-11-21T25:00:00Z"])
    func malformedTimestampsAreRejected(text: String) {
        #expect(Timestamp.parseISO8601(text) == nil)
    }

    @Test func isoWeekIDsUseTheWeekNumberingYear() throws {
        #expect(LocalDate(year: 2026, month: 12, day: 28).isoWeekID == "2026-W53")
        #expect(LocalDate(year: 2027, month: 1, day: 3).isoWeekID == "2026-W53")
        #expect(LocalDate(year: 2027, month: 1, day: 4).isoWeekID == "2027-W01")
        #expect(LocalDate(year: 2026, month: 11, day: 16).isoWeekID == "2026-W47")
        #expect(LocalDate(year: 2026, month: 11, day: 16).isoWeekday == 1)
    }

    @Test func localDatesFollowTheZone() throws {
        let t = try #require(Timestamp.parseISO8601("2026-11-21T10:30:00Z"))
        #expect(LocalDate(t, in: TimeZone(identifier: "Pacific/Kiritimati")!).description == "2026-11-22")
        #expect(LocalDate(t, in: TimeZone(identifier: "Pacific/Pago_Pago")!).description == "2026-11-20")
    }
}
