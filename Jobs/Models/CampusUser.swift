import HearthKit

/// The campus app's `users/{id}` fields the jobs use, with the app decoder's defaults
/// (`User.init(from:)`): a missing field reads as its default.
struct CampusUser: Sendable {
    static let defaultPoints: Int64 = 500
    static let defaultTotalPointsEarned: Int64 = 500
    static let defaultRank: Int64 = 999
    static let defaultGenerosityLevel = "Newbie"

    var document: Document
    var name: String
    var username: String
    var school: String
    var points: Int64
    var totalPointsEarned: Int64
    var totalPointsGifted: Int64
    var giftsGiven: Int64
    var giftsReceived: Int64
    var rank: Int64
    var generosityLevel: String
    var generosityScore: Int64
    var isPrivate: Bool

    var id: String { document.id }

    init(_ d: Document) throws(FieldError) {
        document = d
        name = try d.string("name") ?? ""
        username = try d.string("username") ?? ""
        school = try d.string("school") ?? ""
        points = try d.int("points") ?? Self.defaultPoints
        totalPointsEarned = try d.int("totalPointsEarned") ?? Self.defaultTotalPointsEarned
        totalPointsGifted = try d.int("totalPointsGifted") ?? 0
        giftsGiven = try d.int("giftsGiven") ?? 0
        giftsReceived = try d.int("giftsReceived") ?? 0
        rank = try d.int("rank") ?? Self.defaultRank
        generosityLevel = try d.string("generosityLevel") ?? Self.defaultGenerosityLevel
        generosityScore = try d.int("generosityScore") ?? 0
        isPrivate = try d.bool("isPrivate") ?? false
    }
}
