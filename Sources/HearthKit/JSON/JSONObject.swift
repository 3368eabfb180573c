/// A JSON object that keeps its keys in order.
///
/// Setting an existing key keeps its position; a new key is appended, so a job that changes
/// `points` leaves the document's other keys where the app put them.
public struct JSONObject: Sendable, Hashable, Sequence {
    public private(set) var keys: [String]
    public private(set) var values: [JSONValue]

    public init() {
        keys = []
        values = []
    }

    public init(_ pairs: [(String, JSONValue)]) {
        keys = []
        values = []
        keys.reserveCapacity(pairs.count)
        values.reserveCapacity(pairs.count)
        for (k, v) in pairs { self[k] = v }
    }

    /// Builds an object from pairs known to have distinct keys (the parser checks).
    package init(uniqueKeys: [String], values: [JSONValue]) {
        keys = uniqueKeys
        self.values = values
    }

    public var count: Int { keys.count }
    public var isEmpty: Bool { keys.isEmpty }

    public func index(of key: String) -> Int? {
        keys.firstIndex(of: key)
    }

    public subscript(key: String) -> JSONValue? {
        get { index(of: key).map { values[$0] } }
        set {
            if let i = index(of: key) {
                if let newValue { values[i] = newValue } else {
                    keys.remove(at: i)
                    values.remove(at: i)
                }
            } else if let newValue {
                keys.append(key)
                values.append(newValue)
            }
        }
    }

    /// Replaces the value at position `i` (a position of ``keys``).
    package mutating func setValue(_ value: JSONValue, at i: Int) {
        values[i] = value
    }

    public func makeIterator() -> Zip2Sequence<[String], [JSONValue]>.Iterator {
        zip(keys, values).makeIterator()
    }

    /// Order-insensitive equality of content (used to decide whether a document changed).
    public func sameContent(as other: JSONObject) -> Bool {
        guard count == other.count else { return false }
        for (k, v) in self {
            guard let o = other[k], o.sameContent(as: v) else { return false }
        }
        return true
    }
}

extension JSONValue {
    /// Equality where object key order does not matter and `1` equals `1.0`.
    public func sameContent(as other: JSONValue) -> Bool {
        switch (self, other) {
        case (.object(let a), .object(let b)): return a.sameContent(as: b)
        case (.array(let a), .array(let b)):
            guard a.count == b.count else { return false }
            for i in a.indices where !a[i].sameContent(as: b[i]) { return false }
            return true
        case (.int(let a), .double(let b)): return Double(a) == b
        case (.double(let a), .int(let b)): return a == Double(b)
        case (.number, _), (_, .number): return JSONValue.sameNumber(self, other) ?? false
        default: return self == other
        }
    }
}
