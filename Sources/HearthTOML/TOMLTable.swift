/// A TOML table whose keys keep the order in which the document defined them.
///
/// Two tables are equal only if their keys are in the same order and their lines match too.
package struct TOMLTable: Sendable, Equatable {
    /// Keys in definition order.
    package private(set) var keys: [String]
    private var storage: [String: TOMLNode]
    /// 1-based line of the table's `[header]` (or `[[header]]`), of the key for inline tables and
    /// tables created by dotted keys, and 0 for the document's root table.
    package var line: Int

    package init(line: Int = 0) {
        self.keys = []
        self.storage = [:]
        self.line = line
    }

    /// Reads a key; assigning appends a new key at the end, replaces an existing key in place,
    /// and assigning `nil` removes the key.
    package subscript(key: String) -> TOMLNode? {
        get { storage[key] }
        set {
            if let newValue {
                if storage.updateValue(newValue, forKey: key) == nil { keys.append(key) }
            } else if storage.removeValue(forKey: key) != nil {
                keys.removeAll { $0 == key }
            }
        }
    }

    /// Key/node pairs in definition order.
    package var entries: [(key: String, node: TOMLNode)] {
        keys.compactMap { key in storage[key].map { (key: key, node: $0) } }
    }
}
