import Foundation
import HearthKit
import HearthStore
import HearthHost
@testable import Jobs
import Testing

/// docs/jobs/gig-quality-score.md#the-rubric on hand-made gigs, one per rule edge, at T = 2026-11-18T12:00:00Z.
///
/// Every gig starts from a gig that earns full marks (100, high, no reasons) and changes one
/// thing; the expected score, tier and reasons are written out for each.
@Suite("gig-quality-score")
struct GigQualityScoreTests {
    static let T = "2026-11-18T12:00:00Z"
    static let S = "2026-11-18T12:00:00.000Z"

    /// Words without digits (so they never look like a phone number).
    static func words(_ n: Int, separator: String = " ") -> String {
        let pool = ["join", "our", "friendly", "team", "and", "help", "students", "every", "day", "while", "learning", "useful", "skills"]
        return (0..<n).map { pool[$0 % pool.count] }.joined(separator: separator)
    }

    static func q(_ s: String) -> String { JSONWriter.quoted(s) }

    /// One hand-made gig: `changes` replace fields of the full-marks gig (values are JSON
    /// text; nil removes the field; new fields are appended), then the verdict expected.
    struct Case: Sendable, CustomStringConvertible {
        var id: String
        var changes: [(String, String?)]
        var score: Int64
        var tier: String
        var reasons: [String]

        init(_ id: String, _ changes: [(String, String?)], _ score: Int64, _ tier: String, _ reasons: [String]) {
            self.id = id
            self.changes = changes
            self.score = score
            self.tier = tier
            self.reasons = reasons
        }

        var description: String { id }
    }

    /// The full-marks gig: 22-character title, 90 words, payMin, location, company (unique
    /// per gig, so no two cases are duplicates), posted 1 day before T, internal.
    static func gigJSON(_ id: String, _ changes: [(String, String?)]) -> String {
        var fields: [(String, String?)] = [
            ("title", q("Barista, morning shift")),
            ("description", q(words(90))),
            ("company", q("Badger Brew \(id)")),
            ("location", q("Madison, WI")),
            ("isRemote", "false"),
            ("payMin", "15"),
            ("postedAt", q("2026-11-17T12:00:00Z")),
            ("source", q("internal")),
            ("status", q("active")),
        ]
        for (k, v) in changes {
            if let i = fields.firstIndex(where: { $0.0 == k }) { fields[i].1 = v } else { fields.append((k, v)) }
        }
        return "{" + fields.compactMap { k, v in v.map { "\(q(k)): \($0)" } }.joined(separator: ", ") + "}"
    }

    /// Writes the cases, runs the job once at T, and checks every gig's five fields.
    static func check(_ cases: [Case], sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let d = try TestDataDirectory()
        defer { d.remove() }
        for c in cases { try d.write("gigs/\(c.id)", gigJSON(c.id, c.changes)) }
        let outcome = try await d.run("gig-quality-score", now: T)
        #expect(outcome.error == nil, sourceLocation: sourceLocation)
        #expect(outcome.record.warnings == [], sourceLocation: sourceLocation)
        for c in cases {
            let o = try #require(try d.object("gigs/\(c.id)"), sourceLocation: sourceLocation)
            let got = "\(o["qualityScore"].map(JSONWriter.compact) ?? "-") \(o["qualityTier"].map(JSONWriter.compact) ?? "-") \(o["qualityReasons"].map(JSONWriter.compact) ?? "-")"
            let want = "\(c.score) \(q(c.tier)) [\(c.reasons.map(q).joined(separator: ","))]"
            #expect(got == want, "gig \(c.id)", sourceLocation: sourceLocation)
            #expect(o["qualityVersion"] == .int(1), "gig \(c.id)", sourceLocation: sourceLocation)
            #expect(o["qualityScoredAt"] == .string(S), "gig \(c.id)", sourceLocation: sourceLocation)
        }
    }

    static func title(_ length: Int) -> String {
        let t = "Campus barista " + String(repeating: "x", count: length - 15)
        precondition(t.count == length)
        return t
    }

    // MARK: - Components

    @Test func titleScoresByLengthInCharactersAndShouting() async throws {
        try await Self.check([
            Case("full-marks", [], 100, "high", []),
            Case("title-04", [("title", Self.q("Cook"))], 85, "high", ["weak_title"]),
            Case("title-05", [("title", Self.q("Tutor"))], 93, "high", ["weak_title"]),
            Case("title-09", [("title", Self.q("Line cook"))], 93, "high", ["weak_title"]),
            Case("title-10", [("title", Self.q("Dishwasher"))], 100, "high", []),
            Case("title-80", [("title", Self.q(Self.title(80)))], 100, "high", []),
            Case("title-81", [("title", Self.q(Self.title(81)))], 93, "high", ["weak_title"]),
            Case("title-120", [("title", Self.q(Self.title(120)))], 93, "high", ["weak_title"]),
            Case("title-121", [("title", Self.q(Self.title(121)))], 85, "high", ["weak_title"]),
            // Trimmed before counting: 9 characters.
            Case("title-padded", [("title", Self.q("   Line cook  "))], 93, "high", ["weak_title"]),
            Case("title-blank", [("title", Self.q("   "))], 85, "high", ["weak_title"]),
            Case("title-missing", [("title", nil)], 85, "high", ["weak_title"]),
            Case("title-null", [("title", "null")], 85, "high", ["weak_title"]),
            // Characters, not Unicode scalars: "e" + U+0301 is one character (9 characters,
            // 10 scalars; 10 characters, 11 scalars).
            Case("title-combining-9", [("title", #""Cafe\u0301 crew""#)], 93, "high", ["weak_title"]),
            Case("title-combining-10", [("title", #""Cafe\u0301 staff""#)], 100, "high", []),
            // Shouting needs more than 10 letters, over half of them upper case.
            Case("shout-10-letters", [("title", Self.q("BARISTA JOB"))], 100, "high", []),
            Case("shout-11-letters", [("title", Self.q("BARISTA JOBS"))], 93, "high", ["weak_title"]),
            Case("shout-exactly-half", [("title", Self.q("WEEKEND barista"))], 100, "high", []),
            Case("shout-over-half", [("title", Self.q("WEEKEND BArista"))], 93, "high", ["weak_title"]),
            Case("shout-digits-are-not-letters", [("title", Self.q("BARISTA 2026"))], 100, "high", []),
            Case("shout-non-latin", [("title", Self.q("ÉTUDIANT SERVEUR"))], 93, "high", ["weak_title"]),
        ])
    }

    @Test func descriptionScoresByWordsSplitOnWhitespace() async throws {
        try await Self.check([
            Case("words-14", [("description", Self.q(Self.words(14)))], 75, "high", ["short_description"]),
            Case("words-15", [("description", Self.q(Self.words(15)))], 85, "high", ["short_description"]),
            Case("words-39", [("description", Self.q(Self.words(39)))], 85, "high", ["short_description"]),
            Case("words-40", [("description", Self.q(Self.words(40)))], 93, "high", ["short_description"]),
            Case("words-79", [("description", Self.q(Self.words(79)))], 93, "high", ["short_description"]),
            Case("words-80", [("description", Self.q(Self.words(80)))], 100, "high", []),
            Case("words-80-mixed-whitespace", [("description", Self.q("  " + Self.words(80, separator: " \n\t ") + "\n"))], 100, "high", []),
            Case("words-79-mixed-whitespace", [("description", Self.q(Self.words(79, separator: "\n\n")))], 93, "high", ["short_description"]),
            Case("description-missing", [("description", nil)], 75, "high", ["short_description"]),
        ])
    }

    @Test func payScoresNumbersThenTextWithADigit() async throws {
        try await Self.check([
            Case("pay-min", [], 100, "high", []),
            Case("pay-max-only", [("payMin", nil), ("payMax", "22.5")], 100, "high", []),
            Case("pay-min-zero-max-set", [("payMin", "0"), ("payMax", "18")], 100, "high", []),
            Case("pay-zero", [("payMin", "0"), ("payMax", "0")], 80, "high", ["no_pay"]),
            Case("pay-text", [("payMin", nil), ("compensation", Self.q("$15/hour"))], 90, "high", ["vague_pay"]),
            Case("pay-negative-and-text", [("payMin", "-5"), ("compensation", Self.q("15-18 an hour"))], 90, "high", ["vague_pay"]),
            Case("pay-null-and-text", [("payMin", "null"), ("compensation", Self.q("about 20 per shift"))], 90, "high", ["vague_pay"]),
            Case("pay-text-without-digit", [("payMin", nil), ("compensation", Self.q("Competitive"))], 80, "high", ["no_pay"]),
            Case("pay-none", [("payMin", nil)], 80, "high", ["no_pay"]),
        ])
    }

    @Test func placeAndOrganizationNeedNonBlankText() async throws {
        try await Self.check([
            Case("remote-no-location", [("location", Self.q("")), ("isRemote", "true")], 100, "high", []),
            Case("remote-only", [("location", nil), ("isRemote", "true")], 100, "high", []),
            Case("blank-location", [("location", Self.q("  \t "))], 90, "high", ["no_location"]),
            Case("no-place", [("location", nil), ("isRemote", nil)], 90, "high", ["no_location"]),
            // Without a company the title tells the gigs apart (no duplicates here).
            Case("company-blank", [("title", Self.q("Barista, evening shift")), ("company", Self.q("  "))], 90, "high", ["no_company"]),
            Case("company-missing", [("title", Self.q("Barista, night shift")), ("company", nil)], 90, "high", ["no_company"]),
        ])
    }

    @Test func freshnessCountsElapsedDaysBeforeT() async throws {
        try await Self.check([
            Case("posted-at-T", [("postedAt", Self.q("2026-11-18T12:00:00Z"))], 100, "high", []),
            Case("posted-7-days", [("postedAt", Self.q("2026-11-11T12:00:00Z"))], 100, "high", []),
            Case("posted-7-days-1s", [("postedAt", Self.q("2026-11-11T11:59:59Z"))], 95, "high", ["stale"]),
            Case("posted-30-days", [("postedAt", Self.q("2026-10-19T12:00:00Z"))], 95, "high", ["stale"]),
            Case("posted-30-days-1ms", [("postedAt", Self.q("2026-10-19T11:59:59.999Z"))], 90, "high", ["stale"]),
            Case("posted-after-T", [("postedAt", Self.q("2026-11-18T12:00:01Z"))], 90, "high", ["stale"]),
            Case("posted-missing", [("postedAt", nil)], 90, "high", ["stale"]),
            Case("posted-firebase-form", [("postedAt", #"{"_seconds": 1794398400, "_nanoseconds": 0}"#)], 100, "high", []),
            Case("posted-with-offset", [("postedAt", Self.q("2026-11-11T13:00:00+01:00"))], 100, "high", []),
        ])
    }

    @Test func applyPathNeedsInternalOrAnHTTPSLinkWithADottedHost() async throws {
        try await Self.check([
            Case("internal", [], 100, "high", []),
            Case("internal-with-http-link", [("externalUrl", Self.q("http://jobs.example.com/1"))], 100, "high", []),
            Case("https", [("source", Self.q("indeed")), ("externalUrl", Self.q("https://jobs.example.com/apply/1"))], 100, "high", []),
            Case("https-upper-case", [("source", Self.q("indeed")), ("externalUrl", Self.q("HTTPS://Jobs.Example.COM/apply"))], 100, "high", []),
            Case("https-user-port", [("source", Self.q("indeed")), ("externalUrl", Self.q("https://me@jobs.example.com:8443/a"))], 100, "high", []),
            Case("https-no-source", [("source", nil), ("externalUrl", Self.q("https://jobs.example.com/2"))], 100, "high", []),
            Case("http", [("source", Self.q("indeed")), ("externalUrl", Self.q("http://jobs.example.com/apply/1"))], 95, "high", ["insecure_apply_url"]),
            Case("https-no-dot", [("source", Self.q("indeed")), ("externalUrl", Self.q("https://localhost/apply"))], 90, "high", ["no_apply_path"]),
            Case("http-no-dot", [("source", Self.q("indeed")), ("externalUrl", Self.q("http://intranet:8080/apply"))], 90, "high", ["no_apply_path"]),
            Case("dot-only-in-path", [("source", Self.q("indeed")), ("externalUrl", Self.q("https://localhost/jobs.example.com"))], 90, "high", ["no_apply_path"]),
            Case("empty-label", [("source", Self.q("indeed")), ("externalUrl", Self.q("https://.com/apply"))], 90, "high", ["no_apply_path"]),
            Case("ftp", [("source", Self.q("indeed")), ("externalUrl", Self.q("ftp://files.example.com/job"))], 90, "high", ["no_apply_path"]),
            Case("no-link", [("source", Self.q("handshake"))], 90, "high", ["no_apply_path"]),
            Case("nothing", [("source", nil)], 90, "high", ["no_apply_path"]),
        ])
    }

    // MARK: - Penalties

    @Test func contactDetailsAreEmailsOrNineDigitRuns() async throws {
        let text = Self.words(90)
        try await Self.check([
            Case("email-description", [("description", Self.q(text + " Write to jobs@example.com."))], 85, "high", ["contact_details"]),
            Case("email-title", [("title", Self.q("Barista: ana.lee+gigs@uni.example.edu"))], 85, "high", ["contact_details"]),
            Case("handle-is-not-email", [("description", Self.q(text + " Follow @badgerbrew for news"))], 100, "high", []),
            Case("no-tld-is-not-email", [("description", Self.q(text + " ask me@home"))], 100, "high", []),
            Case("phone-8-digits", [("description", Self.q(text + " Call (608) 555-01 today"))], 100, "high", []),
            Case("phone-9-digits", [("description", Self.q(text + " Call (608) 555-019 today"))], 85, "high", ["contact_details"]),
            Case("phone-dots", [("description", Self.q(text + " Call 608.555.0199"))], 85, "high", ["contact_details"]),
            Case("phone-plain-run", [("description", Self.q(text + " ref 123456789"))], 85, "high", ["contact_details"]),
            Case("phone-title", [("title", Self.q("Barista 608 555 0199"))], 85, "high", ["contact_details"]),
            // A comma ends a run: 2 + 2 + 2 digits.
            Case("numbers-apart", [("description", Self.q(text + " ages 16-18, 40 hours, 15 dollars"))], 100, "high", []),
        ])
    }

    @Test func hypeIsThreeBangsOrTwoDollars() async throws {
        let text = Self.words(90)
        try await Self.check([
            Case("bangs-3", [("description", Self.q(text + " Apply now!!!"))], 90, "high", ["hype"]),
            Case("bangs-2", [("description", Self.q(text + " Apply now!!"))], 100, "high", []),
            Case("dollars-title", [("title", Self.q("Earn $$ as a barista"))], 90, "high", ["hype"]),
            Case("dollar-once", [("description", Self.q(text + " $5 bonus $ each"))], 100, "high", []),
            // Both penalties, in table order.
            Case("contact-and-hype", [("title", Self.q("Call 608-555-0199 now!!!"))], 75, "high", ["contact_details", "hype"]),
        ])
    }

    @Test func duplicatesGoToTheEarliestPostedThenTheSmallerID() async throws {
        let acme: [(String, String?)] = [("title", Self.q("Barista, morning shift")), ("company", Self.q("Acme"))]
        try await Self.check([
            // Same lower-cased, trimmed title and company, equal postedAt: the smaller id wins.
            Case("dup-a", acme, 100, "high", []),
            Case("dup-b", [("title", Self.q("  BARISTA, Morning Shift ")), ("company", Self.q("acme  "))], 80, "high", ["duplicate"]),
            Case("dup-c", acme + [("postedAt", Self.q("2026-11-17T12:00:01Z"))], 80, "high", ["duplicate"]),
            Case("dup-other-company", [("title", Self.q("Barista, morning shift")), ("company", Self.q("Acme Inc"))], 100, "high", []),
            // An earlier postedAt beats a smaller id.
            Case("grp2-a", [("title", Self.q("Line cook, grill")), ("company", Self.q("Union South")), ("postedAt", Self.q("2026-11-17T12:00:00Z"))], 80, "high", ["duplicate"]),
            Case("grp2-z", [("title", Self.q("Line cook, grill")), ("company", Self.q("Union South")), ("postedAt", Self.q("2026-11-16T12:00:00Z"))], 100, "high", []),
            // Closed and deleted gigs are no one's original.
            Case("grp3-open", [("title", Self.q("Dog walker")), ("company", Self.q("Paws")), ("postedAt", Self.q("2026-11-17T12:00:00Z"))], 100, "high", []),
            // A gig without postedAt comes after every dated one.
            Case("grp4-a-undated", [("title", Self.q("Tutor, calculus")), ("company", Self.q("Math Hub")), ("postedAt", nil)], 70, "medium", ["stale", "duplicate"]),
            Case("grp4-b-dated", [("title", Self.q("Tutor, calculus")), ("company", Self.q("Math Hub")), ("postedAt", Self.q("2026-11-17T12:00:00Z"))], 100, "high", []),
            // An expired gig is still scored, so it stays the original.
            Case("grp5-a-expired", [("title", Self.q("Usher, evening concerts")), ("company", Self.q("Overture")), ("postedAt", Self.q("2026-11-10T12:00:00Z")), ("expiresAt", Self.q("2026-11-15T00:00:00Z"))], 0, "low", ["stale", "expired"]),
            Case("grp5-b-repost", [("title", Self.q("Usher, evening concerts")), ("company", Self.q("Overture"))], 80, "high", ["duplicate"]),
        ], closed: [
            ("grp3-closed", Self.gigJSON("grp3-closed", [("title", Self.q("Dog walker")), ("company", Self.q("Paws")), ("postedAt", Self.q("2026-11-01T12:00:00Z")), ("status", Self.q("closed"))])),
            ("grp3-deleted", Self.gigJSON("grp3-deleted", [("title", Self.q("Dog walker")), ("company", Self.q("Paws")), ("postedAt", Self.q("2026-11-02T12:00:00Z")), ("status", Self.q("deleted"))])),
        ])
    }

    /// `check` plus gigs that must be left exactly as written (closed, deleted).
    static func check(_ cases: [Case], closed: [(String, String)], sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let d = try TestDataDirectory()
        defer { d.remove() }
        for (id, json) in closed { try d.write("gigs/\(id)", json) }
        for c in cases { try d.write("gigs/\(c.id)", gigJSON(c.id, c.changes)) }
        let outcome = try await d.run("gig-quality-score", now: T)
        #expect(outcome.error == nil, sourceLocation: sourceLocation)
        for (id, json) in closed { #expect(d.text("gigs/\(id)") == json, "gig \(id) must not be rewritten", sourceLocation: sourceLocation) }
        for c in cases {
            let o = try #require(try d.object("gigs/\(c.id)"), sourceLocation: sourceLocation)
            let got = "\(o["qualityScore"].map(JSONWriter.compact) ?? "-") \(o["qualityTier"].map(JSONWriter.compact) ?? "-") \(o["qualityReasons"].map(JSONWriter.compact) ?? "-")"
            let want = "\(c.score) \(q(c.tier)) [\(c.reasons.map(q).joined(separator: ","))]"
            #expect(got == want, "gig \(c.id)", sourceLocation: sourceLocation)
        }
    }

    @Test func expiredGigsScoreZeroButKeepTheirReasons() async throws {
        try await Self.check([
            Case("expires-at-T", [("expiresAt", Self.q("2026-11-18T12:00:00Z"))], 100, "high", []),
            Case("expires-after-T", [("expiresAt", Self.q("2026-12-01T00:00:00Z"))], 100, "high", []),
            Case("expired-1ms-before-T", [("expiresAt", Self.q("2026-11-18T11:59:59.999Z"))], 0, "low", ["expired"]),
            Case("expired-weak", [("title", Self.q("Cook!!!")), ("expiresAt", Self.q("2026-11-01T00:00:00Z"))], 0, "low", ["weak_title", "hype", "expired"]),
        ])
    }

    @Test func scoresAreClampedAndTiered() async throws {
        let bare: [(String, String?)] = ["description", "company", "location", "isRemote", "payMin", "postedAt", "source", "status"].map { ($0, nil) }
        try await Self.check([
            // 15 for the title − 15 − 10 → clamped to 0.
            Case("clamped", bare + [("title", Self.q("Email me@example.com!!!"))], 0, "low", ["short_description", "no_pay", "no_location", "no_company", "stale", "no_apply_path", "contact_details", "hype"]),
            Case("empty-document", bare + [("title", nil)], 0, "low", ["weak_title", "short_description", "no_pay", "no_location", "no_company", "stale", "no_apply_path"]),
            Case("tier-75", [("description", Self.q(Self.words(14)))], 75, "high", ["short_description"]),
            Case("tier-73", [("title", Self.q("Tutor")), ("postedAt", Self.q("2026-10-01T00:00:00Z")), ("source", nil)], 73, "medium", ["weak_title", "stale", "no_apply_path"]),
            Case("tier-50", [("description", nil), ("payMin", nil), ("postedAt", Self.q("2026-11-08T12:00:00Z"))], 50, "medium", ["short_description", "no_pay", "stale"]),
            Case("tier-48", [("title", Self.q("Tutor")), ("description", nil), ("payMin", nil)], 48, "low", ["weak_title", "short_description", "no_pay"]),
            // Any status but closed/deleted is scored.
            Case("status-draft", [("status", Self.q("draft"))], 100, "high", []),
        ])
    }

    // MARK: - Writes

    @Test func writesOnlyItsFiveFieldsAppendedAfterTheAppsFields() async throws {
        let d = try TestDataDirectory()
        defer { d.remove() }
        try d.write("gigs/g1", #"{"title": "Tutor", "extra": {"keep": [1, 2.50, "x"]}, "payMax": 9007199254740993, "qualityTier": "high", "status": "open"}"#)
        let outcome = try await d.run("gig-quality-score", now: Self.T)
        #expect(outcome.error == nil)
        #expect(d.text("gigs/g1") == """
            {
              "title": "Tutor",
              "extra": {
                "keep": [
                  1,
                  2.50,
                  "x"
                ]
              },
              "payMax": 9007199254740993,
              "qualityTier": "low",
              "status": "open",
              "qualityScore": 28,
              "qualityReasons": [
                "weak_title",
                "short_description",
                "no_location",
                "no_company",
                "stale",
                "no_apply_path"
              ],
              "qualityVersion": 1,
              "qualityScoredAt": "2026-11-18T12:00:00.000Z"
            }

            """)
    }

    @Test func aSecondRunChangesNothing() async throws {
        let d = try TestDataDirectory()
        defer { d.remove() }
        for id in ["a", "b", "c"] { try d.write("gigs/\(id)", Self.gigJSON(id, id == "b" ? [("description", Self.q(Self.words(14)))] : [])) }
        let first = try await d.run("gig-quality-score", now: Self.T)
        #expect(first.plan.summaryLine == "Applied: 0 to create, 3 to update, 0 to delete; 0 pushes, 0 webhooks.")
        let before = try ["a", "b", "c"].map { try FileManager.default.attributesOfItem(atPath: d.root + "/gigs/\($0).json")[.modificationDate] as? Date }
        let texts = ["a", "b", "c"].map { d.text("gigs/\($0)") }

        let second = try await d.run("gig-quality-score", now: Self.T)
        #expect(second.error == nil)
        #expect(second.plan.summaryLine == "No changes.")
        #expect(second.record.updated == 0)
        #expect(["a", "b", "c"].map { d.text("gigs/\($0)") } == texts)
        let after = try ["a", "b", "c"].map { try FileManager.default.attributesOfItem(atPath: d.root + "/gigs/\($0).json")[.modificationDate] as? Date }
        #expect(after == before)

        // A stored score written as 100.0 is the same value: still no change.
        try d.write("gigs/a", try #require(d.text("gigs/a")).replacingOccurrences(of: "\"qualityScore\": 100,", with: "\"qualityScore\": 100.0,"))
        let third = try await d.run("gig-quality-score", now: Self.T, dryRun: true)
        #expect(third.plan.summaryLine == "No changes.")
    }

    @Test func editingOneDescriptionRescoresOnlyThatGig() async throws {
        let d = try TestDataDirectory()
        defer { d.remove() }
        for id in ["a", "b", "c"] { try d.write("gigs/\(id)", Self.gigJSON(id, [("description", Self.q(Self.words(14)))])) }
        _ = try await d.run("gig-quality-score", now: Self.T)
        let untouched = [d.text("gigs/a"), d.text("gigs/c")]

        // The poster lengthens b's description to 80 words; the next run is an hour later.
        let edited = try #require(d.text("gigs/b")).replacingOccurrences(of: Self.q(Self.words(14)), with: Self.q(Self.words(80)))
        try d.write("gigs/b", edited)
        let outcome = try await d.run("gig-quality-score", now: "2026-11-18T13:00:00Z")
        #expect(outcome.error == nil)
        #expect(outcome.plan.summaryLine == "Applied: 0 to create, 1 to update, 0 to delete; 0 pushes, 0 webhooks.")
        #expect(outcome.plan.changes.map(\.path.description) == ["gigs/b"])
        #expect(outcome.plan.changes.first?.fields.map(\.field) == ["qualityScore", "qualityReasons", "qualityScoredAt"])
        #expect([d.text("gigs/a"), d.text("gigs/c")] == untouched)
        let b = try #require(try d.object("gigs/b"))
        #expect(b["qualityScore"] == .int(100))
        #expect(b["qualityTier"] == .string("high"))
        #expect(b["qualityReasons"] == .array([]))
        #expect(b["qualityScoredAt"] == .string("2026-11-18T13:00:00.000Z"))
    }

    @Test func aDryRunWritesNothing() async throws {
        let d = try TestDataDirectory()
        defer { d.remove() }
        let json = Self.gigJSON("a", [])
        try d.write("gigs/a", json)
        let outcome = try await d.run("gig-quality-score", now: Self.T, dryRun: true)
        #expect(outcome.plan.summaryLine == "Plan: 0 to create, 1 to update, 0 to delete; 0 pushes, 0 webhooks.")
        #expect(d.text("gigs/a") == json)
    }

    @Test func theVersionParameterIsWrittenWithNewVerdictsOnly() async throws {
        let d = try TestDataDirectory()
        defer { d.remove() }
        try d.write("gigs/a", Self.gigJSON("a", []))
        try d.write("gigs/b", Self.gigJSON("b", []))
        _ = try await d.run("gig-quality-score", now: Self.T)
        // A version bump alone rewrites nothing: qualityVersion names the version that
        // produced the stored verdict.
        let bump = try await d.run("gig-quality-score", now: Self.T, params: ["version": "2"])
        #expect(bump.plan.summaryLine == "No changes.")
        // A gig whose verdict changes is written with the new version.
        try d.write("gigs/b", try #require(d.text("gigs/b")).replacingOccurrences(of: "\"payMin\": 15", with: "\"payMin\": 0"))
        _ = try await d.run("gig-quality-score", now: "2026-11-18T12:30:00Z", config: """
            [jobs.gig-quality-score.params]
            version = 2
            """)
        #expect(try d.object("gigs/a")?["qualityVersion"] == .int(1))
        let b = try #require(try d.object("gigs/b"))
        #expect(b["qualityVersion"] == .int(2))
        #expect(b["qualityScore"] == .int(80))
        #expect(b["qualityReasons"] == .array(["no_pay"]))
        #expect(b["qualityScoredAt"] == .string("2026-11-18T12:30:00.000Z"))
    }

    @Test func storedQualityFieldsOfAnotherTypeAreOverwritten() async throws {
        let d = try TestDataDirectory()
        defer { d.remove() }
        try d.write("gigs/a", Self.gigJSON("a", [("qualityScore", Self.q("100")), ("qualityTier", Self.q("high")), ("qualityReasons", "[]")]))
        _ = try await d.run("gig-quality-score", now: Self.T)
        let a = try #require(try d.object("gigs/a"))
        #expect(a["qualityScore"] == .int(100))
        #expect(a["qualityVersion"] == .int(1))
    }

    // MARK: - Bad input

    @Test func aFieldOfTheWrongTypeSkipsTheGigWithTheSection10Message() async throws {
        let d = try TestDataDirectory()
        defer { d.remove() }
        let bad = [
            ("bad-pay", Self.gigJSON("bad-pay", [("payMin", Self.q("15"))])),
            ("bad-remote", Self.gigJSON("bad-remote", [("isRemote", Self.q("yes"))])),
            ("bad-posted", Self.gigJSON("bad-posted", [("postedAt", Self.q("last week"))])),
            ("bad-title", Self.gigJSON("bad-title", [("title", "42")])),
            ("bad-status", Self.gigJSON("bad-status", [("status", "false")])),
            // Same title and company as "good", posted earlier: being invalid, it is not
            // scored and so is not good's original.
            ("bad-z", Self.gigJSON("bad-z", [("company", Self.q("Badger Brew good")), ("postedAt", Self.q("2026-11-10T12:00:00Z")), ("description", "[]")])),
        ]
        for (id, json) in bad { try d.write("gigs/\(id)", json) }
        try d.write("gigs/good", Self.gigJSON("good", []))
        let outcome = try await d.run("gig-quality-score", now: Self.T)
        #expect(outcome.error == nil)
        #expect(outcome.record.status == .succeededWithWarnings)
        #expect(outcome.record.warnings == [
            #"gigs/bad-pay.json: field "payMin": expected number, found string "15""#,
            #"gigs/bad-posted.json: field "postedAt": expected timestamp (ISO-8601 string or {"_seconds", "_nanoseconds"}), found string "last week""#,
            #"gigs/bad-remote.json: field "isRemote": expected boolean, found string "yes""#,
            #"gigs/bad-status.json: field "status": expected string, found boolean false"#,
            #"gigs/bad-title.json: field "title": expected string, found integer 42"#,
            #"gigs/bad-z.json: field "description": expected string, found array of 0"#,
        ])
        for (id, json) in bad { #expect(d.text("gigs/\(id)") == json, "gigs/\(id) must not be rewritten") }
        #expect(try d.object("gigs/good")?["qualityScore"] == .int(100))

        // Under onInvalidDocument = "fail" the run fails and commits nothing.
        try d.write("gigs/good", Self.gigJSON("good", []))
        let failed = try await d.run("gig-quality-score", now: Self.T, config: """
            [defaults]
            onInvalidDocument = "fail"
            """)
        #expect(failed.error != nil)
        #expect(failed.record.status == .failed)
        #expect(d.text("gigs/good") == Self.gigJSON("good", []))
    }

    @Test func badParametersAreRejectedBeforeAnythingRuns() async throws {
        let d = try TestDataDirectory()
        defer { d.remove() }
        try d.write("gigs/a", Self.gigJSON("a", []))
        await #expect(throws: (any Error).self) { try await d.run("gig-quality-score", now: Self.T, params: ["version": "0"]) }
        await #expect(throws: (any Error).self) { try await d.run("gig-quality-score", now: Self.T, params: ["scorerUrl": "ftp://x.example.com"]) }
        do {
            _ = try await d.run("gig-quality-score", now: Self.T, params: ["scorerTimeout": "0s"])
            Issue.record("scorerTimeout=0s was accepted")
        } catch {
            #expect("\(error)" == #"parameter "scorerTimeout": must be more than 0s (e.g. "5s")"#)
        }
        #expect(d.text("gigs/a") == Self.gigJSON("a", []))
    }

    // MARK: - External scorer without a transport

    @Test func withoutAnHTTPClientTheScorerFallsBackToTheRubric() async throws {
        let d = try TestDataDirectory()
        defer { d.remove() }
        try d.write("gigs/a", Self.gigJSON("a", []))
        try d.write("gigs/b", Self.gigJSON("b", [("payMin", nil)]))
        try d.write("gigs/expired", Self.gigJSON("expired", [("expiresAt", Self.q("2026-11-01T00:00:00Z"))]))
        let outcome = try await d.run("gig-quality-score", now: Self.T, params: ["scorerUrl": "http://127.0.0.1:9/score?key=secret"])
        #expect(outcome.error == nil)
        #expect(outcome.record.status == .succeededWithWarnings)
        #expect(outcome.record.warnings == [
            "external scorer http://127.0.0.1:9 failed for 2 of 2 gig(s) (2 no HTTP client); they were scored by the rubric with scorer_unavailable. First: gigs/a.json: this hearth build or command has no outbound HTTP client",
        ])
        #expect(try d.object("gigs/a")?["qualityReasons"] == .array(["scorer_unavailable"]))
        #expect(try d.object("gigs/a")?["qualityScore"] == .int(100))
        #expect(try d.object("gigs/b")?["qualityReasons"] == .array(["no_pay", "scorer_unavailable"]))
        // Expired gigs are not sent: they score 0 by rule.
        #expect(try d.object("gigs/expired")?["qualityReasons"] == .array(["expired"]))
    }

    // MARK: - The rubric itself

    @Test func reasonCodesAreStable() {
        #expect(GigQualityReason.allCases.map(\.rawValue) == [
            "weak_title", "short_description", "vague_pay", "no_pay", "no_location", "no_company", "stale",
            "insecure_apply_url", "no_apply_path", "contact_details", "hype", "duplicate", "expired", "scorer_unavailable",
        ])
    }

    @Test func theRubricTablesAddUpToTheSpec() {
        let rows = GigQualityRubric.components.map { "\($0.component.rawValue) \($0.full.points) \($0.partial.map(\.points)) \($0.short.rawValue)/\($0.missing.rawValue)" }
        #expect(rows == [
            "title 15 [8] weak_title/weak_title",
            "description 25 [18, 10] short_description/short_description",
            "pay 20 [10] vague_pay/no_pay",
            "place 10 [] no_location/no_location",
            "organization 10 [] no_company/no_company",
            "freshness 10 [5] stale/stale",
            "apply path 10 [5] insecure_apply_url/no_apply_path",
        ])
        #expect(GigQualityRubric.maximum == 100)
        #expect(GigQualityRubric.penalties.map { "\($0.reason.rawValue) \($0.effect)" } == [
            "contact_details subtract(15)", "hype subtract(10)", "duplicate subtract(20)", "expired zeroScore",
        ])
    }

    @Test func everyReasonCodeIsDocumentedForTheQualityBadge() throws {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("docs/jobs/gig-quality-score.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        for reason in GigQualityReason.allCases {
            #expect(text.contains("| `\(reason.rawValue)` |"), "docs/jobs/gig-quality-score.md has no table row for \(reason.rawValue)")
        }
    }

    @Test(arguments: [
        ("jobs@example.com", true), ("Write to ana.lee+gigs@uni.example.edu.", true), ("josé@exämple.de", true),
        ("@handle", false), ("me@home", false), ("a@b.c", false), ("x @ example.com", false), ("@@example.com", false),
    ])
    func emailDetection(_ text: String, _ expected: Bool) {
        #expect(GigText.containsEmailAddress(text) == expected)
    }

    @Test(arguments: [
        ("(608) 555-0199", true), ("608.555.0199", true), ("+49 30 1234567", true), ("123456789", true), ("12345678", false),
        ("608 555\n0199", false), ("16-18, 40 hours", false), ("١٢٣٤٥٦٧٨٩", true),
    ])
    func phoneDetection(_ text: String, _ expected: Bool) {
        #expect(GigText.containsPhoneNumber(text) == expected)
    }

    // MARK: - hearth seed

    @Test func seededGigsExerciseEveryComponentAndPenalty() async throws {
        let d = try TestDataDirectory()
        defer { d.remove() }
        try DemoData(users: 120, seed: 7).write(to: d.root)
        let outcome = try await d.run("gig-quality-score", now: "2026-11-18T12:00:00Z")
        #expect(outcome.error == nil)
        #expect(outcome.record.warnings == [])
        let expected: [(String, String)] = [
            ("gig-00001", "100 \"high\" []"),
            ("gig-00002", "80 \"high\" [\"duplicate\"]"),
            ("gig-00003", "56 \"medium\" [\"weak_title\",\"short_description\",\"vague_pay\",\"stale\",\"insecure_apply_url\",\"hype\"]"),
            ("gig-00004", "13 \"low\" [\"weak_title\",\"short_description\",\"no_pay\",\"no_location\",\"stale\",\"no_apply_path\",\"contact_details\"]"),
            ("gig-00005", "0 \"low\" [\"weak_title\",\"short_description\",\"no_pay\",\"no_company\",\"stale\",\"no_apply_path\",\"contact_details\"]"),
            ("gig-00006", "0 \"low\" [\"expired\"]"),
            ("gig-00007", "- - -"),
            ("gig-00008", "- - -"),
            ("gig-00009", "85 \"high\" [\"stale\",\"hype\"]"),
            ("gig-00010", "70 \"medium\" [\"weak_title\",\"short_description\"]"),
            ("gig-00011", "55 \"medium\" [\"short_description\",\"vague_pay\",\"no_company\",\"stale\",\"insecure_apply_url\"]"),
            ("gig-00012", "100 \"high\" []"),
        ]
        var seen = Set<String>()
        for id in d.ids("gigs") {
            let o = try #require(try d.object("gigs/\(id)"))
            if case .array(let reasons)? = o["qualityReasons"] { for r in reasons { if case .string(let s) = r { seen.insert(s) } } }
        }
        for (id, want) in expected {
            let o = try #require(try d.object("gigs/\(id)"))
            let got = "\(o["qualityScore"].map(JSONWriter.compact) ?? "-") \(o["qualityTier"].map(JSONWriter.compact) ?? "-") \(o["qualityReasons"].map(JSONWriter.compact) ?? "-")"
            #expect(got == want, "\(id)")
        }
        // 12 rubric gigs, and the 4 gigs students post for the example command job expire-gigs.
        #expect(d.ids("gigs").filter { $0.hasPrefix("gig-0") }.count == 12)
        #expect(d.ids("gigs").filter { $0.hasPrefix("gig-post-") }.count == 4)
        #expect(seen == Set(GigQualityReason.allCases.map(\.rawValue)).subtracting(["scorer_unavailable"]))
    }
}
