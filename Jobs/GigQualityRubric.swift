import Foundation

/// The gig board's quality rubric (docs/jobs/gig-quality-score.md#the-rubric), in one place.
///
/// **How a gig is scored.** Each of the seven components below gives full, partial or no
/// points; a component short of full marks adds its reason code. Then each penalty that
/// applies subtracts its points and adds its code. An expired gig scores 0. The total is
/// clamped to 0…100 and mapped to a tier. `qualityReasons` lists the component codes in table
/// order, then the penalty codes in table order (then `scorer_unavailable`, when an external
/// scorer was configured and failed).
///
/// The tables are data: points and reason codes are read from them, never repeated in code.
/// Each row carries its rule in words (what `docs/jobs-gigs.md` shows) and the check that
/// implements it, side by side.
///
/// Definitions used by the checks (decided here, documented in `docs/jobs-gigs.md`):
/// - **characters**: Swift `Character`s (user-perceived characters: `é`, `👍🏽` count 1) of
///   the title with leading and trailing whitespace removed.
/// - **letters**: characters with `Character.isLetter`; **upper case**: `Character.isUppercase`.
/// - **words**: maximal runs of non-whitespace (Unicode `White_Space`, newlines included).
/// - **blank**: empty or only whitespace.
/// - **digit**: any Unicode decimal digit (`0`–`9`, and e.g. `٣`, `３`).
/// - **days**: elapsed 24-hour periods between `postedAt` and the run's logical time T
///   (7 days = 604 800 s), independent of time zones and DST.
/// - A missing `postedAt` earns no freshness points (`stale`); a `postedAt` after T too
///   (a gig cannot be fresher than "now"; it is rescored on the next run after it goes live).
enum GigQualityRubric {
    // MARK: - The components (read this table)

    static let components: [Component] = [
        Component(
            .title,
            full: Level(15, "10–80 characters and not shouting (shouting: more than 10 letters, over half of them upper case)"),
            partial: [Level(8, "5–120 characters otherwise")],
            short: .weakTitle, missing: .weakTitle
        ) { input in
            let t = input.gig.titleFacts
            if (10...80).contains(t.characters) && !t.isShouting { return .full }
            if (5...120).contains(t.characters) { return .partial(0) }
            return .none
        },
        Component(
            .description,
            full: Level(25, "at least 80 words (split on whitespace)"),
            partial: [Level(18, "at least 40 words"), Level(10, "at least 15 words")],
            short: .shortDescription, missing: .shortDescription
        ) { input in
            let words = input.gig.descriptionWords
            if words >= 80 { return .full }
            if words >= 40 { return .partial(0) }
            if words >= 15 { return .partial(1) }
            return .none
        },
        Component(
            .pay,
            full: Level(20, "`payMin` or `payMax` is a number greater than 0"),
            partial: [Level(10, "otherwise, a `compensation` text containing a digit (\"$15/hour\")")],
            short: .vaguePay, missing: .noPay
        ) { input in
            let g = input.gig
            if (g.payMin ?? 0) > 0 || (g.payMax ?? 0) > 0 { return .full }
            if let c = g.compensation, GigText.containsDigit(c) { return .partial(0) }
            return .none
        },
        Component(
            .place,
            full: Level(10, "a non-blank `location`, or `isRemote` is true"),
            partial: [],
            short: .noLocation, missing: .noLocation
        ) { input in
            !GigText.isBlank(input.gig.location) || input.gig.isRemote ? .full : .none
        },
        Component(
            .organization,
            full: Level(10, "a non-blank `company`"),
            partial: [],
            short: .noCompany, missing: .noCompany
        ) { input in
            GigText.isBlank(input.gig.company) ? .none : .full
        },
        Component(
            .freshness,
            full: Level(10, "posted 0–7 days before T (`postedAt` ≤ T, T − `postedAt` ≤ 7 days)"),
            partial: [Level(5, "posted 0–30 days before T")],
            short: .stale, missing: .stale
        ) { input in
            guard let posted = input.gig.postedAt else { return .none }
            let age = input.logicalTime.timeIntervalSince(posted)
            if age < 0 { return .none }
            if age <= 7 * GigText.day { return .full }
            if age <= 30 * GigText.day { return .partial(0) }
            return .none
        },
        Component(
            .applyPath,
            full: Level(10, "`source` is \"internal\", or (any other source) an `externalUrl` that is https:// with a host containing a dot"),
            partial: [Level(5, "the same over http://")],
            short: .insecureApplyURL, missing: .noApplyPath
        ) { input in
            let g = input.gig
            if g.source == "internal" { return .full }
            switch g.externalUrl.flatMap(GigText.applyURLScheme) {
            case .https?: return .full
            case .http?: return .partial(0)
            case nil: return .none
            }
        },
    ]

    // MARK: - The penalties (applied after the components, in this order)

    static let penalties: [Penalty] = [
        Penalty(
            .contactDetails, .subtract(15),
            "contact details in the title or description: an email address, or a run of 9 or more digits possibly separated by spaces, dots, dashes or parentheses"
        ) { input in
            let g = input.gig
            return GigText.containsContactDetails(g.title) || GigText.containsContactDetails(g.description)
        },
        Penalty(.hype, .subtract(10), "`!!!` or `$$` in the title or description") { input in
            GigText.containsHype(input.gig.title) || GigText.containsHype(input.gig.description)
        },
        Penalty(
            .duplicate, .subtract(20),
            "same lower-cased, trimmed title and company as another scored gig with an earlier `postedAt` (equal `postedAt`: the smaller id is the original)"
        ) { input in
            input.isDuplicate
        },
        Penalty(.expired, .zeroScore, "`expiresAt` is before T (a gig expiring exactly at T is not expired)") { input in
            guard let expires = input.gig.expiresAt else { return false }
            return expires < input.logicalTime
        },
    ]

    // MARK: - Tiers

    /// Lower bounds, highest first: ≥ 75 high, ≥ 50 medium, else low.
    static let tiers: [(minimum: Int, tier: GigQualityTier)] = [(75, .high), (50, .medium), (0, .low)]

    static func tier(for score: Int) -> GigQualityTier {
        tiers.first { score >= $0.minimum }?.tier ?? .low
    }

    // MARK: - Scoring

    /// Scores one gig by the tables above.
    static func assess(_ input: Input) -> Assessment {
        var total = 0
        var reasons: [GigQualityReason] = []
        var marks: [(GigQualityComponent, Int)] = []
        for c in components {
            let mark = c.check(input)
            let points = c.points(for: mark)
            marks.append((c.component, points))
            total += points
            if let reason = c.reason(for: mark) { reasons.append(reason) }
        }
        var zero = false
        for p in penalties where p.applies(input) {
            reasons.append(p.reason)
            switch p.effect {
            case .subtract(let n): total -= n
            case .zeroScore: zero = true
            }
        }
        let score = zero ? 0 : min(100, max(0, total))
        return Assessment(score: score, tier: tier(for: score), reasons: reasons, components: marks)
    }

    /// The most points the components can give (100).
    static var maximum: Int { components.reduce(0) { $0 + $1.full.points } }
}

// MARK: - Reason codes

/// The reason codes written to `qualityReasons`. The raw values are a stable contract with
/// the apps (the gig board's QualityBadge explains a score from them): never rename one.
enum GigQualityReason: String, Sendable, CaseIterable {
    case weakTitle = "weak_title"
    case shortDescription = "short_description"
    case vaguePay = "vague_pay"
    case noPay = "no_pay"
    case noLocation = "no_location"
    case noCompany = "no_company"
    case stale
    case insecureApplyURL = "insecure_apply_url"
    case noApplyPath = "no_apply_path"
    case contactDetails = "contact_details"
    case hype
    case duplicate
    case expired
    case scorerUnavailable = "scorer_unavailable"

    /// What the code means, in words a poster can act on.
    var meaning: String {
        switch self {
        case .weakTitle: "The title is too short, too long, or shouting (mostly capital letters)."
        case .shortDescription: "The description has fewer than 80 words."
        case .vaguePay: "Pay is only described in words (\"$15/hour\"), not as payMin/payMax amounts."
        case .noPay: "No pay is given."
        case .noLocation: "No location, and not marked remote."
        case .noCompany: "No company name."
        case .stale: "Posted more than 7 days ago (or no posting date)."
        case .insecureApplyURL: "The apply link uses http:// instead of https://."
        case .noApplyPath: "No way to apply: not an internal gig and no valid apply link."
        case .contactDetails: "The title or description contains an email address or phone number."
        case .hype: "The title or description contains \"!!!\" or \"$$\"."
        case .duplicate: "Another gig with the same title and company was posted earlier."
        case .expired: "The gig's expiry date has passed; it scores 0."
        case .scorerUnavailable: "The external scorer could not be reached or gave an invalid answer; the built-in rubric was used."
        }
    }
}

enum GigQualityTier: String, Sendable, CaseIterable {
    case high, medium, low
}

enum GigQualityComponent: String, Sendable, CaseIterable {
    case title, description, pay, place, organization, freshness
    case applyPath = "apply path"
}

// MARK: - Table types

extension GigQualityRubric {
    /// What a check decides for a gig: full marks, the n-th partial level, or nothing.
    enum Mark: Sendable, Equatable {
        case full
        case partial(Int)
        case none
    }

    /// Points and the rule, in words.
    struct Level: Sendable {
        var points: Int
        var rule: String
        init(_ points: Int, _ rule: String) {
            self.points = points
            self.rule = rule
        }
    }

    /// What the checks see: the gig, the run's logical time T, and whether the gig is a
    /// duplicate (decided across the whole collection by the job).
    struct Input: Sendable {
        var gig: Gig
        var logicalTime: Date
        var isDuplicate: Bool
    }

    /// One row of the component table.
    struct Component: Sendable {
        var component: GigQualityComponent
        var full: Level
        /// Partial levels, most points first.
        var partial: [Level]
        /// The reason added for partial points.
        var short: GigQualityReason
        /// The reason added for no points.
        var missing: GigQualityReason
        var check: @Sendable (Input) -> Mark

        init(
            _ component: GigQualityComponent, full: Level, partial: [Level], short: GigQualityReason, missing: GigQualityReason,
            check: @escaping @Sendable (Input) -> Mark
        ) {
            self.component = component
            self.full = full
            self.partial = partial
            self.short = short
            self.missing = missing
            self.check = check
        }

        func points(for mark: Mark) -> Int {
            switch mark {
            case .full: full.points
            case .partial(let i): partial[i].points
            case .none: 0
            }
        }

        func reason(for mark: Mark) -> GigQualityReason? {
            switch mark {
            case .full: nil
            case .partial: short
            case .none: missing
            }
        }
    }

    /// One row of the penalty table.
    struct Penalty: Sendable {
        enum Effect: Sendable, Equatable {
            case subtract(Int)
            /// The score becomes 0 whatever else applies.
            case zeroScore
        }

        var reason: GigQualityReason
        var effect: Effect
        var rule: String
        var applies: @Sendable (Input) -> Bool

        init(_ reason: GigQualityReason, _ effect: Effect, _ rule: String, applies: @escaping @Sendable (Input) -> Bool) {
            self.reason = reason
            self.effect = effect
            self.rule = rule
            self.applies = applies
        }
    }

    /// The rubric's verdict on one gig.
    struct Assessment: Sendable, Equatable {
        var score: Int
        var tier: GigQualityTier
        var reasons: [GigQualityReason]
        /// Points per component, in table order (for diagnostics and tests).
        var components: [(GigQualityComponent, Int)]

        static func == (a: Assessment, b: Assessment) -> Bool {
            a.score == b.score && a.tier == b.tier && a.reasons == b.reasons
                && a.components.map(\.0) == b.components.map(\.0) && a.components.map(\.1) == b.components.map(\.1)
        }
    }
}
