import Foundation
public import HearthKit

/// `friend-notify` (docs/jobs/friend-notify.md#rules, campus app): the friend-request and
/// request-accepted notifications the campus rules let only the server create, each with its
/// push in the same commit.
///
/// - **Request**: `status == "pending"` and `createdAt` in `[T − maxAge, T]` →
///   `notifications/friend-request-{friendshipId}` to the user who did not initiate it.
/// - **Accepted**: `status == "accepted"` and `acceptedAt` in `[T − maxAge, T]` →
///   `notifications/friend-accepted-{friendshipId}` to the initiator.
/// - Skipped: `initiatedBy` not one of the two ids, the two ids equal (or not ids), a missing or
///   unparsable date, either user without a `users` document (one warning with the count), and
///   a notification that existed before this run — at that id, or any notification of the same
///   `type` for the same `userId` and `relatedUserId` (the app's older client writes request
///   notifications itself, with random ids).
public struct FriendNotify: Job {
    static let maxAgeParameter = Parameter.duration(
        "maxAge", default: .seconds(7 * 86_400), help: "notify requests created (and acceptances made) at most this long before T")

    public static let descriptor = JobDescriptor(
        name: "friend-notify",
        summary: "Notify friend requests and acceptances (recent ones, never twice), with their pushes.",
        defaultSchedule: "* * * * *",
        parameters: [maxAgeParameter],
        reads: ["friendships", "users", "notifications"],
        writes: ["notifications"],
        triggers: ["friendships"]
    )

    static let requestType = "friend_request"
    static let acceptedType = "friend_accepted"

    let maxAge: TimeInterval
    let provider: PushProviderKind

    public init(parameters: JobParameters, environment: JobEnvironment) throws(JobSetupError) {
        maxAge = DurationFormat.seconds(parameters[Self.maxAgeParameter])
        provider = environment.pushProvider
        let missing = [Self.requestType, Self.acceptedType].filter { !environment.notificationTypes.contains($0) }
        guard missing.isEmpty else {
            let listed = environment.notificationTypes.map { JSONWriter.quoted($0) }.joined(separator: ", ")
            let names = missing.map { JSONWriter.quoted($0) }.joined(separator: " and ")
            throw JobSetupError(
                "friend-notify writes notifications of type \(names), but [notifications].types (\(listed.isEmpty ? "empty" : listed)) does not list "
                    + "\(missing.count == 1 ? "it" : "them"). The apps cannot decode a notification type they do not know, and one unknown type breaks "
                    + "their whole notification list. Once the apps handle it, add \(names) to types under [notifications] in the config; "
                    + "otherwise set enabled = false under [jobs.friend-notify].")
        }
    }

    /// A notification to write: who gets it, about whom, for which friendship.
    struct Candidate: Sendable {
        var friendshipID: String
        var type: String
        var recipient: String
        var related: String
        /// The friendship's path and version: the notification rests on its status as read
        /// (docs/jobs/friend-notify.md#what-a-notification-rests-on).
        var friendship: Document

        var notificationID: String { type == FriendNotify.requestType ? "friend-request-\(friendshipID)" : "friend-accepted-\(friendshipID)" }
    }

    /// An existing notification's identity for "already notified".
    struct Key: Hashable, Sendable {
        var type: String
        var userID: String
        var relatedUserID: String
    }

    public func run(_ context: JobContext) async throws {
        let T = context.logicalTime
        let oldest = T.addingTimeInterval(-maxAge)
        let recent: @Sendable (JSONValue?) -> Bool = { v in
            guard let at = v.flatMap(Timestamp.date(from:)) else { return false }
            return at >= oldest && at <= T
        }
        // Friendships are the app's; read leniently (a malformed one is skipped, never invalid).
        let candidate: @Sendable (Document) throws(FieldError) -> Candidate? = { d throws(FieldError) -> Candidate? in
            guard let a = d["userId1"]?.stringValue, let b = d["userId2"]?.stringValue, let by = d["initiatedBy"]?.stringValue,
                a != b, by == a || by == b, DocumentPath.isValid(name: a), DocumentPath.isValid(name: b)
            else { return nil }
            let other = by == a ? b : a
            switch d["status"]?.stringValue {
            case "pending" where recent(d["createdAt"]):
                return Candidate(friendshipID: d.id, type: Self.requestType, recipient: other, related: by, friendship: d.pathAndVersion)
            case "accepted" where recent(d["acceptedAt"]):
                return Candidate(friendshipID: d.id, type: Self.acceptedType, recipient: by, related: other, friendship: d.pathAndVersion)
            default:
                return nil
            }
        }
        // A run started by writes reads only the friendships written, and of the notifications
        // only those it needs (docs/jobs/friend-notify.md#triggered-runs).
        let triggered = context.changes != nil
        let fresh = if let changes = context.changes {
            try await context.decode(changes.paths(in: "friendships").filter { $0.collection == "friendships" }, candidate)
        } else {
            try await context.decode("friendships", candidate)
        }
        guard !fresh.isEmpty else { return }

        // A candidate whose notification is already at its id is done (the steady state of a job
        // that runs every minute): only the others need the users and the scan of every
        // notification for one of the same type, user and related user. Of the listing, only the
        // ids a candidate can have (`friend-…`) are kept.
        let existing = if triggered {
            // A few candidates: whether a file is at each one's id, as the listing would say.
            Set(fresh.map(\.notificationID).filter { id in
                guard let path = try? DocumentPath("notifications", id) else { return false }
                if case .missing = context.store.read(path) { return false }
                return true
            })
        } else {
            Set(try context.store.documentIDs(in: "notifications").filter { $0.hasPrefix("friend-") })
        }
        let candidates = fresh.filter { !existing.contains($0.notificationID) }
        guard !candidates.isEmpty else { return }

        let ids = Set(candidates.flatMap { [$0.recipient, $0.related] })
        let people = try await PushRecipient.load(ids.sorted(), provider: provider, from: context)

        // Both users must have a users document (an invalid one has its own warning).
        var withoutUser = 0
        let ready = candidates.filter { c in
            if people[c.recipient] != nil && people[c.related] != nil { return true }
            if ![c.recipient, c.related].contains(where: { context.isInvalid(DocumentPath(unchecked: ["users", $0])) }) { withoutUser += 1 }
            return false
        }
        if withoutUser > 0 {
            context.warn("skipped \(withoutUser) friendship notification(s) whose user has no users document")
        }
        guard !ready.isEmpty else { return }

        // What the apps (or earlier runs) already wrote, read leniently: notifications are not
        // this job's to judge.
        let key: @Sendable (Document) throws(FieldError) -> Key? = { d throws(FieldError) -> Key? in
            guard let type = d["type"]?.stringValue, type == Self.requestType || type == Self.acceptedType,
                let u = d["userId"]?.stringValue, let r = d["relatedUserId"]?.stringValue
            else { return nil }
            return Key(type: type, userID: u, relatedUserID: r)
        }
        // Only a notification to a candidate's recipient can match: a triggered run reads those
        // (a store search on `userId`), others read every notification.
        let notified = if triggered {
            Set(try await context.decode("notifications", filter: ScanFilter([.oneOf(field: "userId", values: Set(ready.map(\.recipient)))]), key))
        } else {
            Set(try await context.decode("notifications", key))
        }

        let now = Timestamp.json(context.startTime)
        for c in ready {
            let recipient = people[c.recipient]!, related = people[c.related]!
            let nid = c.notificationID
            guard !notified.contains(Key(type: c.type, userID: c.recipient, relatedUserID: c.related)), let path = try? DocumentPath("notifications", nid) else {
                continue
            }
            let title: String, message: String, actionURL: String
            if c.type == Self.requestType {
                (title, message, actionURL) = ("New friend request", "\(related.name) wants to be friends", "/friends/requests")
            } else {
                (title, message, actionURL) = ("Friend request accepted", "\(related.name) accepted your friend request", "/friends")
            }
            context.depend(on: c.friendship)
            context.create(path, JSONObject([
                ("userId", .string(c.recipient)), ("type", .string(c.type)), ("title", .string(title)), ("message", .string(message)),
                ("relatedUserId", .string(c.related)), ("relatedFriendshipId", .string(c.friendshipID)), ("read", false),
                ("createdAt", now), ("actionUrl", .string(actionURL)),
            ]))
            PushMessages.queue(
                notificationID: nid, userID: c.recipient, tokens: recipient.tokens, title: title, body: message, type: c.type,
                actionURL: actionURL, createdAt: context.startTime, context: context)
        }
    }
}
