import HearthKit
import HearthStore
import HearthHost
import Testing

/// docs/jobs/report-triage.md#rules on hand-made data sets at T = S = 2026-11-18T12:00:00Z.
@Suite("report-triage")
struct ReportTriageTests {
    static let now = "2026-11-18T12:00:00Z"
    static let S = "2026-11-18T12:00:00.000Z"

    /// Users alice … erin; alice's public trade t1, bob's public trade t2, carol's unlisted
    /// trade t3; a message m1.
    func makeData() throws -> TestDataDirectory {
        let d = try TestDataDirectory()
        for u in ["alice", "bob", "carol", "dave", "erin"] { try d.writeDocument("users/\(u)", #"{"displayName": "\#(u)"}"#) }
        try d.writeDocument("trades/t1", """
            {
              "title": "Guitar lessons for Spanish practice",
              "creatorId": "alice",
              "status": "open",
              "visibility": "public"
            }
            """)
        try d.writeDocument("trades/t2", #"{"title": "Logo design", "creatorId": "bob", "status": "open", "visibility": "public"}"#)
        try d.writeDocument("trades/t3", #"{"title": "Python tutoring", "creatorId": "carol", "status": "open", "visibility": "unlisted"}"#)
        try d.writeDocument("messages/m1", #"{"senderId": "bob", "text": "buy followers at …"}"#)
        return d
    }

    static func report(_ reporter: String, _ type: String, _ content: String, reason: String = #""spam""#, at: String = #""2026-11-18T10:00:00Z""#) -> String {
        """
        {
          "reporterId": \(reporter),
          "contentId": \(content),
          "contentType": \(type),
          "reason": \(reason),
          "details": "",
          "createdAt": \(at)
        }
        """
    }

    static func rejected(_ report: String, _ code: String) -> String {
        report.dropLast(2) + """
            ,
              "status": "rejected",
              "rejectReason": "\(code)",
              "triagedAt": "\(S)"
            }
            """
    }

    /// Writes `report` as `reports/r1`, runs the job, and checks it was rejected with `code`
    /// and nothing else changed.
    func expectRejected(_ report: String, _ code: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let d = try makeData()
        defer { d.remove() }
        try d.writeDocument("reports/r1", report)
        let before = GamificationCheck.snapshot(d)
        let outcome = try await d.run("report-triage", now: Self.now)
        #expect(outcome.error == nil, sourceLocation: sourceLocation)
        #expect(d.documentText("reports/r1") == Self.rejected(report, code), sourceLocation: sourceLocation)
        var after = GamificationCheck.snapshot(d)
        after["reports/r1"] = before["reports/r1"]
        #expect(after == before, sourceLocation: sourceLocation)
        #expect(outcome.plan.messages.isEmpty, sourceLocation: sourceLocation)
    }

    // MARK: Queueing

    @Test func aReportIsQueuedIntoItsItemWithCountsReportersReasonsAndDates() async throws {
        let d = try makeData()
        defer { d.remove() }
        try d.writeDocument("reports/r1", Self.report(#""bob""#, #""trade""#, #""t1""#, reason: #""inappropriate""#))
        try d.writeDocument("reports/r2", Self.report(#""carol""#, #""trade""#, #""t1""#, at: #""2026-11-18T09:00:00Z""#))
        // Same reporter again, no reason: counted, reporter once, reason "other".
        try d.writeDocument("reports/r3", Self.report(#""bob""#, #""trade""#, #""t1""#, reason: "null", at: #""2026-11-18T11:00:00Z""#))
        let outcome = try await GamificationCheck.expectPlanMatchesRun(d, "report-triage", now: Self.now)
        #expect(outcome.plan.summaryLine == "Applied: 1 to create, 3 to update, 0 to delete; 0 pushes, 1 webhook.")
        #expect(d.documentText("reports/r1") == """
            {
              "reporterId": "bob",
              "contentId": "t1",
              "contentType": "trade",
              "reason": "inappropriate",
              "details": "",
              "createdAt": "2026-11-18T10:00:00Z",
              "status": "queued",
              "queueItemId": "trade-t1",
              "triagedAt": "\(Self.S)"
            }
            """)
        let item = """
            {
              "contentType": "trade",
              "contentId": "t1",
              "status": "open",
              "reportCount": 3,
              "reporterIds": [
                "bob",
                "carol"
              ],
              "reasons": {
                "spam": 1,
                "inappropriate": 1,
                "other": 1
              },
              "firstReportedAt": "2026-11-18T09:00:00.000Z",
              "lastReportedAt": "2026-11-18T11:00:00.000Z",
              "hidden": false,
              "createdAt": "\(Self.S)",
              "updatedAt": "\(Self.S)"
            }
            """
        #expect(d.documentText("moderationQueue/trade-t1") == item)
        // One report.queued per item, carrying the item.
        let event = try #require(outcome.plan.messages.first)
        #expect(outcome.plan.messages.map(\.id) == ["report.queued-trade-t1-3"])
        #expect(event.kind == .event && event.recipient == "report.queued")
        #expect(event.payload["queueItemId"] == "trade-t1")
        #expect(event.payload["reportCount"] == 3)
        // Two reporters: below hideAt (3), the trade stays public.
        #expect(try d.object("trades/t1")?["visibility"] == "public")
    }

    @Test func reportsOnAnExistingItemAddToItsCountsAndKeepTheModeratorsFields() async throws {
        let d = try makeData()
        defer { d.remove() }
        try d.writeDocument("moderationQueue/message-m1", """
            {
              "contentType": "message",
              "contentId": "m1",
              "status": "reviewing",
              "reportCount": 1,
              "reporterIds": [
                "erin"
              ],
              "reasons": {
                "harassment": 1
              },
              "firstReportedAt": "2026-11-17T08:00:00.000Z",
              "lastReportedAt": "2026-11-17T08:00:00.000Z",
              "hidden": false,
              "createdAt": "2026-11-17T08:05:00.000Z",
              "updatedAt": "2026-11-17T08:05:00.000Z",
              "notes": "looks like spam"
            }
            """)
        try d.writeDocument("reports/r1", Self.report(#""alice""#, #""message""#, #""m1""#, reason: #""harassment""#, at: #""2026-11-16T23:00:00Z""#))
        try d.writeDocument("reports/r2", Self.report(#""dave""#, #""message""#, #""m1""#, reason: #""rude""#))
        _ = try await d.run("report-triage", now: Self.now)
        #expect(d.documentText("moderationQueue/message-m1") == """
            {
              "contentType": "message",
              "contentId": "m1",
              "status": "reviewing",
              "reportCount": 3,
              "reporterIds": [
                "alice",
                "dave",
                "erin"
              ],
              "reasons": {
                "harassment": 2,
                "other": 1
              },
              "firstReportedAt": "2026-11-16T23:00:00.000Z",
              "lastReportedAt": "2026-11-18T10:00:00.000Z",
              "hidden": false,
              "createdAt": "2026-11-17T08:05:00.000Z",
              "updatedAt": "\(Self.S)",
              "notes": "looks like spam"
            }
            """)
    }

    @Test func aDismissedOrResolvedItemOpensAgain() async throws {
        for status in ["dismissed", "resolved"] {
            let d = try makeData()
            defer { d.remove() }
            try d.writeDocument("moderationQueue/user-dave", #"{"contentType": "user", "contentId": "dave", "status": "\#(status)", "reportCount": 1, "reporterIds": ["erin"], "reasons": {"spam": 1}, "firstReportedAt": null, "lastReportedAt": null, "hidden": false}"#)
            try d.writeDocument("reports/r1", Self.report(#""alice""#, #""user""#, #""dave""#))
            _ = try await d.run("report-triage", now: Self.now)
            let item = try #require(try d.object("moderationQueue/user-dave"))
            #expect(item["status"] == "open")
            #expect(item["reopenedAt"] == .string(Self.S))
            #expect(item["reportCount"] == 2)
            #expect(item["firstReportedAt"] == "2026-11-18T10:00:00.000Z")
        }
    }

    @Test func aSecondRunChangesNothing() async throws {
        let d = try makeData()
        defer { d.remove() }
        try d.writeDocument("reports/r1", Self.report(#""bob""#, #""trade""#, #""t1""#))
        try d.writeDocument("reports/r2", Self.report(#""bob""#, #""trade""#, #""nope""#))
        _ = try await d.run("report-triage", now: Self.now)
        let again = try await d.run("report-triage", now: Self.now)
        #expect(again.plan.summaryLine == "No changes.")
    }

    // MARK: The hold

    @Test func aPublicTradeReachingHideAtDistinctReportersIsHeld() async throws {
        let d = try makeData()
        defer { d.remove() }
        try d.writeDocument("reports/r1", Self.report(#""bob""#, #""trade""#, #""t1""#))
        try d.writeDocument("reports/r2", Self.report(#""carol""#, #""trade""#, #""t1""#))
        _ = try await d.run("report-triage", now: Self.now)
        #expect(try d.object("trades/t1")?["visibility"] == "public")
        // The third distinct reporter, in a later run.
        try d.writeDocument("reports/r3", Self.report(#""dave""#, #""trade""#, #""t1""#, at: #""2026-11-18T11:30:00Z""#))
        let outcome = try await GamificationCheck.expectPlanMatchesRun(d, "report-triage", now: "2026-11-18T12:05:00Z")
        #expect(d.documentText("trades/t1") == """
            {
              "title": "Guitar lessons for Spanish practice",
              "creatorId": "alice",
              "status": "open",
              "visibility": "unlisted",
              "moderationHold": true,
              "visibilityBeforeHold": "public",
              "heldAt": "2026-11-18T12:05:00.000Z"
            }
            """)
        #expect(try d.object("moderationQueue/trade-t1")?["hidden"] == true)
        #expect(outcome.plan.messages.map(\.id) == ["content.held-trade-t1-3", "report.queued-trade-t1-3"])
        #expect(outcome.plan.messages.first?.payload == JSONObject([
            ("queueItemId", "trade-t1"), ("contentType", "trade"), ("contentId", "t1"), ("reporterCount", 3), ("heldAt", "2026-11-18T12:05:00.000Z"),
        ]))
    }

    @Test func onlyAPublicTradeWithEnoughDistinctReportersIsHeld() async throws {
        let d = try makeData()
        defer { d.remove() }
        // t2: three reports from two reporters. t3: three reporters, but already unlisted.
        try d.writeDocument("reports/r1", Self.report(#""alice""#, #""trade""#, #""t2""#))
        try d.writeDocument("reports/r2", Self.report(#""alice""#, #""trade""#, #""t2""#))
        try d.writeDocument("reports/r3", Self.report(#""carol""#, #""trade""#, #""t2""#))
        for r in ["alice", "bob", "dave"] { try d.writeDocument("reports/t3-\(r)", Self.report(#""\#(r)""#, #""trade""#, #""t3""#)) }
        let outcome = try await d.run("report-triage", now: Self.now)
        #expect(try d.object("trades/t2")?["visibility"] == "public")
        #expect(d.documentText("trades/t3") == #"{"title": "Python tutoring", "creatorId": "carol", "status": "open", "visibility": "unlisted"}"#)
        #expect(try d.object("moderationQueue/trade-t3")?["hidden"] == false)
        #expect(outcome.plan.messages.map(\.id) == ["report.queued-trade-t2-3", "report.queued-trade-t3-3"])
        // With hideAt = 2, t2 is held.
        try d.writeDocument("reports/r4", Self.report(#""carol""#, #""trade""#, #""t2""#))
        _ = try await d.run("report-triage", now: Self.now, params: ["hideAt": "2"])
        #expect(try d.object("trades/t2")?["moderationHold"] == true)
    }

    // MARK: Rejection codes, in the order they are checked

    @Test func aReportWithoutReporterOrContentOrWithAnUnknownContentTypeIsInvalid() async throws {
        try await expectRejected(Self.report("null", #""trade""#, #""t1""#), "invalid_report")
        try await expectRejected(Self.report(#""bob""#, #""trade""#, #""""#), "invalid_report")
        try await expectRejected(Self.report(#""bob""#, #""gig""#, #""t1""#), "invalid_report")
        try await expectRejected(Self.report(#""bob""#, "7", #""t1""#), "invalid_report")
    }

    @Test func reportedContentThatDoesNotExistIsNotFound() async throws {
        try await expectRejected(Self.report(#""bob""#, #""trade""#, #""m1""#), "content_not_found")
        try await expectRejected(Self.report(#""bob""#, #""message""#, #""t1""#), "content_not_found")
        try await expectRejected(Self.report(#""bob""#, #""user""#, #""ghost""#), "content_not_found")
    }

    @Test func aReporterWithoutAUsersDocumentIsUnknown() async throws {
        try await expectRejected(Self.report(#""ghost""#, #""trade""#, #""t1""#), "unknown_reporter")
    }

    @Test func reportingOneselfOrOnesOwnTradeIsOwnContent() async throws {
        try await expectRejected(Self.report(#""dave""#, #""user""#, #""dave""#), "own_content")
        try await expectRejected(Self.report(#""alice""#, #""trade""#, #""t1""#), "own_content")
    }

    // MARK: Bad input

    @Test func aReportOnAnInvalidTradeStaysNewWithAWarning() async throws {
        let d = try makeData()
        defer { d.remove() }
        try d.writeDocument("trades/t9", #"{"creatorId": 5, "visibility": "public"}"#)
        let report = Self.report(#""bob""#, #""trade""#, #""t9""#)
        try d.writeDocument("reports/r1", report)
        let outcome = try await d.run("report-triage", now: Self.now)
        #expect(outcome.record.warnings == [
            #"trades/t9.json: field "creatorId": expected string, found integer 5"#,
            "reports/r1.json: left untriaged because trades/t9.json is invalid (see its warning); it is triaged once that is fixed",
        ])
        #expect(d.documentText("reports/r1") == report)
        #expect(d.ids("moderationQueue") == [])
    }
}
