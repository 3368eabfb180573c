import Foundation
import HearthKit

/// The compiled-in twin of `functions/expire_gigs.py` — the same rule, the same writes — so
/// `scripts/bench.py functions` can time a command job beside a built-in job doing the same
/// work through the same runner (docs/performance.md#command-jobs). Benchmark only.
struct ExpireGigsTwin: Job {
    static let maxAgeDays = Parameter.integer("maxAgeDays", default: 30, min: 0, help: "age at which a gig without expiresAt expires")
    static let descriptor = JobDescriptor(
        name: "expire-gigs-swift", summary: "The Swift twin of functions/expire_gigs.py (benchmark only).",
        defaultSchedule: "0 * * * *", parameters: [maxAgeDays], reads: ["gigs", "users"], writes: ["gigs", "notifications"])

    let maxAge: TimeInterval

    init(parameters: JobParameters, environment: JobEnvironment) throws(JobSetupError) {
        maxAge = TimeInterval(parameters[Self.maxAgeDays]) * 86_400
    }

    func run(_ context: JobContext) async throws {
        struct Gig: Sendable { var document: Document; var deadline: Date; var title: String?; var poster: String? }
        let now = context.logicalTime
        let maxAge = self.maxAge
        let gigs = try await context.decode("gigs") { d throws(FieldError) -> Gig? in
            guard try d.string("status") == "active" else { return nil }
            let expiresAt = try d.timestamp("expiresAt")
            let postedAt = try d.timestamp("postedAt")
            guard let deadline = expiresAt ?? postedAt?.addingTimeInterval(maxAge) else { return nil }
            guard deadline <= now else { return nil }
            return Gig(document: d, deadline: deadline, title: try d.string("title"), poster: try d.string("postedBy"))
        }
        let users = Set(try await context.decode("users") { d throws(FieldError) -> String? in d.id })
        let start = Timestamp.json(context.startTime)
        for g in gigs {
            let id = g.document.id
            context.update(g.document) { o in
                o["status"] = "expired"
                o["expiredAt"] = start
            }
            context.queue(.event("gig.expired", id: "event-expire-gigs-gig-expired-\(id)", data: JSONObject([
                ("gigId", .string(id)), ("postedBy", g.poster.map { .string($0) } ?? .null), ("deadline", Timestamp.json(g.deadline)),
            ])))
            guard let poster = g.poster, users.contains(poster) else { continue }
            let message = "\"\(g.title ?? id)\" is no longer listed. Repost it to keep hiring."
            context.create(try DocumentPath("notifications", "gig-expired-\(id)"), JSONObject([
                ("userId", .string(poster)), ("type", "gig_expired"), ("title", "Your gig has expired"), ("message", .string(message)),
                ("read", false), ("createdAt", start), ("actionUrl", .string("/gigs/\(id)")),
            ]))
        }
    }
}
