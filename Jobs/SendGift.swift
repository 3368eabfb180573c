import Foundation
public import HearthKit

/// `send-gift` (docs/jobs/send-gift.md#rules, campus app): the app's `sendGift(to:amount:message:)`
/// as a callable function (docs/callables.md). The caller gives `{toUserId, amount, message?,
/// requestId?}` and gets the outcome at once: `{transactionId, status, points}`, or a
/// ``CallError`` whose `details.reason` is the rule that failed (nothing written).
///
/// - The checks run in the order of docs/jobs/send-gift.md#errors (``Request`` for the call's
///   own fields, then the requestId replay, the users, the friendship, the balance).
/// - A gift settles exactly as `gift-settle` settles a pending one (``GiftSettlement``): the
///   two users' figures, the transaction with its cached names, `notifications/gift-{id}` and
///   its push, the `gift.completed` event — one commit.
/// - With a `requestId` the transaction is `transactions/gift-{uid}-{requestId}`: a retried call
///   finds it and answers it again, so points never move twice. Without one the id is
///   `gift-{uid}-{runID}` (outside a runner, where the run has no id, `S` stands for it).
/// - Each decision records what it rests on (docs/jobs/send-gift.md#what-a-decision-rests-on), so
///   two calls spending the same points at once cannot both commit: the second is decided
///   again on the state the first left.
///
/// Reads the caller's and the receiver's `users` documents, at most one transaction and one
/// notification by id and, with `requireFriendship`, the friendships whose `userId1` is one of
/// the two (a store search where there is one).
public struct SendGift: Job {
    public static let descriptor = JobDescriptor(
        name: "send-gift",
        summary: "The app's sendGift as a callable: checks, moves the points and notifies the receiver in one commit.",
        defaultSchedule: "",
        parameters: [GiftSettle.requireFriendshipParameter, GiftSettle.maxAmountParameter],
        reads: ["users", "transactions", "friendships"],
        writes: ["transactions", "users", "notifications"],
        callable: true,
        callAuth: .required
    )

    /// The reason of a document the gift needs that is invalid input.
    static let invalidDocument = "invalid_document"

    let requireFriendship: Bool
    let maxAmount: Int64
    let notificationsAllowed: Bool
    let provider: PushProviderKind

    public init(parameters: JobParameters, environment: JobEnvironment) throws(JobSetupError) {
        requireFriendship = parameters[GiftSettle.requireFriendshipParameter]
        maxAmount = parameters[GiftSettle.maxAmountParameter]
        notificationsAllowed = environment.notificationTypes.contains(GiftSettlement.notificationType)
        provider = environment.pushProvider
    }

    public func run(_ context: JobContext) async throws {
        let call = try context.requireCall()
        let uid = try call.requireUID()
        let request = try Request(call.data, uid: uid, maxAmount: maxAmount)

        // 5. A retried call: the transaction its requestId names is answered again.
        let id = transactionID(request, uid: uid, context: context)
        let transactionPath = try Self.path("transactions", id)
        if request.requestID != nil {
            if let earlier = try context.document(transactionPath) {
                return try replay(earlier, uid: uid, context: context)
            }
            if context.isInvalid(transactionPath) {
                throw CallError(.failedPrecondition, "The record of this gift is damaged, so it cannot be confirmed; ask for help.", reason: Self.invalidDocument)
            }
            context.depend(onAbsent: transactionPath)
        }

        // 6. Both users, present and readable.
        let senderRead = try user(uid, context: context)
        let receiverRead = try user(request.to, context: context)
        if case .absent = senderRead {
            throw CallError(.notFound, "Your user profile was not found.", reason: GiftSettle.Failure.unknownSender.rawValue)
        }
        if case .absent = receiverRead {
            throw CallError(.notFound, "The user you are sending points to was not found.", reason: GiftSettle.Failure.unknownReceiver.rawValue)
        }
        guard case .valid(let senderDocument, let sender) = senderRead, case .valid(let receiverDocument, let receiver) = receiverRead else {
            throw CallError(.failedPrecondition, "A user profile this gift needs is damaged and cannot be used until it is repaired.", reason: Self.invalidDocument)
        }

        // 7. The friendship, with requireFriendship.
        if requireFriendship {
            let pair = GiftSettle.Pair(uid, request.to)
            var friendships = GiftSettle.Friendships()
            let found = try await context.decode("friendships", filter: ScanFilter([.oneOf(field: "userId1", values: [uid, request.to])])) {
                d throws(FieldError) in try GiftSettle.Friendship(d)
            }
            for f in found where f.pair == pair { friendships.add(f) }
            context.depend(on: friendships.documents[pair] ?? [])
            guard friendships.accepted.contains(pair) else {
                throw CallError(.failedPrecondition, "You can only send points to your friends.", reason: GiftSettle.Failure.notFriends.rawValue)
            }
        }

        // 8. The balance.
        context.depend(on: sender.document)
        guard sender.points >= request.amount else {
            throw CallError(
                .failedPrecondition, "You have \(sender.points) points, fewer than the \(request.amount) you want to send.",
                reason: GiftSettle.Failure.insufficientPoints.rawValue)
        }
        context.depend(on: receiver.document)
        guard let settlement = GiftSettlement(transactionID: id, amount: request.amount, sender: sender, receiver: receiver, startTime: context.startTime) else {
            context.warn("users/\(request.to).json: a gift of \(request.amount) would overflow its figures; answered invalid_amount")
            throw CallError(.invalidArgument, "This amount cannot be added to the receiver's points.", reason: GiftSettle.Failure.invalidAmount.rawValue)
        }

        // The commit: the transaction, both users, the notification and its push, the event.
        var transaction = JSONObject([
            ("type", "gift"), ("status", "completed"), ("fromUserId", .string(uid)), ("toUserId", .string(request.to)),
            ("amount", .int(request.amount)),
        ])
        if let message = request.message { transaction["message"] = .string(message) }
        transaction["createdAt"] = settlement.now
        settlement.complete(&transaction)
        context.create(transactionPath, transaction)
        context.update(senderDocument) { o in GiftSettlement.writeFigures(of: settlement.sender, into: &o) }
        context.update(receiverDocument) { o in GiftSettlement.writeFigures(of: settlement.receiver, into: &o) }
        var notify = false
        if notificationsAllowed {
            // The id is deterministic; a notification already there is kept, with no push (and
            // an id too long for a document id has none, as in gift-settle).
            if let path = try? DocumentPath("notifications", "gift-\(id)") { notify = try context.document(path) == nil }
        } else {
            context.warn(GiftSettlement.notificationTypeMissing)
        }
        settlement.announce(notify: notify, context: context)
        context.answer(Self.result(id, status: "completed", points: settlement.sender.points))
    }

    /// `{"transactionId", "status", "points"}`: the answer of a gift, made now or replayed.
    static func result(_ id: String, status: JSONValue, points: Int64) -> JSONValue {
        .object(JSONObject([("transactionId", .string(id)), ("status", status), ("points", .int(points))]))
    }

    /// The gift's transaction id: `gift-{uid}-{requestId}`, else `gift-{uid}-{runID}` (`S`,
    /// compact, for a run without an id).
    func transactionID(_ request: Request, uid: String, context: JobContext) -> String {
        if let requestID = request.requestID { return "gift-\(uid)-\(requestID)" }
        if !context.runID.isEmpty { return "gift-\(uid)-\(context.runID)" }
        let compact = Timestamp.format(context.startTime).filter { $0 != "-" && $0 != ":" && $0 != "." }
        return "gift-\(uid)-\(compact)"
    }

    /// `collection/id`, or ``CallError/Code/invalidArgument`` when the caller's uid (or it with the
    /// requestId) cannot name a document.
    static func path(_ collection: String, _ id: String) throws(CallError) -> DocumentPath {
        do { return try DocumentPath(collection, id) } catch {
            throw CallError(.invalidArgument, "This gift cannot be recorded under your user id and requestId (\(error.reason)).", reason: GiftSettle.Failure.invalidRequest.rawValue)
        }
    }

    /// A `users` document as a gift reads it.
    enum UserRead {
        /// No document (its absence is recorded as a dependency).
        case absent
        /// Invalid input, reported per the policy.
        case invalid
        case valid(Document, GiftSettlement.Account)
    }

    /// Reads `users/{id}` (an id that cannot name a document has none); an invalid one is
    /// reported per the policy, so under `onInvalidDocument = "fail"` the run fails.
    func user(_ id: String, context: JobContext) throws -> UserRead {
        guard let path = try? DocumentPath("users", id) else { return .absent }
        guard let d = try context.document(path) else {
            if context.isInvalid(path) { return .invalid }
            context.depend(onAbsent: path)
            return .absent
        }
        do {
            return .valid(d, try GiftSettlement.Account(d, provider: provider))
        } catch {
            try context.reportInvalid(d, error)
            return .invalid
        }
    }

    /// The answer to a call whose requestId's transaction exists: its id and status, and the
    /// caller's points now; nothing is written.
    private func replay(_ earlier: Document, uid: String, context: JobContext) throws {
        context.depend(on: earlier)
        guard earlier["fromUserId"]?.stringValue == uid else {
            // Another user's id reads the same (`a-b` + `c`, `a` + `b-c`): not this caller's gift.
            throw CallError(.invalidArgument, "This requestId is already taken; send the gift with another one.", reason: GiftSettle.Failure.invalidRequest.rawValue)
        }
        switch try user(uid, context: context) {
        case .absent:
            throw CallError(.notFound, "Your user profile was not found.", reason: GiftSettle.Failure.unknownSender.rawValue)
        case .invalid:
            throw CallError(.failedPrecondition, "Your user profile is damaged and cannot be used until it is repaired.", reason: Self.invalidDocument)
        case .valid(let document, let account):
            context.depend(on: document)
            context.answer(Self.result(earlier.id, status: earlier["status"] ?? .null, points: account.points))
        }
    }
}
