import HearthKit

extension DemoData {
    /// Gigs for the example command job `expire-gigs` (docs/functions.md), posted by students
    /// (campus users, so their poster gets a notification and a push), from a generator of
    /// their own so that every document written before stays byte-identical. One per 40 users,
    /// at least four, `gigs/gig-post-NNNNN`, in turn: an `expiresAt` hours before the anchor
    /// (expires), an `expiresAt` days after it (stays), no `expiresAt` and posted 40 days
    /// before (expires at the default `maxAgeDays = 30`), posted 5 days before (stays).
    func writeFunctionWork(_ w: inout TreeWriter, uid: (Int) -> String, ago: (Double) -> JSONValue) throws {
        guard users >= 10 else { return }
        var rng = SplitMix64(demoSeed: seed ^ 0xBB67_AE85_84CA_A73B)
        let hour = 3600.0, day = 86_400.0
        let titles = ["Library desk assistant", "Move-in day helper", "Calculus tutor", "Event photographer", "Dog walker", "Poster designer"]
        let count = max(4, users / 40)
        for n in 0..<count {
            let poster = uid(1 + (n * 40) % users)
            var o = JSONObject([
                ("title", .string(titles[n % titles.count])),
                ("description", .string("Looking for a reliable student to help out for a few hours a week. Flexible schedule around classes; pay on completion through the app.")),
                ("company", .string("Student post")), ("location", "Madison, WI"), ("isRemote", .bool(n % 3 == 0)),
                ("payMin", .int(Int64(rng.int(12...16)))), ("payMax", .int(Int64(rng.int(17...25)))),
                ("source", "internal"), ("status", "active"), ("postedBy", .string(poster)),
            ])
            switch n % 4 {
            case 0:
                o["postedAt"] = ago(Double(rng.int(10...20)) * day)
                o["expiresAt"] = ago(Double(rng.int(1...48)) * hour)
            case 1:
                o["postedAt"] = ago(Double(rng.int(1...5)) * day)
                o["expiresAt"] = ago(-Double(rng.int(3...20)) * day)
            case 2:
                o["postedAt"] = ago(40 * day)
            default:
                o["postedAt"] = ago(5 * day)
            }
            try w.put("gigs", "gig-post-" + String(repeating: "0", count: max(0, 5 - String(n).count)) + String(n), o)
        }
    }
}
