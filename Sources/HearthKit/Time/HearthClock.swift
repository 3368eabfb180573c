package import Foundation

/// Where "now" comes from. Injected everywhere a date is needed so tests never depend on
/// the wall clock. In the SDK module so that HearthTesting, which sits beside the host, can
/// hand tests a ``FixedClock``; jobs never see it (they read ``JobContext/logicalTime`` and
/// ``JobContext/startTime``).
package protocol HearthClock: Sendable {
    func now() -> Date
}

/// The system's wall clock.
package struct SystemClock: HearthClock {
    package init() {}
    package func now() -> Date { Date() }
}

/// A clock that always says the same instant (`--now`).
package struct FixedClock: HearthClock {
    package let date: Date
    package init(_ date: Date) { self.date = date }
    package func now() -> Date { date }
}
