import Foundation
import HearthKit

extension Date {
    /// `date` moved by `duration` (the daemon's slots, delays and deadlines).
    static func + (date: Date, duration: Duration) -> Date {
        date.addingTimeInterval(DurationFormat.seconds(duration))
    }

    static func - (date: Date, duration: Duration) -> Date {
        date.addingTimeInterval(-DurationFormat.seconds(duration))
    }
}
