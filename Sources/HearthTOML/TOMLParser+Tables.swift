import HearthKit
extension TOMLParser {
    /// Mutable table used while parsing; remembers how each table came to exist, which decides
    /// whether a later header or dotted key may add to it.
    final class TableBuilder {
        enum Kind: Equatable {
            /// Created only as a parent of a header (`a` in `[a.b]`); may still be defined once.
            case implicit
            /// Defined by `[header]`, `[[header]]`, or the root / an inline table.
            case header
            /// Created by a dotted key in the given section.
            case dotted(section: Int)
        }

        enum Item {
            /// Scalars, static arrays and inline tables: all complete once written.
            case value(TOMLNode)
            case table(TableBuilder)
            case tables(line: Int, [TableBuilder])
        }

        var kind: Kind
        var line: Int
        /// Absolute key path, for messages.
        let path: [String]
        private var order: [String] = []
        private(set) var items: [String: Item] = [:]

        init(kind: Kind, line: Int, path: [String]) {
            self.kind = kind
            self.line = line
            self.path = path
        }

        subscript(key: String) -> Item? {
            get { items[key] }
            set {
                if let newValue {
                    if items.updateValue(newValue, forKey: key) == nil { order.append(key) }
                }
            }
        }

        func build() -> TOMLTable {
            var table = TOMLTable(line: line)
            for key in order {
                switch items[key] {
                case .value(let node)?:
                    table[key] = node
                case .table(let sub)?:
                    table[key] = TOMLNode(value: .table(sub.build()), line: sub.line)
                case .tables(let line, let list)?:
                    let elements = list.map { TOMLNode(value: .table($0.build()), line: $0.line) }
                    table[key] = TOMLNode(value: .array(elements), line: line)
                case nil:
                    break
                }
            }
            return table
        }
    }
}

extension TOMLParser.TableBuilder.Item {
    var line: Int {
        switch self {
        case .value(let node): node.line
        case .table(let table): table.line
        case .tables(let line, _): line
        }
    }
}

extension TOMLParser.Reader {
    /// Stores `key = value` under `base`, creating the tables of a dotted key.
    func insert(
        _ key: [KeyPart], value: TOMLValue, line: Int, into base: TableBuilder, section: Int
    ) throws(TOMLError) {
        let fullName = Self.keyName(key)
        var table = base
        for (n, part) in key.dropLast().enumerated() {
            let prefix = Self.keyName(key[...n])
            switch table[part.name] {
            case nil:
                let sub = TableBuilder(kind: .dotted(section: section), line: line, path: table.path + [part.name])
                table[part.name] = .table(sub)
                table = sub
            case .table(let sub)?:
                switch sub.kind {
                case .implicit:
                    sub.kind = .dotted(section: section)
                    sub.line = line
                case .dotted(let owner) where owner == section:
                    break
                case .dotted:
                    throw failure(
                        "cannot add key \(Self.quoted(fullName)): table \(Self.quoted(prefix)) was already defined "
                            + "by dotted keys on line \(sub.line)", at: part.start)
                case .header:
                    throw failure(
                        "cannot add key \(Self.quoted(fullName)) here: table [\(Self.keyName(sub.path))] is "
                            + "defined on line \(sub.line); put the key in that table", at: part.start)
                }
                table = sub
            case .tables(let definedOn, _)?:
                throw failure(
                    "cannot add key \(Self.quoted(fullName)): \(Self.quoted(prefix)) is an array of tables "
                        + "(defined on line \(definedOn))", at: part.start)
            case .value(let node)?:
                throw notATable(node, prefix: prefix, "cannot add key \(Self.quoted(fullName))", at: part.start)
            }
        }
        guard let last = key.last else { return }
        if let existing = table[last.name] {
            throw failure(
                "duplicate key \(Self.quoted(fullName)) (first defined on line \(existing.line))",
                at: key[0].start)
        }
        table[last.name] = .value(TOMLNode(value: value, line: line))
    }

    /// Why `action` cannot go through `prefix`, a key that holds a value (`node`): an inline
    /// table cannot be extended, anything else is not a table.
    func notATable(_ node: TOMLNode, prefix: String, _ action: String, at position: Int) -> TOMLError {
        if case .table = node.value {
            return failure("\(action): inline table \(Self.quoted(prefix)) (line \(node.line)) cannot be extended", at: position)
        }
        return failure(
            "\(action): \(Self.quoted(prefix)) is already \(Self.withArticle(node.value.typeName)) (line \(node.line))",
            at: position)
    }

    /// Resolves a `[header]` or `[[header]]` to the table that following keys go into.
    func defineTable(
        _ key: [KeyPart], isArray: Bool, start: Int, header: String
    ) throws(TOMLError) -> TableBuilder {
        let line = lineOf(start)
        var table = root
        for (n, part) in key.dropLast().enumerated() {
            let prefix = Self.keyName(key[...n])
            switch table[part.name] {
            case nil:
                let sub = TableBuilder(kind: .implicit, line: line, path: table.path + [part.name])
                table[part.name] = .table(sub)
                table = sub
            case .table(let sub)?:
                table = sub
            case .tables(_, let list)?:
                // A header inside an array of tables continues its most recent element.
                if let lastElement = list.last { table = lastElement }
            case .value(let node)?:
                throw notATable(node, prefix: prefix, "cannot define \(header)", at: part.start)
            }
        }
        guard let last = key.last else { return table }
        let path = table.path + [last.name]
        let name = Self.keyName(path)
        let fresh = TableBuilder(kind: .header, line: line, path: path)
        switch (table[last.name], isArray) {
        case (nil, false):
            table[last.name] = .table(fresh)
        case (nil, true):
            table[last.name] = .tables(line: line, [fresh])
        case (.tables(let definedOn, let list)?, true):
            table[last.name] = .tables(line: definedOn, list + [fresh])
        case (.tables(let definedOn, _)?, false):
            throw failure(
                "table [\(name)] is already defined as an array of tables on line \(definedOn)", at: start)
        case (.table(let sub)?, false):
            switch sub.kind {
            case .implicit:
                sub.kind = .header
                sub.line = line
                return sub
            case .header:
                throw failure("table [\(name)] is already defined on line \(sub.line)", at: start)
            case .dotted:
                throw failure("table [\(name)] is already defined by dotted keys on line \(sub.line)", at: start)
            }
        case (.table(let sub)?, true):
            throw failure(
                "cannot define array of tables [[\(name)]]: [\(name)] is already a table (line \(sub.line))",
                at: start)
        case (.value(let node)?, _):
            switch node.value {
            case .table where !isArray:
                throw failure("table [\(name)] is already defined as an inline table on line \(node.line)", at: start)
            case .array where isArray:
                throw failure(
                    "cannot append to static array \(Self.quoted(name)) (defined on line \(node.line)) with \(header)",
                    at: start)
            default:
                let kind = node.value.typeName == "table" ? "an inline table" : Self.withArticle(node.value.typeName)
                throw failure(
                    "cannot define \(header): key \(Self.quoted(name)) is already \(kind) (line \(node.line))", at: start)
            }
        }
        return fresh
    }
}
