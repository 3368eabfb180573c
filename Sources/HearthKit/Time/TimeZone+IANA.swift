public import Foundation

extension TimeZone {
    /// The zone's IANA name for people and reports: `UTC` for the zone Foundation on Linux
    /// calls `GMT`, the identifier otherwise.
    public var ianaName: String {
        identifier == "GMT" ? "UTC" : identifier
    }
}
