/// A TOML 1.0 parser that remembers the line of every key, array element and table.
///
/// Date-times are validated but kept as written (see ``TOMLValue/datetime(_:)``). Newlines in
/// multi-line strings are normalised to `\n`. Times must include seconds, as TOML 1.0 requires.
package enum TOMLParser {
    /// Parses a whole document into its root table.
    ///
    /// - Parameters:
    ///   - text: The document. A leading byte-order mark is ignored.
    ///   - file: Only used to prefix error messages.
    /// - Throws: The first error found, positioned at the offending character; for a duplicate
    ///   key or a redefined table, at the second definition.
    package static func parse(_ text: String, file: String) throws(TOMLError) -> TOMLTable {
        var reader = Reader(text: text, file: file)
        return try reader.parseDocument()
    }
}

extension TOMLParser {
    /// One key segment and where it starts, so errors can point at it.
    struct KeyPart {
        var name: String
        var start: Int
    }

    /// Cursor over the document's Unicode scalars plus the table being filled.
    struct Reader {
        typealias TableBuilder = TOMLParser.TableBuilder
        typealias KeyPart = TOMLParser.KeyPart

        /// Arrays and inline tables nested deeper than this are rejected instead of
        /// risking the stack.
        static let maxNesting = 128

        let s: [Unicode.Scalar]
        let file: String
        let lineStarts: [Int]
        var i = 0
        /// Every `[header]` and inline table opens a new section; tables created by dotted keys
        /// can only be extended by dotted keys from the same section.
        var section = 0
        var lastSection = 0
        var depth = 0
        let root: TableBuilder
        var current: TableBuilder

        init(text: String, file: String) {
            var scalars = Array(text.unicodeScalars)
            if scalars.first == "\u{FEFF}" { scalars.removeFirst() }
            s = scalars
            self.file = file
            var starts = [0]
            for (index, c) in scalars.enumerated() where c == "\n" { starts.append(index + 1) }
            lineStarts = starts
            root = TableBuilder(kind: .header, line: 0, path: [])
            current = root
        }

        // MARK: Positions and errors

        var peek: Unicode.Scalar? { i < s.count ? s[i] : nil }

        func at(_ index: Int) -> Unicode.Scalar? { index < s.count ? s[index] : nil }

        func lineIndex(of index: Int) -> Int {
            var low = 0
            var high = lineStarts.count - 1
            while low < high {
                let mid = (low + high + 1) / 2
                if lineStarts[mid] <= index { low = mid } else { high = mid - 1 }
            }
            return low
        }

        func lineOf(_ index: Int) -> Int { lineIndex(of: index) + 1 }

        func failure(_ message: String, at index: Int) -> TOMLError {
            let lineIndex = lineIndex(of: index)
            return TOMLError(
                file: file, line: lineIndex + 1, column: index - lineStarts[lineIndex] + 1,
                message: message)
        }

        /// Names the character at `index` for "found ..." messages.
        func describe(_ index: Int) -> String {
            guard let c = at(index) else { return "end of file" }
            switch c {
            case "\n": return "end of line"
            case "\r": return at(index + 1) == "\n" ? "end of line" : "carriage return"
            case " ": return "space"
            case "\t": return "tab"
            default: return Self.isControl(c) ? Self.codePoint(c) : "\"\(c)\""
            }
        }

        func text(_ range: Range<Int>) -> String {
            String(String.UnicodeScalarView(s[range]))
        }

        // MARK: Character classes

        static func isBareKeyChar(_ c: Unicode.Scalar) -> Bool {
            switch c {
            case "A"..."Z", "a"..."z", "0"..."9", "_", "-": true
            default: false
            }
        }

        static func isDigit(_ c: Unicode.Scalar?) -> Bool {
            guard let c else { return false }
            return c >= "0" && c <= "9"
        }

        /// Control characters that may not appear in strings or comments (tab is allowed).
        static func isControl(_ c: Unicode.Scalar) -> Bool {
            (c.value < 0x20 && c != "\t") || c.value == 0x7F
        }

        static func codePoint(_ c: Unicode.Scalar) -> String {
            let hex = String(c.value, radix: 16, uppercase: true)
            return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        }

        /// Renders a key path the way it would be written in TOML, quoting segments as needed.
        static func keyName(_ parts: [String]) -> String {
            parts.map { part in
                if !part.isEmpty && part.unicodeScalars.allSatisfy(isBareKeyChar) { return part }
                var quoted = "\""
                for c in part.unicodeScalars {
                    switch c {
                    case "\"": quoted += "\\\""
                    case "\\": quoted += "\\\\"
                    default:
                        if isControl(c) || c == "\t" {
                            let hex = String(c.value, radix: 16, uppercase: true)
                            quoted += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                        } else {
                            quoted.unicodeScalars.append(c)
                        }
                    }
                }
                return quoted + "\""
            }.joined(separator: ".")
        }

        static func keyName(_ parts: some Collection<KeyPart>) -> String {
            keyName(parts.map(\.name))
        }

        /// A rendered key for messages: `"timeout"`, or as rendered when it has quoted parts
        /// (`a."b c"`), which would be hard to read inside another pair of quotes.
        static func quoted(_ renderedKey: String) -> String {
            renderedKey.contains("\"") ? renderedKey : "\"\(renderedKey)\""
        }

        static func withArticle(_ typeName: String) -> String {
            (typeName.first.map { "aeiou".contains($0) } ?? false) ? "an \(typeName)" : "a \(typeName)"
        }

        // MARK: Whitespace, comments, line ends

        mutating func skipSpaces() {
            while let c = peek, c == " " || c == "\t" { i += 1 }
        }

        /// Consumes `\n` or `\r\n`.
        mutating func consumeNewline() throws(TOMLError) {
            if peek == "\n" {
                i += 1
            } else if peek == "\r" {
                guard at(i + 1) == "\n" else { throw bareCarriageReturn(at: i) }
                i += 2
            }
        }

        func bareCarriageReturn(at index: Int) -> TOMLError {
            failure("bare carriage return (CR not followed by LF)", at: index)
        }

        /// Skips a `#` comment up to (not including) the line end.
        mutating func skipComment() throws(TOMLError) {
            guard peek == "#" else { return }
            i += 1
            while let c = peek, c != "\n" {
                if c == "\r" {
                    if at(i + 1) == "\n" { return }
                    throw bareCarriageReturn(at: i)
                }
                if Self.isControl(c) {
                    throw failure("control character \(Self.codePoint(c)) is not allowed in a comment", at: i)
                }
                i += 1
            }
        }

        /// Skips spaces, comments and newlines (inside arrays).
        mutating func skipTrivia() throws(TOMLError) {
            while true {
                skipSpaces()
                switch peek {
                case "#": try skipComment()
                case "\n", "\r": try consumeNewline()
                default: return
                }
            }
        }

        /// After a key/value pair or a header only a comment may follow on the same line.
        mutating func expectEndOfLine(after what: String) throws(TOMLError) {
            skipSpaces()
            try skipComment()
            guard let c = peek else { return }
            guard c == "\n" || c == "\r" else {
                throw failure("expected end of line after \(what), found \(describe(i))", at: i)
            }
            try consumeNewline()
        }

        // MARK: Document structure

        mutating func parseDocument() throws(TOMLError) -> TOMLTable {
            while true {
                skipSpaces()
                guard let c = peek else { break }
                switch c {
                case "\n", "\r": try consumeNewline()
                case "#": try skipComment()
                case "[": try parseHeader()
                default: try parseKeyValue()
                }
            }
            return root.build()
        }

        mutating func parseKeyValue() throws(TOMLError) {
            let name = try parseKeyValue(into: current, section: section)
            try expectEndOfLine(after: "the value of key \(Self.quoted(name))")
        }

        /// `key = value` at the cursor, inserted into `table`; returns the key's name for
        /// messages about what follows the value.
        mutating func parseKeyValue(into table: TableBuilder, section: Int) throws(TOMLError) -> String {
            let keyStart = i
            let key = try parseKey()
            let name = Self.keyName(key)
            skipSpaces()
            guard peek == "=" else {
                throw failure("expected \"=\" after key \(Self.quoted(name)), found \(describe(i))", at: i)
            }
            i += 1
            skipSpaces()
            let line = lineOf(keyStart)
            let value = try parseValue(for: "key \(Self.quoted(name))", line: line)
            try insert(key, value: value, line: line, into: table, section: section)
            return name
        }

        /// Parses a possibly dotted key; leaves the cursor after the last segment's trailing spaces.
        mutating func parseKey() throws(TOMLError) -> [KeyPart] {
            var parts: [KeyPart] = []
            while true {
                skipSpaces()
                let start = i
                guard let c = peek else { throw failure("expected a key, found end of file", at: i) }
                let name: String
                if c == "\"" || c == "'" {
                    if at(i + 1) == c && at(i + 2) == c {
                        throw failure("multi-line strings cannot be used as keys", at: i)
                    }
                    name = try parseString(quote: c, escapes: c == "\"")
                } else if Self.isBareKeyChar(c) {
                    while let c = peek, Self.isBareKeyChar(c) { i += 1 }
                    name = text(start..<i)
                    if let next = peek, !" \t.=]\n\r#".unicodeScalars.contains(next) {
                        throw invalidKeyCharacter(at: i)
                    }
                } else if c.value >= 0x80 || "!$%&()*/:;<>?@^`|~\\+".unicodeScalars.contains(c) {
                    throw invalidKeyCharacter(at: i)
                } else if c == "=" && parts.isEmpty {
                    throw failure("missing key before \"=\"", at: i)
                } else {
                    throw failure("expected a key, found \(describe(i))", at: i)
                }
                parts.append(KeyPart(name: name, start: start))
                skipSpaces()
                guard peek == "." else { return parts }
                i += 1
            }
        }

        func invalidKeyCharacter(at index: Int) -> TOMLError {
            failure(
                "invalid character \(describe(index)) in key; bare keys may only contain "
                    + "A-Z a-z 0-9 _ - (put other keys in quotes)", at: index)
        }

        mutating func parseHeader() throws(TOMLError) {
            let start = i
            let isArray = at(i + 1) == "["
            i += isArray ? 2 : 1
            skipSpaces()
            if peek == "]" {
                throw failure(isArray ? "missing name in [[ ]]" : "missing table name in [ ]", at: i)
            }
            let key = try parseKey()
            let name = Self.keyName(key)
            let header = isArray ? "[[\(name)]]" : "[\(name)]"
            if isArray {
                guard peek == "]" && at(i + 1) == "]" else {
                    throw failure("expected \"]]\" to close [[\(name), found \(describe(i))", at: i)
                }
                i += 2
            } else {
                guard peek == "]" else {
                    throw failure("expected \"]\" to close [\(name), found \(describe(i))", at: i)
                }
                i += 1
            }
            lastSection += 1
            section = lastSection
            current = try defineTable(key, isArray: isArray, start: start, header: header)
            try expectEndOfLine(after: "table header \(header)")
        }
    }
}
