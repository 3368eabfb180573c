import Foundation
public import HearthKit

/// `report-triage` (docs/jobs/report-triage.md#rules, skill-trading app): the moderation queue
/// behind the app's "Report content" form.
///
/// - A report is new while it has no `triagedAt`; new reports are taken in `createdAt` order
///   (absent or unparsable: last), ties by id.
/// - A new report is **rejected** (`status: "rejected"`, `rejectReason`, `triagedAt: S`) on the
///   first code of ``Rejection``; otherwise it is **queued** (`status: "queued"`,
///   `queueItemId`, `triagedAt: S`) into `moderationQueue/{contentType}-{contentId}`, which
///   counts reports, distinct reporters (sorted), reasons (a missing or unknown one counts as
///   `other`) and the first and last report dates; a `dismissed` or `resolved` item opens again
///   with `reopenedAt: S`. Other fields of an item are kept.
/// - **Hold**: an item that received reports in this run, for a trade with at least `hideAt`
///   distinct reporters whose `visibility` is `"public"`: the trade becomes `"unlisted"` with
///   `moderationHold: true`, `visibilityBeforeHold: "public"`, `heldAt: S`, and the item gets
///   `hidden: true`. Only a moderator restores it.
/// - Events: `report.queued` (id `report.queued-{itemId}-{reportCount}`, data: the item) per
///   item that received reports, `content.held` (id `content.held-{itemId}-{reportCount}`).
/// - A report whose trade or queue item is invalid input stays new, with a warning; it is
///   triaged once that document is fixed.
public struct ReportTriage: Job {
    static let hideAtParameter = Parameter.integer(
        "hideAt", default: 3, in: 1...1_000_000, help: "distinct reporters at which a public trade is held (made unlisted)")

    public static let descriptor = JobDescriptor(
        name: "report-triage",
        summary: "Triage new content reports into moderationQueue; hold a public trade reported by hideAt distinct users.",
        defaultSchedule: "*/5 * * * *",
        parameters: [hideAtParameter],
        reads: ["reports", "moderationQueue", "users", "trades", "messages"],
        writes: ["reports", "moderationQueue", "trades"],
        triggers: ["reports"]
    )

    static let contentTypes = ["trade", "message", "user"]
    static let reasons = ["inappropriate", "spam", "harassment", "other"]

    /// The rejection codes, in the order they are checked (docs/jobs/report-triage.md#rejection-codes).
    enum Rejection: String, Sendable {
        case invalidReport = "invalid_report"
        case contentNotFound = "content_not_found"
        case unknownReporter = "unknown_reporter"
        case ownContent = "own_content"
    }

    let hideAt: Int

    public init(parameters: JobParameters, environment: JobEnvironment) throws(JobSetupError) {
        hideAt = Int(parameters[Self.hideAtParameter])
    }

    /// A new report as the app wrote it; its fields are checked when it is triaged.
    struct Report: Sendable {
        var document: Document
        var createdAt: Date?
        var reporterID: String?
        var contentID: String?
        var contentType: String?
        var reason: String

        init(_ d: Document) {
            document = d
            createdAt = d["createdAt"].flatMap(Timestamp.date(from:))
            reporterID = d["reporterId"]?.stringValue.flatMap { DocumentPath.isValid(name: $0) ? $0 : nil }
            contentID = d["contentId"]?.stringValue.flatMap { DocumentPath.isValid(name: $0) ? $0 : nil }
            contentType = d["contentType"]?.stringValue.flatMap { ReportTriage.contentTypes.contains($0) ? $0 : nil }
            reason = d["reason"]?.stringValue.flatMap { ReportTriage.reasons.contains($0) ? $0 : nil } ?? "other"
        }

        /// `{contentType}-{contentId}`, when both are valid and the id fits.
        var itemID: String? {
            guard let t = contentType, let c = contentID else { return nil }
            let id = "\(t)-\(c)"
            return DocumentPath.isValid(name: id) ? id : nil
        }

        static func ordered(_ a: Report, _ b: Report) -> Bool {
            switch (a.createdAt, b.createdAt) {
            case (let x?, let y?) where x != y: return x < y
            case (.some, nil): return true
            case (nil, .some): return false
            default: return a.document.id < b.document.id
            }
        }
    }

    struct Trade: Sendable {
        var document: Document
        var creatorID: String?
        var visibility: String?

        init(_ d: Document) throws(FieldError) {
            document = d
            creatorID = try d.string("creatorId")
            visibility = try d.string("visibility")
        }
    }

    /// A queue item: as read (checked), then as this run changes it.
    struct Item: Sendable {
        var document: Document?
        var object: JSONObject
        var reportCount: Int64
        var reporters: Set<String>
        var first: Date?
        var last: Date?
        var received = false

        /// An existing item; the fields the job counts with must have their types.
        init(_ d: Document) throws(FieldError) {
            document = d
            object = d.object
            reportCount = try d.int("reportCount") ?? 0
            reporters = Set(try d.stringArray("reporterIds") ?? [])
            if let reasons = try d.objectField("reasons") {
                for (k, v) in reasons where v.intValue == nil && !v.isNull {
                    throw FieldError(field: "reasons.\(k)", expected: "integer", found: v)
                }
            }
            first = try d.timestamp("firstReportedAt")
            last = try d.timestamp("lastReportedAt")
            _ = try d.string("status")
            _ = try d.bool("hidden")
        }

        /// A new item, as docs/jobs/report-triage.md#the-queue-item gives it.
        init(contentType: String, contentID: String, now: JSONValue) {
            document = nil
            object = JSONObject([
                ("contentType", .string(contentType)), ("contentId", .string(contentID)), ("status", "open"), ("reportCount", 0),
                ("reporterIds", []), ("reasons", .object(JSONObject())), ("firstReportedAt", .null), ("lastReportedAt", .null),
                ("hidden", false), ("createdAt", now), ("updatedAt", now),
            ])
            reportCount = 0
            reporters = []
        }
    }

    /// The reports the scan keeps: `triagedAt` absent or `null`.
    static let untriaged = ScanFilter([.absentOrNull(field: "triagedAt")])

    public func run(_ context: JobContext) async throws {
        let now = Timestamp.json(context.startTime)
        // Triaged reports are turned down for their own `triagedAt`: remembered, not read again
        // while unchanged (docs/storage/reject-memos.md).
        var reports = try await context.decode("reports", memo: "untriaged-v1", filter: Self.untriaged) { d throws(FieldError) -> Report? in
            Report(d)
        }
        guard !reports.isEmpty else { return }
        reports.sort(by: Report.ordered)

        // Existence from the listings; only the trades and queue items reports name are read.
        let userIDs = Set(try context.store.documentIDs(in: "users"))
        let messageIDs = Set(try context.store.documentIDs(in: "messages"))
        let tradeIDs = Set(try context.store.documentIDs(in: "trades"))
        var tradePaths = Set<DocumentPath>()
        var itemPaths = Set<DocumentPath>()
        for r in reports {
            if r.contentType == "trade", let c = r.contentID, tradeIDs.contains(c) { tradePaths.insert(DocumentPath(unchecked: ["trades", c])) }
            if let i = r.itemID { itemPaths.insert(DocumentPath(unchecked: ["moderationQueue", i])) }
        }
        var trades: [String: Trade] = [:]
        for t in try await context.decode(tradePaths.sorted(), { d throws(FieldError) in try Trade(d) }) { trades[t.document.id] = t }
        var items: [String: Item] = [:]
        for i in try await context.decode(itemPaths.sorted(), { d throws(FieldError) in try Item(d) }) { items[i.document!.id] = i }

        for r in reports {
            guard let type = r.contentType, let content = r.contentID, let reporter = r.reporterID, let itemID = r.itemID else {
                reject(r, .invalidReport, context: context)
                continue
            }
            let exists = switch type {
            case "trade": tradeIDs.contains(content)
            case "message": messageIDs.contains(content)
            default: userIDs.contains(content)
            }
            // A rejection rests on what it read (docs/jobs/report-triage.md#what-a-rejection-rests-on).
            guard exists else {
                let collection = switch type { case "trade": "trades"; case "message": "messages"; default: "users" }
                if let path = try? DocumentPath(collection, content) { context.depend(onAbsent: path) }
                reject(r, .contentNotFound, context: context)
                continue
            }
            guard userIDs.contains(reporter) else {
                if let path = try? DocumentPath("users", reporter) { context.depend(onAbsent: path) }
                reject(r, .unknownReporter, context: context)
                continue
            }
            if type == "trade", trades[content] == nil {
                context.warn("\(r.document.path.relativeFile): left untriaged because trades/\(content).json is invalid (see its warning); it is triaged once that is fixed")
                continue
            }
            if (type == "user" && content == reporter) || (type == "trade" && trades[content]?.creatorID == reporter) {
                if type == "trade", let trade = trades[content] { context.depend(on: trade.document) }
                reject(r, .ownContent, context: context)
                continue
            }
            let itemPath = DocumentPath(unchecked: ["moderationQueue", itemID])
            if items[itemID] == nil {
                if context.isInvalid(itemPath) {
                    context.warn("\(r.document.path.relativeFile): left untriaged because \(itemPath.relativeFile) is invalid (see its warning); it is triaged once that is fixed")
                    continue
                }
                items[itemID] = Item(contentType: type, contentID: content, now: now)
            }
            add(r, reporter: reporter, to: &items[itemID]!, now: now)
            context.update(r.document) { o in
                o["status"] = "queued"
                o["queueItemId"] = .string(itemID)
                o["triagedAt"] = now
            }
        }

        for id in items.keys.sorted() {
            guard var item = items[id], item.received else { continue }
            if item.object["contentType"]?.stringValue == "trade", item.reporters.count >= hideAt,
                let content = item.object["contentId"]?.stringValue, let trade = trades[content], trade.visibility == "public"
            {
                context.update(trade.document) { o in
                    o["visibility"] = "unlisted"
                    o["moderationHold"] = true
                    o["visibilityBeforeHold"] = "public"
                    o["heldAt"] = now
                }
                item.object["hidden"] = true
                context.queue(.event("content.held", id: "content.held-\(id)-\(item.reportCount)", data: JSONObject([
                    ("queueItemId", .string(id)), ("contentType", "trade"), ("contentId", .string(content)),
                    ("reporterCount", .int(Int64(item.reporters.count))), ("heldAt", now),
                ])))
            }
            if let doc = item.document {
                context.update(doc, to: item.object)
            } else {
                context.create(DocumentPath(unchecked: ["moderationQueue", id]), item.object)
            }
            var data = JSONObject([("queueItemId", .string(id))])
            for (k, v) in item.object { data[k] = v }
            context.queue(.event("report.queued", id: "report.queued-\(id)-\(item.reportCount)", data: data))
        }
    }

    /// Counts one queued report into its item.
    private func add(_ r: Report, reporter: String, to item: inout Item, now: JSONValue) {
        var o = item.object
        item.reportCount += 1
        o["reportCount"] = .int(item.reportCount)
        item.reporters.insert(reporter)
        o["reporterIds"] = .array(item.reporters.sorted().map { .string($0) })
        var reasons = o["reasons"]?.objectValue ?? JSONObject()
        reasons[r.reason] = .int((reasons[r.reason]?.intValue ?? 0) + 1)
        o["reasons"] = .object(reasons)
        if let at = r.createdAt {
            if item.first.map({ at < $0 }) ?? true {
                item.first = at
                o["firstReportedAt"] = Timestamp.json(at)
            }
            if item.last.map({ at > $0 }) ?? true {
                item.last = at
                o["lastReportedAt"] = Timestamp.json(at)
            }
        }
        o["updatedAt"] = now
        if let status = o["status"]?.stringValue, status == "dismissed" || status == "resolved" {
            o["status"] = "open"
            o["reopenedAt"] = now
        }
        item.object = o
        item.received = true
    }

    private func reject(_ r: Report, _ rejection: Rejection, context: JobContext) {
        context.update(r.document) { o in
            o["status"] = "rejected"
            o["rejectReason"] = .string(rejection.rawValue)
            o["triagedAt"] = Timestamp.json(context.startTime)
        }
    }
}
