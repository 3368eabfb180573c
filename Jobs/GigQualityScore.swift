import Foundation
public import HearthKit

/// `gig-quality-score` (docs/jobs/gig-quality-score.md#the-rubric, gig board): scores every open gig by the rubric in
/// ``GigQualityRubric`` (or by an external scorer, when `scorerUrl` is set) and writes
/// `qualityScore`, `qualityTier`, `qualityReasons`, `qualityVersion` and `qualityScoredAt`.
///
/// - Gigs whose `status` is `closed` or `deleted` are not scored, not rewritten (their old
///   quality fields stay) and are no one's original for duplicate detection.
/// - A gig is written only when its score, tier or reasons change; then all five fields are
///   set (`qualityVersion` from the `version` parameter, `qualityScoredAt` = S). A `version`
///   bump alone therefore rewrites nothing: `qualityVersion` names the rubric version that
///   produced the stored verdict. Stored quality fields of an unexpected type count as
///   "changed" and are overwritten (the job owns them).
/// - Invalid input (docs/data-directory.md#invalid-documents): a field the rubric reads (`title`, `description`, `company`,
///   `location`, `compensation`, `source`, `externalUrl`, `status` strings; `payMin`,
///   `payMax` numbers; `isRemote` boolean; `postedAt`, `expiresAt` timestamps) with another
///   type makes the gig invalid: skipped with a warning (or the run fails), never rewritten,
///   and it takes no part in duplicate detection.
/// - Duplicates: gigs with the same lower-cased, trimmed `title` and `company` (a missing
///   field reads as ""); the one with the earliest `postedAt` is the original (a gig without
///   `postedAt` comes after every dated one), equal times go to the smaller id; every other
///   one gets `duplicate`. Expired gigs are still scored and so can be originals: close a
///   gig (`status: "closed"`) to re-post it without the penalty.
///
/// **External scorer.** With `scorerUrl`, each gig that is not expired is POSTed there as
/// JSON (its document fields as stored, minus the five quality fields, with `"id"` = the
/// document id first), at most `scorerConcurrency` at a time, each within `scorerTimeout`.
/// A 2xx answer `{"score": N, "reasons": [...]}` (N an integer 0…100; reasons an array of
/// at most 50 non-empty strings of at most 100 characters) replaces the rubric's score and
/// reasons (the tier follows from the score). Anything else — no HTTP client, connection
/// failure, timeout, non-2xx status, a malformed body — falls back to the rubric with
/// `scorer_unavailable` appended, and the run ends with one warning summarizing the
/// failures. After ``breakerThreshold`` (20) failures in a row the remaining gigs are not
/// sent and fall back at once. Expired gigs are never sent: they score 0 by rule. A cancelled run (its
/// `timeout`) cancels the requests in flight and commits nothing. A dry run calls the scorer
/// too (a query, not a delivery), so its plan shows what a real run would write.
public struct GigQualityScore: Job {
    static let scorerURLParameter = Parameter.url("scorerUrl", help: "external scorer to POST each gig to (none: the built-in rubric)")
    static let versionParameter = Parameter.integer("version", default: 1, min: 1, help: "rubric version written to qualityVersion")
    static let scorerTimeoutParameter = Parameter.duration("scorerTimeout", default: .seconds(5), help: "limit per external scorer request")
    static let scorerConcurrencyParameter = Parameter.integer("scorerConcurrency", default: 16, in: 1...256, help: "external scorer requests in flight at once")

    public static let descriptor = JobDescriptor(
        name: "gig-quality-score",
        summary: "Score open gigs for quality (rubric or external scorer): qualityScore, qualityTier, qualityReasons.",
        defaultSchedule: "*/30 * * * *",
        parameters: [scorerURLParameter, versionParameter, scorerTimeoutParameter, scorerConcurrencyParameter],
        reads: ["gigs"],
        writes: ["gigs"],
        triggers: ["gigs"]
    )

    /// The fields this job writes (never sent to an external scorer).
    static let ownFields = ["qualityScore", "qualityTier", "qualityReasons", "qualityVersion", "qualityScoredAt"]

    let scorerURL: String?
    let version: Int64
    let scorerTimeout: Duration
    let scorerConcurrency: Int
    let http: (any HTTPTransport)?

    public init(parameters: JobParameters, environment: JobEnvironment) throws(JobSetupError) {
        let url = parameters[Self.scorerURLParameter]
        scorerURL = url.isEmpty ? nil : url
        version = parameters[Self.versionParameter]
        scorerTimeout = parameters[Self.scorerTimeoutParameter]
        guard scorerTimeout > .zero else {
            throw JobSetupError("parameter \"scorerTimeout\": must be more than 0s (e.g. \"5s\")")
        }
        scorerConcurrency = Int(parameters[Self.scorerConcurrencyParameter])
        http = environment.http
    }

    public func run(_ context: JobContext) async throws {
        let gigs = try await context.decode("gigs") { d throws(FieldError) in try Gig(d) }
        let T = context.logicalTime
        let duplicates = Self.duplicateIDs(gigs)

        let assessments = gigs.map { GigQualityRubric.assess(.init(gig: $0, logicalTime: T, isDuplicate: duplicates.contains($0.id))) }
        var verdicts = assessments.map(Verdict.init)

        if let scorerURL {
            let sendable = assessments.indices.filter { !assessments[$0].reasons.contains(.expired) }
            let answers = try await askScorer(scorerURL, gigs: sendable.map { gigs[$0] })
            var failures: [(Gig, ScorerFailure)] = []
            for (k, i) in sendable.enumerated() {
                switch answers[k] {
                case .success(let v): verdicts[i] = v
                case .failure(let f):
                    verdicts[i].reasons.append(GigQualityReason.scorerUnavailable.rawValue)
                    failures.append((gigs[i], f))
                }
            }
            if !failures.isEmpty {
                context.warn(Self.describeFailures(failures, url: scorerURL, asked: sendable.count))
            }
        }

        let scoredAt = Timestamp.json(context.startTime)
        for (gig, v) in zip(gigs, verdicts) {
            let reasons = JSONValue.array(v.reasons.map { .string($0) })
            let o = gig.document.object
            let same = o["qualityScore"].map { $0.sameContent(as: .int(Int64(v.score))) } == true
                && o["qualityTier"].map { $0.sameContent(as: .string(v.tier.rawValue)) } == true
                && o["qualityReasons"].map { $0.sameContent(as: reasons) } == true
            if same { continue }
            context.update(gig.document) { o in
                o["qualityScore"] = .int(Int64(v.score))
                o["qualityTier"] = .string(v.tier.rawValue)
                o["qualityReasons"] = reasons
                o["qualityVersion"] = .int(version)
                o["qualityScoredAt"] = scoredAt
            }
        }
    }

    // MARK: Duplicates

    /// Ids of the gigs that repeat an earlier gig's title and company.
    static func duplicateIDs(_ gigs: [Gig]) -> Set<String> {
        var groups: [Gig.DuplicateKey: [Gig]] = [:]
        for g in gigs { groups[g.duplicateKey, default: []].append(g) }
        var out = Set<String>()
        for (_, group) in groups where group.count > 1 {
            let ordered = group.sorted { a, b in
                switch (a.postedAt, b.postedAt) {
                case let (x?, y?) where x != y: return x < y
                case (.some, nil): return true
                case (nil, .some): return false
                default: return a.id < b.id
                }
            }
            for g in ordered.dropFirst() { out.insert(g.id) }
        }
        return out
    }

    // MARK: External scorer

    /// A score, tier and reasons as written to the gig.
    struct Verdict: Sendable, Equatable {
        var score: Int
        var tier: GigQualityTier
        var reasons: [String]

        init(_ a: GigQualityRubric.Assessment) {
            score = a.score
            tier = a.tier
            reasons = a.reasons.map(\.rawValue)
        }

        init(score: Int, reasons: [String]) {
            self.score = score
            tier = GigQualityRubric.tier(for: score)
            self.reasons = reasons
        }
    }

    /// Why the external scorer gave no usable answer for a gig.
    enum ScorerFailure: Error, Sendable, Equatable {
        case noTransport
        case transport(String, timedOut: Bool)
        case status(Int)
        case malformed(String)
        /// Not asked: the scorer had already failed ``GigQualityScore/breakerThreshold``
        /// times in a row in this run.
        case notSent

        var category: String {
            switch self {
            case .noTransport: "no HTTP client"
            case .transport(_, true): "timed out"
            case .transport: "connection failed"
            case .status(let s): "HTTP \(s)"
            case .malformed: "malformed answer"
            case .notSent: "not sent after \(GigQualityScore.breakerThreshold) failures in a row"
            }
        }

        var detail: String {
            switch self {
            case .noTransport: "this hearth build or command has no outbound HTTP client"
            case .transport(let d, _): d
            case .status(let s): "answered HTTP \(s) (expected 2xx)"
            case .malformed(let why): why
            case .notSent: "not sent: the scorer failed \(GigQualityScore.breakerThreshold) times in a row"
            }
        }
    }

    /// After this many scorer failures in a row, the rest of the run's gigs are not sent (they
    /// fall back to the rubric at once): a scorer that is down costs at most this many
    /// timeouts per run instead of one per gig.
    static let breakerThreshold = 20

    /// Asks the scorer about each gig, `scorerConcurrency` at a time, until it has failed
    /// ``breakerThreshold`` times in a row. Results are in the order of `gigs`. Throws only
    /// `CancellationError` (the run was cancelled).
    func askScorer(_ url: String, gigs: [Gig]) async throws -> [Result<Verdict, ScorerFailure>] {
        guard let http else { return gigs.map { _ in .failure(.noTransport) } }
        let requests = gigs.map { Self.request(for: $0, url: url, timeout: scorerTimeout) }
        let limit = scorerConcurrency
        return try await withThrowingTaskGroup(of: (Int, Result<Verdict, ScorerFailure>).self) { group in
            var out = [Result<Verdict, ScorerFailure>](repeating: .failure(.notSent), count: requests.count)
            var next = 0
            var failuresInARow = 0
            func launch() {
                let i = next
                let request = requests[i]
                next += 1
                group.addTask {
                    do throws(HTTPTransportError) {
                        let response = try await http.send(request)
                        return (i, Self.interpret(response))
                    } catch {
                        if case .cancelled = error { throw CancellationError() }
                        try Task.checkCancellation()
                        if case .timedOut = error { return (i, .failure(.transport(error.description, timedOut: true))) }
                        return (i, .failure(.transport(error.description, timedOut: false)))
                    }
                }
            }
            while next < min(limit, requests.count) { launch() }
            while let (i, result) = try await group.next() {
                out[i] = result
                if case .success = result { failuresInARow = 0 } else { failuresInARow += 1 }
                if next < requests.count, failuresInARow < Self.breakerThreshold { launch() }
            }
            try Task.checkCancellation()
            return out
        }
    }

    /// `POST url` with the gig as a JSON object: `"id"` first, then the document's fields as
    /// stored, without the quality fields this job writes.
    static func request(for gig: Gig, url: String, timeout: Duration) -> HTTPRequest {
        var pairs: [(String, JSONValue)] = [("id", .string(gig.id))]
        for (k, v) in gig.document.object where k != "id" && !ownFields.contains(k) { pairs.append((k, v)) }
        let body = JSONWriter.compact(.object(JSONObject(pairs)))
        return HTTPRequest(
            method: "POST", url: url,
            headers: [("Content-Type", "application/json"), ("Accept", "application/json")],
            body: Array(body.utf8), timeout: timeout, connectTimeout: timeout)
    }

    /// Reads a scorer's answer: 2xx with `{"score": 0…100 integer, "reasons": [strings]}`.
    static func interpret(_ response: HTTPResponse) -> Result<Verdict, ScorerFailure> {
        guard (200...299).contains(response.status) else { return .failure(.status(response.status)) }
        let value: JSONValue
        do { value = try JSONParser.parse(response.body) } catch {
            return .failure(.malformed("the body is not JSON (\(error))"))
        }
        guard case .object(let o) = value else {
            return .failure(.malformed("expected a JSON object, found \(value.typeName)"))
        }
        let score: Int
        switch o["score"] {
        case .int(let i)? where (0...100).contains(i): score = Int(i)
        case .double(let d)? where d == d.rounded() && (0...100).contains(d): score = Int(d)
        case .number(let n)? where n.int64Value.map({ (0...100).contains($0) }) == true: score = Int(n.int64Value!)
        case let v?: return .failure(.malformed("\"score\": expected an integer from 0 to 100, found \(v.foundDescription)"))
        case nil: return .failure(.malformed("\"score\" is missing"))
        }
        guard case .array(let items)? = o["reasons"] else {
            return .failure(.malformed("\"reasons\": expected an array of strings, found \(o["reasons"]?.foundDescription ?? "nothing")"))
        }
        guard items.count <= 50 else { return .failure(.malformed("\"reasons\": more than 50 entries (\(items.count))")) }
        var reasons: [String] = []
        for (n, item) in items.enumerated() {
            guard case .string(let s) = item, !s.isEmpty, s.count <= 100 else {
                return .failure(.malformed("\"reasons\"[\(n)]: expected a string of 1 to 100 characters, found \(item.foundDescription)"))
            }
            reasons.append(s)
        }
        return .success(Verdict(score: score, reasons: reasons))
    }

    /// One warning for all scorer failures of a run, e.g. `external scorer http://127.0.0.1:8080
    /// failed for 3 of 10 gigs (2 timed out, 1 HTTP 500); they were scored by the rubric with
    /// scorer_unavailable. First: gigs/g1.json: …`.
    static func describeFailures(_ failures: [(Gig, ScorerFailure)], url: String, asked: Int) -> String {
        var counts: [String: Int] = [:]
        var order: [String] = []
        for (_, f) in failures {
            if counts[f.category] == nil { order.append(f.category) }
            counts[f.category, default: 0] += 1
        }
        let summary = order.map { "\(counts[$0]!) \($0)" }.joined(separator: ", ")
        let (gig, first) = failures[0]
        return "external scorer \(HTTPTransportError.displayURL(url)) failed for \(failures.count) of \(asked) gig(s) (\(summary)); "
            + "they were scored by the rubric with \(GigQualityReason.scorerUnavailable.rawValue). First: \(gig.document.path.relativeFile): \(first.detail)"
    }
}

/// The fields of a `gigs/{id}` document the rubric reads (the gig board's `Gig` model).
struct Gig: Sendable {
    struct DuplicateKey: Hashable, Sendable {
        var title: String
        var company: String
    }

    var document: Document
    var id: String { document.id }
    var title: String
    var description: String
    var company: String
    var location: String
    var isRemote: Bool
    var payMin: Double?
    var payMax: Double?
    var compensation: String?
    var postedAt: Date?
    var expiresAt: Date?
    var source: String?
    var externalUrl: String?
    /// Precomputed text facts.
    var titleFacts: GigText.TitleFacts
    var descriptionWords: Int
    var duplicateKey: DuplicateKey

    /// Nil for a gig that is not scored (`status` `closed` or `deleted`); throws for a field
    /// of the wrong type.
    init?(_ d: Document) throws(FieldError) {
        if let status = try d.string("status"), ["closed", "deleted"].contains(GigText.trimmed(status).lowercased()) { return nil }
        document = d
        title = try d.string("title") ?? ""
        description = try d.string("description") ?? ""
        company = try d.string("company") ?? ""
        location = try d.string("location") ?? ""
        isRemote = try d.bool("isRemote") ?? false
        payMin = try d.number("payMin")
        payMax = try d.number("payMax")
        compensation = try d.string("compensation")
        postedAt = try d.timestamp("postedAt")
        expiresAt = try d.timestamp("expiresAt")
        source = try d.string("source")
        externalUrl = try d.string("externalUrl")
        titleFacts = GigText.titleFacts(title)
        descriptionWords = GigText.wordCount(description)
        duplicateKey = DuplicateKey(title: GigText.trimmed(title).lowercased(), company: GigText.trimmed(company).lowercased())
    }
}
