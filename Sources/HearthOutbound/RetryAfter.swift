package import Foundation

/// The `Retry-After` response header (RFC 9110 §10.2.3): delay-seconds or an HTTP-date.
package enum RetryAfter {
    /// The delay the header asks for, from `now`; nil when absent or unreadable. A date in the
    /// past gives zero; delays are capped at one day.
    package static func delay(_ value: String?, now: Date) -> Duration? {
        guard let raw = value?.trimmingCharacters(in: .whitespaces), !raw.isEmpty else { return nil }
        if raw.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            guard let seconds = Int64(raw.prefix(9)) else { return nil }
            return .seconds(min(seconds, 86_400))
        }
        guard let date = httpDate(raw) else { return nil }
        let seconds = date.timeIntervalSince(now)
        if seconds <= 0 { return .zero }
        return .milliseconds(Int64(min(seconds, 86_400) * 1000))
    }

    /// IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the form servers send.
    static func httpDate(_ text: String) -> Date? {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "GMT")
        f.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return f.date(from: text)
    }
}
