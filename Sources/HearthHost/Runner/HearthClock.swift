public import Foundation
public import HearthKit
public import HearthStore
public import HearthHTTP
public import HearthSchedule
public import HearthOutbound

/// Where "now" comes from. Injected everywhere a date is needed so tests never depend on
/// the wall clock.
public protocol HearthClock: Sendable {
    func now() -> Date
}

/// The system's wall clock.
public struct SystemClock: HearthClock {
    public init() {}
    public func now() -> Date { Date() }
}

/// A clock that always says the same instant (`--now`).
public struct FixedClock: HearthClock {
    public let date: Date
    public init(_ date: Date) { self.date = date }
    public func now() -> Date { date }
}
