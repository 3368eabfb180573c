import Foundation
public import HearthKit

/// `notification-fanout` (docs/jobs/notification-fanout.md#pushes, all apps): sends due broadcasts and pushes the
/// notifications the apps create themselves.
///
/// **Broadcasts.** A `broadcasts` document with `status` absent or `"scheduled"` and `sendAt`
/// absent or ≤ T is sent: for each existing target user of its `audience` — `{"all": true}`,
/// `{"school": NAME}` or `{"userIds": [...]}` — it creates
/// `notifications/broadcast-{broadcastId}-{userId}` = `{userId, type, title, message, read:
/// false, createdAt: S, actionUrl}` (a notification already at that id is left alone), then
/// sets `status: "sent"`, `sentAt: S`, `recipientCount` (the target users) and queues a
/// `broadcast.sent` event (`broadcast.sent-{broadcastId}`). A `type` missing from
/// `[notifications].types`, or an audience of none of the three shapes, sets `status:
/// "failed"` and an `error` saying why (naming the allowed types), with a warning, and sends
/// nothing.
///
/// **Push.** Candidates are the notifications this run creates plus every notification with
/// `read` false (or absent), `createdAt` within `maxAge` of T (either side) and no entry in
/// Hearth's ledger (namespace `notification-push`, see ``PushMessages``): jobs that create
/// notifications record them there in the same commit, and so does this job for every
/// notification it handles, so nothing is ever written into a notification and nothing is
/// pushed twice. Per user (users in id order, candidates by `createdAt`, then id):
/// - no device tokens: each candidate is recorded `no-tokens` (never retried), nothing queued;
/// - more than `collapseAbove` candidates: one push `push-collapsed-{userId}-{hash}` titled
///   `"You have N new notifications"` (empty body, data `{"count": "N"}`), candidates
///   recorded `collapsed`;
/// - otherwise one push `push-{notificationId}` each: title, body = `message`, data
///   `{notificationId, type, actionUrl}` (missing strings as `""`), recorded `queued`.
///
/// Every push carries `badge` = the user's unread notifications (all of them, any age,
/// including those created by this run). Ledger files older than `maxAge` + 1 hour are pruned.
/// Reads notifications before the ledger, and the ledger is committed before the documents,
/// so a notification committed by another job at the same moment is never pushed twice.
public struct NotificationFanout: Job {
    static let maxAgeParameter = Parameter.duration("maxAge", default: .seconds(86_400), help: "push notifications created at most this long before (or after) T")
    static let collapseAboveParameter = Parameter.integer(
        "collapseAbove", default: 3, in: 1...1000, help: "more new notifications than this for one user in one run become one push")

    public static let descriptor = JobDescriptor(
        name: "notification-fanout",
        summary: "Send due broadcasts and push unread recent notifications (badge counts, collapsing, no repeats).",
        defaultSchedule: "* * * * *",
        parameters: [maxAgeParameter, collapseAboveParameter],
        reads: ["broadcasts", "notifications", "users"],
        writes: ["notifications", "broadcasts"],
        triggers: ["notifications", "broadcasts"]
    )

    let maxAge: TimeInterval
    let collapseAbove: Int
    let types: [String]
    let provider: PushProviderKind

    public init(parameters: JobParameters, environment: JobEnvironment) throws(JobSetupError) {
        let d = parameters[Self.maxAgeParameter]
        maxAge = Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
        collapseAbove = Int(parameters[Self.collapseAboveParameter])
        types = environment.notificationTypes
        provider = environment.pushProvider
    }

    struct User: Sendable {
        var id: String
        /// nil when absent or not a string (`badSchool`).
        var school: String?
        var badSchool: String?
        var devices: DeviceTokens
    }

    enum Audience: Sendable {
        case all
        case school(String)
        case userIDs([String])
        case invalid
    }

    struct Broadcast: Sendable {
        var document: Document
        var type: String?
        var title: String
        var message: String
        var actionURL: String
        var audience: Audience
    }

    /// What the job needs of one unread notification (a read one counts for nothing): its
    /// user, and for a push candidate the rest, boxed, so that the other unread ones (most of
    /// half a million at 100,000 users) take 24 bytes each.
    struct Note: Sendable {
        var userID: String
        var candidate: Candidate?
    }

    final class Candidate: Sendable {
        let pending: Pending

        init(_ pending: Pending) { self.pending = pending }
    }

    struct Content: Sendable {
        var type: String
        var title: String
        var message: String
        var actionURL: String
    }

    struct Pending: Sendable {
        var id: String
        var createdAt: Date
        var content: Content
    }

    public func run(_ context: JobContext) async throws {
        let T = context.logicalTime
        let S = context.startTime
        let windowStart = T.addingTimeInterval(-maxAge)
        let windowEnd = T.addingTimeInterval(maxAge)
        let provider = self.provider

        let broadcasts = try await context.decode("broadcasts") { d throws(FieldError) -> Broadcast? in
            let status = try d.string("status")
            guard status == nil || status == "scheduled" else { return nil }
            if let sendAt = try d.timestamp("sendAt"), sendAt > T { return nil }
            return Broadcast(
                document: d, type: try d.string("type"), title: try d.string("title") ?? "", message: try d.string("message") ?? "",
                actionURL: try d.string("actionUrl") ?? "", audience: try Self.audience(d))
        }
        // Users are read leniently: other jobs rewrite them, so a field only this job reads must
        // never make one invalid input. Problems are warned about where they matter.
        let users = try await context.decode("users") { d throws(FieldError) in
            let school = d["school"]
            return User(
                id: d.id, school: school?.stringValue,
                badSchool: school.flatMap { $0.isNull || $0.stringValue != nil ? nil : "field \"school\": expected string, found \($0.typeName)" },
                devices: DeviceTokens(of: d, provider: provider))
        }
        var userByID: [String: Int] = [:]   // positions in `users`
        for (i, u) in users.enumerated() { userByID[u.id] = i }

        // Notifications first, then the ledger (see the type's documentation).
        let notes = try await context.decode("notifications") { d throws(FieldError) -> Note? in
            guard let uid = try d.string("userId") else { return nil }
            let unread = try d.bool("read") != true
            let createdAt = try d.timestamp("createdAt")
            var candidate: Candidate?
            if unread, let c = createdAt, c >= windowStart, c <= windowEnd {
                let content = Content(
                    type: try d.string("type") ?? "", title: try d.string("title") ?? "", message: try d.string("message") ?? "",
                    actionURL: try d.string("actionUrl") ?? "")
                candidate = Candidate(Pending(id: d.id, createdAt: c, content: content))
            }
            return unread ? Note(userID: uid, candidate: candidate) : nil
        }
        // Only the ids a due broadcast could create (`broadcast-{broadcastId}-{userId}`) are
        // looked up: none when no broadcast is due.
        let prefixes = broadcasts.map { "broadcast-\($0.document.id)-" }
        let existingNotifications = prefixes.isEmpty
            ? Set<String>() : Set(try context.store.documentIDs(in: "notifications").filter { id in prefixes.contains { id.hasPrefix($0) } })
        let handled = try context.ledger(PushMessages.ledgerNamespace, from: windowStart, to: windowEnd)

        var unread: [String: Int] = [:]
        var pending: [String: [Pending]] = [:]
        for n in notes {
            unread[n.userID, default: 0] += 1
            if let p = n.candidate?.pending, handled[p.id] == nil, userByID[n.userID] != nil {
                pending[n.userID, default: []].append(p)
            }
        }

        // Broadcasts.
        let allowed = types.map { JSONWriter.quoted($0) }.joined(separator: ", ")
        for b in broadcasts {
            let bid = b.document.id
            guard let type = b.type, types.contains(type) else {
                let found = b.type.map { "type \(JSONWriter.quoted($0))" } ?? "no type"
                let error = "\(found) is not one of the notification types the apps can decode ([notifications].types: \(allowed.isEmpty ? "none" : allowed)); nothing was sent"
                context.warn("broadcasts/\(bid).json: \(error)")
                context.update(b.document) { o in
                    o["status"] = .string("failed")
                    o["error"] = .string(error)
                }
                continue
            }
            let targets: [User]
            switch b.audience {
            case .all: targets = users
            case .school(let name):
                targets = users.filter { $0.school == name }
                for u in users { if let bad = u.badSchool { context.warn("users/\(u.id).json: \(bad); not in the audience of broadcasts/\(bid).json") } }
            case .userIDs(let ids): targets = Set(ids).compactMap { userByID[$0].map { users[$0] } }.sorted { $0.id < $1.id }
            case .invalid:
                let error = "audience must be {\"all\": true}, {\"school\": NAME} or {\"userIds\": [...]}; nothing was sent"
                context.warn("broadcasts/\(bid).json: \(error)")
                context.update(b.document) { o in
                    o["status"] = .string("failed")
                    o["error"] = .string(error)
                }
                continue
            }
            let content = Content(type: type, title: b.title, message: b.message, actionURL: b.actionURL)
            for u in targets {
                let nid = "broadcast-\(bid)-\(u.id)"
                guard !existingNotifications.contains(nid), let path = try? DocumentPath("notifications", nid) else { continue }
                context.create(path, JSONObject([
                    ("userId", .string(u.id)), ("type", .string(type)), ("title", .string(b.title)), ("message", .string(b.message)),
                    ("read", false), ("createdAt", Timestamp.json(S)), ("actionUrl", .string(b.actionURL)),
                ]))
                unread[u.id, default: 0] += 1
                pending[u.id, default: []].append(Pending(id: nid, createdAt: S, content: content))
            }
            context.update(b.document) { o in
                o["status"] = .string("sent")
                o["sentAt"] = Timestamp.json(S)
                o["recipientCount"] = .int(Int64(targets.count))
                o["error"] = nil
            }
            context.queue(.event("broadcast.sent", id: "broadcast.sent-\(bid)", data: JSONObject([
                ("broadcastId", .string(bid)), ("type", .string(type)), ("title", .string(b.title)),
                ("recipientCount", .int(Int64(targets.count))), ("sentAt", Timestamp.json(S)),
            ])))
        }

        // Pushes.
        for uid in pending.keys.sorted() {
            guard let i = userByID[uid] else { continue }
            let user = users[i]
            let list = pending[uid]!.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
            let badge = unread[uid] ?? 0
            let tokens = user.devices.tokens
            for problem in user.devices.problems { context.warn("users/\(uid).json: \(problem); those tokens are not pushed to") }
            if tokens.isEmpty {
                for p in list { context.record(PushMessages.ledgerNamespace, key: p.id, value: PushMessages.noTokens, date: p.createdAt) }
            } else if list.count > collapseAbove {
                let title = "You have \(list.count) new notifications"
                context.queue(PushMessages.push(
                    id: "push-collapsed-\(uid)-\(Self.hash(list.map(\.id).sorted()))", userID: uid, tokens: tokens, title: title, body: "",
                    data: [("count", String(list.count))], badge: badge))
                for p in list { context.record(PushMessages.ledgerNamespace, key: p.id, value: PushMessages.collapsed, date: p.createdAt) }
            } else {
                for p in list {
                    PushMessages.queue(
                        notificationID: p.id, userID: uid, tokens: tokens, title: p.content.title, body: p.content.message,
                        type: p.content.type, actionURL: p.content.actionURL, badge: badge, createdAt: p.createdAt, context: context)
                }
            }
        }
        try context.pruneLedger(PushMessages.ledgerNamespace, before: windowStart.addingTimeInterval(-3600))
    }

    static func audience(_ d: Document) throws(FieldError) -> Audience {
        guard let a = try d.objectField("audience") else { return .invalid }
        if let all = a["all"], !all.isNull {
            guard case .bool(let b) = all else { throw FieldError(field: "audience.all", expected: "boolean", found: all) }
            return b ? .all : .invalid
        }
        if let school = a["school"], !school.isNull {
            guard case .string(let s) = school else { throw FieldError(field: "audience.school", expected: "string", found: school) }
            return .school(s)
        }
        if let ids = a["userIds"], !ids.isNull {
            guard case .array(let items) = ids else { throw FieldError(field: "audience.userIds", expected: "array of strings", found: ids) }
            var out: [String] = []
            for (i, item) in items.enumerated() {
                guard case .string(let s) = item else { throw FieldError(field: "audience.userIds[\(i)]", expected: "string", found: item) }
                out.append(s)
            }
            return .userIDs(out)
        }
        return .invalid
    }

    /// 16 hex digits of FNV-1a 64 over the ids (stable across runs and platforms).
    static func hash(_ ids: [String]) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for id in ids {
            for b in id.utf8 { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
            h = (h ^ 0x0A) &* 0x0000_0100_0000_01B3
        }
        let s = String(h, radix: 16)
        return String(repeating: "0", count: 16 - s.count) + s
    }
}
