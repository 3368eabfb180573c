public import Foundation

/// Typed reads of a document's fields. A missing field or `null` reads as `nil`; a value of
/// another type throws ``FieldError`` (which makes the document invalid input, docs/data-directory.md#invalid-documents).
extension Document {
    public func string(_ field: String) throws(FieldError) -> String? {
        switch object[field] {
        case nil, .null?: return nil
        case .string(let s)?: return s
        case let other?: throw FieldError(field: field, expected: "string", found: other)
        }
    }

    /// Integers; a number with no fractional part (`12.0`) is accepted as the integer.
    public func int(_ field: String) throws(FieldError) -> Int64? {
        switch object[field] {
        case nil, .null?: return nil
        case .int(let i)?: return i
        case .double(let d)? where d == d.rounded() && abs(d) < 9.2e18: return Int64(d)
        case .number(let n)?:
            if let i = n.int64Value { return i }
            if n.isIntegerText {
                throw FieldError(field: field, message: "expected integer between \(Int64.min) and \(Int64.max), found integer \(n.text)")
            }
            throw FieldError(field: field, expected: "integer", found: .number(n))
        case let other?: throw FieldError(field: field, expected: "integer", found: other)
        }
    }

    public func number(_ field: String) throws(FieldError) -> Double? {
        switch object[field] {
        case nil, .null?: return nil
        case .int(let i)?: return Double(i)
        case .double(let d)?: return d
        case .number(let n)?:
            if let d = n.doubleValue { return d }
            throw FieldError(field: field, expected: "number", found: .number(n))
        case let other?: throw FieldError(field: field, expected: "number", found: other)
        }
    }

    public func bool(_ field: String) throws(FieldError) -> Bool? {
        switch object[field] {
        case nil, .null?: return nil
        case .bool(let b)?: return b
        case let other?: throw FieldError(field: field, expected: "boolean", found: other)
        }
    }

    public func timestamp(_ field: String) throws(FieldError) -> Date? {
        guard let v = object[field], !v.isNull else { return nil }
        if let d = Timestamp.date(from: v) { return d }
        throw FieldError(field: field, expected: "timestamp (ISO-8601 string or {\"_seconds\", \"_nanoseconds\"})", found: v)
    }

    public func stringArray(_ field: String) throws(FieldError) -> [String]? {
        switch object[field] {
        case nil, .null?: return nil
        case .array(let items)?:
            var out: [String] = []
            out.reserveCapacity(items.count)
            for (i, item) in items.enumerated() {
                guard case .string(let s) = item else {
                    throw FieldError(field: "\(field)[\(i)]", expected: "string", found: item)
                }
                out.append(s)
            }
            return out
        case let other?: throw FieldError(field: field, expected: "array of strings", found: other)
        }
    }

    public func objectField(_ field: String) throws(FieldError) -> JSONObject? {
        switch object[field] {
        case nil, .null?: return nil
        case .object(let o)?: return o
        case let other?: throw FieldError(field: field, expected: "object", found: other)
        }
    }

    /// A document id stored in a field (`fromUserId`), checked against the id rules so that
    /// `"../x"` can never become a path.
    public func documentID(_ field: String) throws(FieldError) -> String? {
        guard let s = try string(field) else { return nil }
        do { try DocumentPath.validate(name: s) } catch {
            throw FieldError(field: field, message: error.description)
        }
        return s
    }
}
