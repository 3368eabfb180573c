/// Numbers kept as written (``JSONNumber``): comparing them by value, and keeping their text
/// when a job writes back the same value.
extension JSONValue {
    /// Whether two numbers have the same value. An integer text beyond `Int64` equals only the
    /// same integer text (a `Double` near it is not the same value).
    static func sameNumber(_ a: JSONValue, _ b: JSONValue) -> Bool? {
        switch (a, b) {
        case (.number(let x), .number(let y)):
            if x.text == y.text { return true }
            if x.isIntegerText, y.isIntegerText { return x.exactInt64 != nil && x.exactInt64 == y.exactInt64 }
            if (x.isIntegerText && x.exactInt64 == nil) || (y.isIntegerText && y.exactInt64 == nil) { return false }
            return x.doubleValue == y.doubleValue
        case (.number(let x), .int(let i)), (.int(let i), .number(let x)):
            if x.isIntegerText { return x.exactInt64 == i }
            return x.doubleValue == Double(i)
        case (.number(let x), .double(let d)), (.double(let d), .number(let x)):
            if x.isIntegerText, x.exactInt64 == nil { return false }
            return x.doubleValue == d
        default:
            return nil
        }
    }
}

extension JSONObject {
    /// This object with every field that `original` holds as a kept number text, and that
    /// this object holds with the same value in another form, put back as that text (also in
    /// nested objects): a job that writes `1.1` over `1.10` leaves `1.10` in the file.
    package func keepingNumberText(of original: JSONObject) -> JSONObject {
        var result = self
        for (i, key) in keys.enumerated() {
            guard let old = original[key] else { continue }
            let new = values[i]
            switch (old, new) {
            case (.number, _):
                if old != new, JSONValue.sameNumber(old, new) == true { result.setValue(old, at: i) }
            case (.object(let o), .object(let n)) where o != n:
                result.setValue(.object(n.keepingNumberText(of: o)), at: i)
            default:
                continue
            }
        }
        return result
    }
}
