extension TOMLParser.Reader {
    /// A one-line string at the cursor between `quote`s: `"..."` with backslash escapes
    /// (`escapes`), `'...'` taken verbatim.
    mutating func parseString(quote: Unicode.Scalar, escapes: Bool) throws(TOMLError) -> String {
        let open = i
        i += 1
        var out = String.UnicodeScalarView()
        while true {
            guard let c = peek, c != "\n", c != "\r" || at(i + 1) != "\n" else {
                throw failure("unterminated string", at: open)
            }
            if c == quote {
                i += 1
                return String(out)
            } else if escapes && c == "\\" {
                out.append(try parseEscape(open: open))
            } else {
                try checkStringCharacter(c)
                out.append(c)
                i += 1
            }
        }
    }

    /// A string at the cursor between tripled `quote`s, a newline right after the opening
    /// quotes dropped and newlines normalised to `\n`. `"""..."""` has escapes (`escapes`), and
    /// a backslash at the end of a line removes it together with all whitespace and newlines
    /// that follow; `'''...'''` is taken verbatim.
    mutating func parseMultilineString(quote: Unicode.Scalar, escapes: Bool) throws(TOMLError) -> String {
        let open = i
        i += 3
        try skipNewlineAfterOpeningQuotes()
        var out = String.UnicodeScalarView()
        while true {
            guard let c = peek else { throw failure("unterminated multi-line string", at: open) }
            if c == quote {
                if try closeMultiline(quote: quote, into: &out) { return String(out) }
            } else if escapes && c == "\\" {
                var j = i + 1
                while at(j) == " " || at(j) == "\t" { j += 1 }
                if at(j) == "\n" || at(j) == "\r" {
                    i = j
                    while let d = peek, d == " " || d == "\t" || d == "\n" || d == "\r" {
                        if d == "\r" { try consumeNewline() } else { i += 1 }
                    }
                } else {
                    out.append(try parseEscape(open: open))
                }
            } else if c == "\n" || c == "\r" {
                try consumeNewline()
                out.append("\n")
            } else {
                try checkStringCharacter(c)
                out.append(c)
                i += 1
            }
        }
    }

    mutating func skipNewlineAfterOpeningQuotes() throws(TOMLError) {
        if peek == "\n" || peek == "\r" { try consumeNewline() }
    }

    /// At a run of quotes inside a multi-line string: one or two are content; three to five
    /// close the string, the extra ones being content.
    mutating func closeMultiline(
        quote: Unicode.Scalar, into out: inout String.UnicodeScalarView
    ) throws(TOMLError) -> Bool {
        var count = 0
        while at(i + count) == quote { count += 1 }
        if count > 5 {
            throw failure("too many quotation marks in a row at the end of a multi-line string", at: i + 5)
        }
        let content = count >= 3 ? count - 3 : count
        out.append(contentsOf: repeatElement(quote, count: content))
        i += count
        return count >= 3
    }

    func checkStringCharacter(_ c: Unicode.Scalar) throws(TOMLError) {
        if c == "\r" { throw bareCarriageReturn(at: i) }
        if Self.isControl(c) {
            throw failure(
                "control character \(Self.codePoint(c)) is not allowed in a string (use an escape such as \\n)",
                at: i)
        }
    }

    /// The escape sequence at the cursor (a backslash) inside a basic string.
    mutating func parseEscape(open: Int) throws(TOMLError) -> Unicode.Scalar {
        let start = i
        guard let e = at(i + 1) else { throw failure("unterminated string", at: open) }
        i += 2
        switch e {
        case "b": return "\u{08}"
        case "t": return "\t"
        case "n": return "\n"
        case "f": return "\u{0C}"
        case "r": return "\r"
        case "\"": return "\""
        case "\\": return "\\"
        case "u", "U":
            let length = e == "u" ? 4 : 8
            var value: UInt32 = 0
            for offset in 0..<length {
                guard let c = at(i + offset), c.isASCII, let digit = Character(c).hexDigitValue else {
                    var end = i
                    while end < i + length, let c = at(end), c.isASCII, c != "\"", !Self.isControl(c) { end += 1 }
                    throw failure(
                        "invalid escape \\\(e)\(text(i..<end)): expected \(length) hex digits", at: start)
                }
                value = value * 16 + UInt32(digit)
            }
            let digits = text(i..<(i + length))
            i += length
            guard let scalar = Unicode.Scalar(value) else {
                throw failure("invalid escape \\\(e)\(digits): not a Unicode scalar value", at: start)
            }
            return scalar
        default:
            if e == " " || e == "\t" || Self.isControl(e) {
                throw failure("invalid escape: \"\\\" followed by \(describe(start + 1))", at: start)
            }
            throw failure("invalid escape \\\(e)", at: start)
        }
    }
}
