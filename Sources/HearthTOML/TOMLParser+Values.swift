extension TOMLParser.Reader {
    /// Parses the value at the cursor. `owner` names what the value belongs to in messages
    /// (`key "a"`, `array "a"`); `line` becomes the line of an inline table.
    mutating func parseValue(for owner: String, line: Int) throws(TOMLError) -> TOMLValue {
        guard let c = peek else {
            throw failure("expected a value for \(owner), found end of file", at: i)
        }
        switch c {
        case "\"", "'":
            // Basic strings ("…") have escapes, literal ones ('…') do not.
            let escapes = c == "\""
            if at(i + 1) == c && at(i + 2) == c { return .string(try parseMultilineString(quote: c, escapes: escapes)) }
            return .string(try parseString(quote: c, escapes: escapes))
        case "[":
            return try parseArray(for: owner)
        case "{":
            return try parseInlineTable(line: line)
        case "t", "f":
            for (word, value) in [("true", true), ("false", false)] where matches(word) {
                let end = i + word.unicodeScalars.count
                if let next = at(end), Self.isBareKeyChar(next) { break }
                i = end
                return .boolean(value)
            }
            throw invalidValue(for: owner)
        case "0"..."9":
            if Self.isDigit(at(i + 1)) && Self.isDigit(at(i + 2)) && Self.isDigit(at(i + 3)) && at(i + 4) == "-" {
                return try parseDateTime()
            }
            if Self.isDigit(at(i + 1)) && at(i + 2) == ":" {
                return try parseDateTime()
            }
            return try parseNumber(for: owner)
        case "+", "-", "i", "n":
            return try parseNumber(for: owner)
        case "\n", "\r", "#", ",", "]", "}", "=":
            throw failure("expected a value for \(owner), found \(describe(i))", at: i)
        default:
            if Self.isControl(c) { throw failure("expected a value for \(owner), found \(describe(i))", at: i) }
            throw invalidValue(for: owner)
        }
    }

    func matches(_ word: String) -> Bool {
        var index = i
        for c in word.unicodeScalars {
            guard at(index) == c else { return false }
            index += 1
        }
        return true
    }

    /// The text from `start` up to the next space, separator or line end.
    func token(from start: Int) -> String {
        var end = start
        while let c = at(end), !" \t\n\r,]}#".unicodeScalars.contains(c) { end += 1 }
        return text(start..<end)
    }

    func invalidValue(for owner: String) -> TOMLError {
        let word = token(from: i)
        let hint = word.unicodeScalars.first.map(Self.isBareKeyChar) == true ? " (strings must be in quotes)" : ""
        return failure("invalid value \"\(word)\" for \(owner)\(hint)", at: i)
    }

    mutating func enterNesting(at index: Int) throws(TOMLError) {
        depth += 1
        if depth > Self.maxNesting {
            throw failure("arrays and inline tables are nested more than \(Self.maxNesting) deep", at: index)
        }
    }

    // MARK: Arrays and inline tables

    mutating func parseArray(for owner: String) throws(TOMLError) -> TOMLValue {
        let open = i
        i += 1
        try enterNesting(at: open)
        defer { depth -= 1 }
        let elementOwner = owner.hasPrefix("key ") ? "array " + owner.dropFirst(4) : owner
        var elements: [TOMLNode] = []
        while true {
            try skipTrivia()
            guard let c = peek else {
                throw failure("unterminated array (missing \"]\")", at: open)
            }
            if c == "]" { break }
            let line = lineOf(i)
            let value = try parseValue(for: elementOwner, line: line)
            elements.append(TOMLNode(value: value, line: line))
            try skipTrivia()
            if peek == "," {
                i += 1
            } else if peek == "]" {
                break
            } else if peek == nil {
                throw failure("unterminated array (missing \"]\")", at: open)
            } else {
                throw failure("expected \",\" or \"]\" after an element of \(elementOwner), found \(describe(i))", at: i)
            }
        }
        i += 1
        return .array(elements)
    }

    /// Inline tables are one line in TOML 1.0 (values inside may still span lines) and are
    /// complete: later keys or headers cannot add to them.
    mutating func parseInlineTable(line: Int) throws(TOMLError) -> TOMLValue {
        let open = i
        i += 1
        try enterNesting(at: open)
        defer { depth -= 1 }
        lastSection += 1
        let inlineSection = lastSection
        let table = TableBuilder(kind: .header, line: line, path: [])
        skipSpaces()
        if peek == "}" {
            i += 1
            return .table(table.build())
        }
        while true {
            skipSpaces()
            try expectInlineTableContinues()
            _ = try parseKeyValue(into: table, section: inlineSection)
            skipSpaces()
            switch peek {
            case ",":
                let comma = i
                i += 1
                skipSpaces()
                if peek == "}" {
                    throw failure("trailing comma is not allowed in an inline table", at: comma)
                }
            case "}":
                i += 1
                return .table(table.build())
            default:
                try expectInlineTableContinues()
                throw failure("expected \",\" or \"}\" in inline table, found \(describe(i))", at: i)
            }
        }
    }

    func expectInlineTableContinues() throws(TOMLError) {
        switch peek {
        case nil, "\n", "\r", "#":
            throw failure(
                "inline table must be closed with \"}\" on the same line (use a [table] for longer tables)",
                at: i)
        default:
            return
        }
    }

    // MARK: Numbers

    static func isNumberChar(_ c: Unicode.Scalar) -> Bool {
        isBareKeyChar(c) || c == "+" || c == "."
    }

    mutating func parseNumber(for owner: String) throws(TOMLError) -> TOMLValue {
        let start = i
        var end = i
        while let c = at(end), Self.isNumberChar(c) { end += 1 }
        let token = text(start..<end)
        var body = Substring(token)
        var sign = ""
        if let first = body.first, first == "+" || first == "-" {
            sign = String(first)
            body = body.dropFirst()
        }
        if body == "inf" || body == "nan" {
            i = end
            let magnitude: Double = body == "inf" ? .infinity : .nan
            return .float(sign == "-" ? -magnitude : magnitude)
        }
        if body.first.map({ !$0.isNumber && $0 != "." && $0 != "_" }) ?? false {
            throw invalidValue(for: owner)
        }
        func invalid(_ reason: String) -> TOMLError {
            failure("invalid number \"\(token)\": \(reason)", at: start)
        }
        if let prefix = ["0x", "0o", "0b"].first(where: { body.hasPrefix($0) }) {
            guard sign.isEmpty else {
                throw invalid("hexadecimal, octal and binary integers cannot have a sign")
            }
            let radix = prefix == "0x" ? 16 : prefix == "0o" ? 8 : 2
            let digits = body.dropFirst(2)
            if let reason = Self.digitProblem(digits, radix: radix) { throw invalid(reason) }
            guard let value = Int64(digits.filter { $0 != "_" }, radix: radix) else {
                throw invalid("does not fit in a 64-bit signed integer")
            }
            i = end
            return .integer(value)
        }
        let exponentIndex = body.firstIndex { $0 == "e" || $0 == "E" }
        if exponentIndex != nil || body.contains(".") {
            let mantissa = body[..<(exponentIndex ?? body.endIndex)]
            let parts = mantissa.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
            if let reason = Self.decimalIntegerProblem(parts[0]) { throw invalid(reason) }
            if parts.count == 2 {
                if parts[1].isEmpty { throw invalid("expected digits after the decimal point") }
                if let reason = Self.digitProblem(parts[1], radix: 10) { throw invalid(reason) }
            }
            if let exponentIndex {
                var exponent = body[body.index(after: exponentIndex)...]
                if let first = exponent.first, first == "+" || first == "-" { exponent = exponent.dropFirst() }
                if exponent.isEmpty { throw invalid("expected digits in the exponent") }
                if let reason = Self.digitProblem(exponent, radix: 10) { throw invalid(reason) }
            }
            guard let value = Double(sign + body.filter { $0 != "_" }) else { throw invalid("not a valid float") }
            i = end
            return .float(value)
        }
        if let reason = Self.decimalIntegerProblem(body) { throw invalid(reason) }
        guard let value = Int64(sign + body.filter { $0 != "_" }) else {
            throw invalid("does not fit in a 64-bit signed integer")
        }
        i = end
        return .integer(value)
    }

    /// Why `digits` is not a run of digits with single underscores between them, or nil.
    static func digitProblem(_ digits: Substring, radix: Int) -> String? {
        guard !digits.isEmpty else { return "expected digits" }
        var previousWasDigit = false
        for c in digits {
            if c == "_" {
                guard previousWasDigit else { return "underscores must be between digits" }
                previousWasDigit = false
            } else if c.isASCII, c.hexDigitValue.map({ $0 < radix }) == true {
                previousWasDigit = true
            } else {
                return "unexpected character \"\(c)\""
            }
        }
        return previousWasDigit ? nil : "underscores must be between digits"
    }

    static func decimalIntegerProblem(_ digits: Substring) -> String? {
        if let reason = digitProblem(digits, radix: 10) { return reason }
        if digits.count > 1 && digits.first == "0" { return "leading zeros are not allowed" }
        return nil
    }

    // MARK: Dates and times

    /// Reads exactly `count` ASCII digits.
    mutating func readDigits(_ count: Int) -> Int? {
        var value = 0
        for offset in 0..<count {
            guard let c = at(i + offset), Self.isDigit(c) else { return nil }
            value = value * 10 + Int(c.value - 48)
        }
        i += count
        return value
    }

    mutating func expect(_ c: Unicode.Scalar) -> Bool {
        guard peek == c else { return false }
        i += 1
        return true
    }

    /// Offset date-time, local date-time, local date or local time; validated, kept as text.
    mutating func parseDateTime() throws(TOMLError) -> TOMLValue {
        let start = i
        func invalid(_ reason: String) -> TOMLError {
            failure("invalid date-time \"\(token(from: start))\": \(reason)", at: start)
        }
        var hasDate = false
        if at(i + 2) != ":" {
            hasDate = true
            guard let year = readDigits(4), expect("-"), let month = readDigits(2), expect("-"),
                let day = readDigits(2)
            else { throw invalid("expected a date as YYYY-MM-DD") }
            guard (1...12).contains(month) else { throw invalid("month must be 01 to 12") }
            let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
            let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
            guard (1...days).contains(day) else { throw invalid("day must be 01 to \(days) in that month") }
            if peek == "T" || peek == "t" {
                i += 1
            } else if peek == " " && Self.isDigit(at(i + 1)) && Self.isDigit(at(i + 2)) && at(i + 3) == ":" {
                i += 1
            } else {
                try checkDateTimeEnd(start: start)
                return .datetime(text(start..<i))
            }
        }
        guard let hour = readDigits(2), expect(":"), let minute = readDigits(2) else {
            throw invalid("expected a time as HH:MM:SS")
        }
        guard expect(":"), let second = readDigits(2) else {
            throw invalid("expected a time as HH:MM:SS (seconds are required)")
        }
        guard hour < 24 else { throw invalid("hour must be 00 to 23") }
        guard minute < 60 else { throw invalid("minute must be 00 to 59") }
        guard second < 60 else { throw invalid("second must be 00 to 59") }
        if expect(".") {
            guard Self.isDigit(peek) else { throw invalid("expected digits after the decimal point") }
            while Self.isDigit(peek) { i += 1 }
        }
        if hasDate {
            if peek == "Z" || peek == "z" {
                i += 1
            } else if peek == "+" || peek == "-" {
                i += 1
                guard let offsetHour = readDigits(2), expect(":"), let offsetMinute = readDigits(2),
                    offsetHour < 24, offsetMinute < 60
                else { throw invalid("expected a time zone offset as Z or +HH:MM") }
            }
        }
        try checkDateTimeEnd(start: start)
        return .datetime(text(start..<i))
    }

    func checkDateTimeEnd(start: Int) throws(TOMLError) {
        if let c = peek, Self.isNumberChar(c) || c == ":" {
            throw failure("invalid date-time \"\(token(from: start))\"", at: start)
        }
    }
}
