import Foundation

/// Durations as the config writes them: `"30s"`, `"10m"`, `"24h"`, `"7d"`, also `"500ms"`
/// and combinations like `"1h30m"`.
public enum DurationFormat {
    public static func parse(_ text: String) -> Duration? {
        let t = text.trimmingCharacters(in: .whitespaces)
        guard !t.isEmpty else { return nil }
        var total: Int64 = 0  // milliseconds
        var number: Int64? = nil
        var chars = Array(t)
        var i = 0
        var sawUnit = false
        while i < chars.count {
            let c = chars[i]
            if let d = c.wholeNumberValue, c.isASCII {
                number = (number ?? 0) * 10 + Int64(d)
                if number! > 1_000_000_000 { return nil }
                i += 1
                continue
            }
            guard let n = number else { return nil }
            var unit = String(c)
            if c == "m", i + 1 < chars.count, chars[i + 1] == "s" { unit = "ms"; i += 1 }
            switch unit {
            case "ms": total += n
            case "s": total += n * 1000
            case "m": total += n * 60_000
            case "h": total += n * 3_600_000
            case "d": total += n * 86_400_000
            default: return nil
            }
            sawUnit = true
            number = nil
            i += 1
        }
        chars = []
        if number != nil || !sawUnit { return nil }
        return .milliseconds(total)
    }

    public static func format(_ d: Duration) -> String {
        let ms = d.components.seconds * 1000 + d.components.attoseconds / 1_000_000_000_000_000
        if ms == 0 { return "0s" }
        if ms % 86_400_000 == 0 { return "\(ms / 86_400_000)d" }
        if ms % 3_600_000 == 0 { return "\(ms / 3_600_000)h" }
        if ms % 60_000 == 0 { return "\(ms / 60_000)m" }
        if ms % 1000 == 0 { return "\(ms / 1000)s" }
        return "\(ms)ms"
    }

    public static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }
}
