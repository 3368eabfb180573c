import HearthTOML
import Testing

// MARK: - Helpers

private func parse(_ text: String) throws -> TOMLTable {
    try TOMLParser.parse(text, file: "hearth.toml")
}

/// The error for `text`, or nil when it parses.
private func parseError(_ text: String) -> TOMLError? {
    do {
        _ = try TOMLParser.parse(text, file: "hearth.toml")
        return nil
    } catch {
        return error
    }
}

/// Follows table keys from the root; nil when a step is missing or not a table.
private func node(_ table: TOMLTable, _ path: String...) -> TOMLNode? {
    var current = table
    for (index, key) in path.enumerated() {
        guard let found = current[key] else { return nil }
        if index == path.count - 1 { return found }
        guard case .table(let next) = found.value else { return nil }
        current = next
    }
    return nil
}

private func table(_ table: TOMLTable, _ path: String...) -> TOMLTable? {
    var current = table
    for key in path {
        guard case .table(let next)? = current[key]?.value else { return nil }
        current = next
    }
    return current
}

private func array(_ node: TOMLNode?) -> [TOMLNode]? {
    guard case .array(let elements)? = node?.value else { return nil }
    return elements
}

/// Asserts `text` fails with exactly `message` at `line`:`column`.
private func expectError(
    _ text: String, _ message: String, line: Int, column: Int,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    guard let error = parseError(text) else {
        Issue.record("expected an error, but the document parsed", sourceLocation: sourceLocation)
        return
    }
    #expect(error.message == message, sourceLocation: sourceLocation)
    #expect(error.line == line, sourceLocation: sourceLocation)
    #expect(error.column == column, sourceLocation: sourceLocation)
}

private let specExample = """
    dataDir = "../data"
    timeZone = "UTC"
    historyLimit = 200
    lockTimeout = "30s"

    [defaults]                      # every job inherits these
    timeout = "10m"
    retries = 2                     # extra attempts after a failure
    backoff = { min = "10s", max = "5m" }    # exponential, doubling, with full jitter
    overlap = "skip"                # skip | queue   (queue = at most one waiting run)
    catchUp = "latest"              # none | latest | all
    catchUpWindow = "24h"
    jitter = "0s"
    onInvalidDocument = "skip"      # skip | fail

    [jobs.leaderboard-rebuild]
    schedule = "*/15 * * * *"
    [jobs.leaderboard-rebuild.params]
    top = 100

    [jobs.weekly-bonus]
    schedule = "5 0 * * MON"
    timeZone = "America/Chicago"
    enabled = true
    [jobs.weekly-bonus.params]
    amount = 50

    [notifications]
    # notification types the apps can decode; jobs refuse to write any other type
    types = ["gift_received", "friend_request", "friend_accepted", "achievement_unlocked"]

    [push]
    provider = "fcm"                # fcm | apns | webhook | none
    [push.fcm]
    serviceAccountFile = "/etc/hearth/firebase-service-account.json"
    endpoint = "https://fcm.googleapis.com"  # overridable, e.g. for a local test server

    [[webhooks]]
    name = "ops"
    url = "https://ops.example.com/hooks/hearth"
    secretFile = "/etc/hearth/ops-webhook.secret"
    events = ["job.failed", "achievement.unlocked"]

    """

// MARK: - The docs/configuration.md#keys example

@Suite("TOMLParser")
struct TOMLParserTests {
    @Test func specExampleHasTheRightValues() throws {
        let root = try parse(specExample)
        #expect(root.keys == ["dataDir", "timeZone", "historyLimit", "lockTimeout", "defaults", "jobs", "notifications", "push", "webhooks"])
        #expect(node(root, "dataDir")?.value == .string("../data"))
        #expect(node(root, "historyLimit")?.value == .integer(200))
        #expect(node(root, "defaults", "retries")?.value == .integer(2))
        #expect(node(root, "defaults", "backoff", "min")?.value == .string("10s"))
        #expect(node(root, "defaults", "backoff", "max")?.value == .string("5m"))
        #expect(node(root, "defaults", "onInvalidDocument")?.value == .string("skip"))
        #expect(table(root, "jobs")?.keys == ["leaderboard-rebuild", "weekly-bonus"])
        #expect(node(root, "jobs", "leaderboard-rebuild", "schedule")?.value == .string("*/15 * * * *"))
        #expect(node(root, "jobs", "leaderboard-rebuild", "params", "top")?.value == .integer(100))
        #expect(node(root, "jobs", "weekly-bonus", "enabled")?.value == .boolean(true))
        #expect(node(root, "jobs", "weekly-bonus", "params", "amount")?.value == .integer(50))
        #expect(array(node(root, "notifications", "types"))?.map(\.value) == [
            .string("gift_received"), .string("friend_request"), .string("friend_accepted"),
            .string("achievement_unlocked"),
        ])
        #expect(node(root, "push", "fcm", "endpoint")?.value == .string("https://fcm.googleapis.com"))
        let webhooks = try #require(array(node(root, "webhooks")))
        #expect(webhooks.count == 1)
        guard case .table(let ops) = webhooks[0].value else {
            Issue.record("webhooks[0] is not a table")
            return
        }
        #expect(ops.keys == ["name", "url", "secretFile", "events"])
        #expect(ops["secretFile"]?.value == .string("/etc/hearth/ops-webhook.secret"))
    }

    @Test func specExampleHasTheRightLines() throws {
        let root = try parse(specExample)
        let expected: [(path: [String], line: Int)] = [
            (["dataDir"], 1), (["timeZone"], 2), (["historyLimit"], 3), (["lockTimeout"], 4),
            (["defaults"], 6), (["defaults", "timeout"], 7), (["defaults", "retries"], 8),
            (["defaults", "backoff"], 9), (["defaults", "backoff", "min"], 9), (["defaults", "backoff", "max"], 9),
            (["defaults", "overlap"], 10), (["defaults", "catchUp"], 11), (["defaults", "catchUpWindow"], 12),
            (["defaults", "jitter"], 13), (["defaults", "onInvalidDocument"], 14),
            // `jobs` is only created implicitly, by the first header under it.
            (["jobs"], 16), (["jobs", "leaderboard-rebuild"], 16), (["jobs", "leaderboard-rebuild", "schedule"], 17),
            (["jobs", "leaderboard-rebuild", "params"], 18), (["jobs", "leaderboard-rebuild", "params", "top"], 19),
            (["jobs", "weekly-bonus"], 21), (["jobs", "weekly-bonus", "schedule"], 22),
            (["jobs", "weekly-bonus", "timeZone"], 23), (["jobs", "weekly-bonus", "enabled"], 24),
            (["jobs", "weekly-bonus", "params"], 25), (["jobs", "weekly-bonus", "params", "amount"], 26),
            (["notifications"], 28), (["notifications", "types"], 30),
            (["push"], 32), (["push", "provider"], 33), (["push", "fcm"], 34),
            (["push", "fcm", "serviceAccountFile"], 35), (["push", "fcm", "endpoint"], 36),
            (["webhooks"], 38),
        ]
        for (path, line) in expected {
            var current = root
            var found: TOMLNode?
            for key in path {
                found = current[key]
                if case .table(let next)? = found?.value { current = next }
            }
            #expect(found?.line == line, "line of \(path.joined(separator: "."))")
        }
        #expect(table(root, "defaults")?.line == 6)
        #expect(table(root, "defaults", "backoff")?.line == 9)
        let webhook = try #require(array(node(root, "webhooks"))?.first)
        #expect(webhook.line == 38)
        guard case .table(let ops) = webhook.value else {
            Issue.record("webhooks[0] is not a table")
            return
        }
        #expect(ops.line == 38)
        #expect(ops.entries.map(\.node.line) == [39, 40, 41, 42])
        #expect(root.line == 0)
    }

    // MARK: - Value types

    @Test func basicStringsDecodeEveryEscape() throws {
        let root = try parse(#"s = "b\b t\t n\n f\f r\r q\" bs\\ u\u00E9 U\U0001F600 end""#)
        #expect(root["s"]?.value == .string("b\u{08} t\t n\n f\u{0C} r\r q\" bs\\ u\u{E9} U\u{1F600} end"))
    }

    @Test func literalStringsKeepBackslashes() throws {
        let root = try parse(#"path = 'C:\Users\hearth\n' "#)
        #expect(root["path"]?.value == .string(#"C:\Users\hearth\n"#))
    }

    @Test func multilineBasicStringTrimsFirstNewlineAndJoinsBackslashLines() throws {
        let root = try parse("s = \"\"\"\nRoses are red\nViolets are \\\n      blue\"\"\"\nnext = 1")
        #expect(root["s"]?.value == .string("Roses are red\nViolets are blue"))
        #expect(root["s"]?.line == 1)
        #expect(root["next"]?.line == 5)
    }

    @Test func multilineStringsAllowQuotesBeforeTheClosingDelimiter() throws {
        let root = try parse(#"""
            a = """Here are two quotation marks: "". Simple enough."""
            b = """"This," she said, "is just a pointless statement.""""
            c = ''''That,' she said, 'is still pointless.''''
            """#)
        #expect(root["a"]?.value == .string(#"Here are two quotation marks: "". Simple enough."#))
        #expect(root["b"]?.value == .string(#""This," she said, "is just a pointless statement.""#))
        #expect(root["c"]?.value == .string("'That,' she said, 'is still pointless.'"))
    }

    @Test func multilineLiteralStringKeepsContentVerbatimAndNormalisesCRLF() throws {
        let root = try parse("re = '''\r\nI [dw]on't need \\d{2}\r\napples'''\r\n")
        #expect(root["re"]?.value == .string("I [dw]on't need \\d{2}\napples"))
    }

    @Test func integersInEveryBase() throws {
        let root = try parse("""
            a = +99
            b = -17
            c = 1_000_000
            d = 0xDEAD_beef
            e = 0o755
            f = 0b1101_0110
            g = 9223372036854775807
            h = -9223372036854775808
            i = -0
            """)
        #expect(root.entries.map(\.node.value) == [
            .integer(99), .integer(-17), .integer(1_000_000), .integer(0xDEAD_BEEF), .integer(0o755),
            .integer(0b1101_0110), .integer(.max), .integer(.min), .integer(0),
        ])
    }

    @Test func floatsIncludingExponentsAndSpecialValues() throws {
        let root = try parse("""
            a = +1.0
            b = 3.1415
            c = -0.01
            d = 5e+22
            e = 1e06
            f = -2E-2
            g = 6.626e-34
            h = 224_617.445_991
            i = inf
            j = -inf
            """)
        #expect(root.entries.map(\.node.value) == [
            .float(1.0), .float(3.1415), .float(-0.01), .float(5e22), .float(1e6), .float(-2e-2),
            .float(6.626e-34), .float(224_617.445_991), .float(.infinity), .float(-.infinity),
        ])
        for key in ["nan", "+nan", "-nan"] {
            let nan = try parse("x = \(key)")
            guard case .float(let value)? = nan["x"]?.value else {
                Issue.record("\(key) is not a float")
                continue
            }
            #expect(value.isNaN)
        }
    }

    @Test func booleans() throws {
        let root = try parse("yes = true\nno = false")
        #expect(root["yes"]?.value == .boolean(true))
        #expect(root["no"]?.value == .boolean(false))
    }

    @Test func dateTimesAreKeptAsWritten() throws {
        let root = try parse("""
            odt1 = 1979-05-27T07:32:00Z
            odt2 = 1979-05-27T00:32:00.999999-07:00
            odt3 = 1979-05-27 07:32:00Z
            ldt = 1979-05-27T07:32:00
            ld = 2024-02-29
            lt = 00:32:00.5
            """)
        #expect(root.entries.map(\.node.value) == [
            .datetime("1979-05-27T07:32:00Z"), .datetime("1979-05-27T00:32:00.999999-07:00"),
            .datetime("1979-05-27 07:32:00Z"), .datetime("1979-05-27T07:32:00"), .datetime("2024-02-29"),
            .datetime("00:32:00.5"),
        ])
    }

    @Test func arraysMayMixTypesSpanLinesAndEndWithAComma() throws {
        let root = try parse("""
            mixed = [ 1, "two", 3.0, [4], { five = 5 } ]
            long = [
              "a",   # first
              # a comment line
              "b",
            ]
            empty = []
            """)
        let mixed = try #require(array(root["mixed"]))
        #expect(mixed.map(\.value.typeName) == ["integer", "string", "float", "array", "table"])
        let long = try #require(array(root["long"]))
        #expect(long.map(\.value) == [.string("a"), .string("b")])
        #expect(long.map(\.line) == [3, 5])
        #expect(root["long"]?.line == 2)
        #expect(array(root["empty"])?.isEmpty == true)
    }

    @Test func typeNamesForMessages() {
        let values: [TOMLValue] = [
            .string(""), .integer(0), .float(0), .boolean(true), .datetime("1979-05-27"), .array([]),
            .table(TOMLTable()),
        ]
        #expect(values.map(\.typeName) == ["string", "integer", "float", "boolean", "datetime", "array", "table"])
    }

    // MARK: - Keys and tables

    @Test func quotedAndBareKeys() throws {
        let root = try parse("""
            bare-key_1 = 1
            1234 = 2
            "quoted key" = 3
            'literal "key"' = 4
            "" = 5
            "a.b" = 6
            """)
        #expect(root.keys == ["bare-key_1", "1234", "quoted key", #"literal "key""#, "", "a.b"])
    }

    @Test func dottedKeysCreateTablesAtTheKeyLine() throws {
        let root = try parse("""
            name = "x"
            physical.color = "orange"
            physical.shape = "round"
            site."google.com" = true
            """)
        #expect(node(root, "physical", "color")?.value == .string("orange"))
        #expect(node(root, "physical", "shape")?.line == 3)
        #expect(node(root, "physical")?.line == 2)
        #expect(table(root, "physical")?.line == 2)
        #expect(node(root, "site", "google.com")?.value == .boolean(true))
    }

    @Test func inlineTablesMayUseDottedKeys() throws {
        let root = try parse(#"point = { x = 1, y.z = 2, "w v" = { u = 3 } }"#)
        #expect(table(root, "point")?.keys == ["x", "y", "w v"])
        #expect(node(root, "point", "y", "z")?.value == .integer(2))
        #expect(node(root, "point", "w v", "u")?.value == .integer(3))
        #expect(table(root, "point")?.line == 1)
    }

    @Test func headersWithDottedAndQuotedNames() throws {
        let root = try parse("""
            [a.b."c d"]
            x = 1
            [ e . 'f g' ]
            y = 2
            """)
        #expect(node(root, "a", "b", "c d", "x")?.value == .integer(1))
        #expect(node(root, "e", "f g", "y")?.line == 4)
        #expect(table(root, "a", "b", "c d")?.line == 1)
    }

    @Test func implicitTableTakesTheLineOfItsLaterHeader() throws {
        let root = try parse("""
            [x.y.z]
            a = 1

            [x]
            b = 2
            """)
        #expect(table(root, "x")?.line == 4)
        #expect(table(root, "x", "y")?.line == 1)
        #expect(table(root, "x")?.keys == ["y", "b"])
    }

    @Test func subtablesMayBeAddedUnderTablesMadeByDottedKeys() throws {
        let root = try parse("""
            [fruit]
            apple.color = "red"
            apple.taste.sweet = true

            [fruit.apple.texture]
            smooth = true
            """)
        #expect(node(root, "fruit", "apple", "taste", "sweet")?.value == .boolean(true))
        #expect(node(root, "fruit", "apple", "texture", "smooth")?.line == 6)
        #expect(table(root, "fruit", "apple", "texture")?.line == 5)
    }

    @Test func arraysOfTablesKeepEachElementsLines() throws {
        let root = try parse("""
            [[products]]
            name = "Hammer"

            [[products]]

            [[products]]
            name = "Nail"
            [products.dimensions]
            length = 2
            [[products.variants]]
            color = "gray"
            """)
        let products = try #require(array(root["products"]))
        #expect(products.map(\.line) == [1, 4, 6])
        #expect(root["products"]?.line == 1)
        guard case .table(let nail) = products[2].value else {
            Issue.record("products[2] is not a table")
            return
        }
        #expect(nail["name"]?.line == 7)
        #expect(nail["dimensions"]?.line == 8)
        #expect(node(nail, "dimensions", "length")?.line == 9)
        #expect(array(nail["variants"])?.first?.line == 10)
        guard case .table(let empty) = products[1].value else {
            Issue.record("products[1] is not a table")
            return
        }
        #expect(empty.keys.isEmpty)
    }

    @Test func nestedKeysReportTheirOwnLines() throws {
        let root = try parse("""
            # comment
            [server]

            host = "localhost"
            limits.cpu = 2
            limits.memory = { soft = 1, hard = [
              2,
              3,
            ] }
            after = true
            """)
        #expect(node(root, "server")?.line == 2)
        #expect(node(root, "server", "host")?.line == 4)
        #expect(node(root, "server", "limits")?.line == 5)
        #expect(node(root, "server", "limits", "cpu")?.line == 5)
        #expect(node(root, "server", "limits", "memory")?.line == 6)
        #expect(node(root, "server", "limits", "memory", "hard")?.line == 6)
        #expect(array(node(root, "server", "limits", "memory", "hard"))?.map(\.line) == [7, 8])
        #expect(node(root, "server", "after")?.line == 10)
    }

    @Test func entriesAndKeysFollowDefinitionOrder() throws {
        let root = try parse("zeta = 1\nalpha = 2\n[mid]\n[beta]\n")
        #expect(root.keys == ["zeta", "alpha", "mid", "beta"])
        #expect(root.entries.map(\.key) == root.keys)
    }

    @Test func tableSubscriptSetAppendsReplacesAndRemoves() {
        var table = TOMLTable(line: 3)
        table["a"] = TOMLNode(value: .integer(1), line: 4)
        table["b"] = TOMLNode(value: .integer(2), line: 5)
        table["a"] = TOMLNode(value: .integer(3), line: 6)
        #expect(table.keys == ["a", "b"])
        #expect(table["a"]?.value == .integer(3))
        table["a"] = nil
        #expect(table.keys == ["b"])
        #expect(table["a"] == nil)
        #expect(table.line == 3)
    }

    @Test func commentsBlankLinesCRLFAndByteOrderMarkAreIgnored() throws {
        let root = try parse("\u{FEFF}# top\r\n\r\n  a = 1   # trailing\r\n\t[t]\t# header comment\r\nb = 'x'\r\n")
        #expect(root["a"]?.line == 3)
        #expect(node(root, "t", "b")?.line == 5)
        #expect(try parse("").keys.isEmpty)
        #expect(try parse("# only a comment").keys.isEmpty)
    }

    // MARK: - Structural errors

    @Test func duplicateKeyNamesTheFirstLine() {
        expectError(
            "[defaults]\ntimeout = \"10m\"\nretries = 2\ntimeout = \"5m\"",
            #"duplicate key "timeout" (first defined on line 2)"#, line: 4, column: 1)
        expectError("a.b = 1\n  a.b = 2", #"duplicate key "a.b" (first defined on line 1)"#, line: 2, column: 3)
        expectError(#"p = { x = 1, "x" = 2 }"#, #"duplicate key "x" (first defined on line 1)"#, line: 1, column: 14)
    }

    @Test func redefiningATableIsAnError() {
        expectError("[push]\na = 1\n\n[push]", "table [push] is already defined on line 1", line: 4, column: 1)
        expectError("[a]\nb.c = 1\n[a.b]", "table [a.b] is already defined by dotted keys on line 2", line: 3, column: 1)
        expectError("a = { b = 1 }\n[a]", "table [a] is already defined as an inline table on line 1", line: 2, column: 1)
        expectError("[[a]]\n[a]", "table [a] is already defined as an array of tables on line 1", line: 2, column: 1)
    }

    @Test func dottedKeysCannotReopenAHeaderTable() {
        expectError(
            "[a.b]\nx = 1\n[a]\nb.y = 2",
            #"cannot add key "b.y" here: table [a.b] is defined on line 1; put the key in that table"#,
            line: 4, column: 1)
    }

    @Test func inlineTablesCannotBeExtended() {
        expectError(
            "backoff = { min = \"10s\" }\nbackoff.max = \"5m\"",
            #"cannot add key "backoff.max": inline table "backoff" (line 1) cannot be extended"#, line: 2, column: 1)
        expectError(
            "a = { b = 1 }\n[a.c]", #"cannot define [a.c]: inline table "a" (line 1) cannot be extended"#,
            line: 2, column: 2)
    }

    @Test func appendingToAStaticArrayIsAnError() {
        expectError(
            "webhooks = []\n[[webhooks]]",
            #"cannot append to static array "webhooks" (defined on line 1) with [[webhooks]]"#, line: 2, column: 1)
        expectError(
            "[a]\n[[a]]", "cannot define array of tables [[a]]: [a] is already a table (line 1)", line: 2, column: 1)
    }

    @Test func keysCannotTurnAValueIntoATable() {
        expectError("a = 1\na.b = 2", #"cannot add key "a.b": "a" is already an integer (line 1)"#, line: 2, column: 1)
        expectError("a = [1]\n[a.b]", #"cannot define [a.b]: "a" is already an array (line 1)"#, line: 2, column: 2)
    }

    // MARK: - Syntax errors

    @Test func missingEqualsNamesTheKey() {
        expectError("[defaults]\nretries 2", #"expected "=" after key "retries", found "2""#, line: 2, column: 9)
        expectError("retries", #"expected "=" after key "retries", found end of file"#, line: 1, column: 8)
    }

    @Test func missingOrUnquotedValues() {
        expectError("timeout =\n", #"expected a value for key "timeout", found end of line"#, line: 1, column: 10)
        expectError(
            "overlap = skip", #"invalid value "skip" for key "overlap" (strings must be in quotes)"#, line: 1, column: 11)
        expectError("a = 1 b = 2", #"expected end of line after the value of key "a", found "b""#, line: 1, column: 7)
    }

    @Test func invalidKeyCharactersAreNamed() {
        expectError(
            "time$zone = 1",
            #"invalid character "$" in key; bare keys may only contain A-Z a-z 0-9 _ - (put other keys in quotes)"#,
            line: 1, column: 5)
        expectError("= 1", #"missing key before "=""#, line: 1, column: 1)
        expectError("a..b = 1", #"expected a key, found ".""#, line: 1, column: 3)
    }

    @Test func malformedHeaders() {
        expectError("[jobs.x\na = 1", #"expected "]" to close [jobs.x, found end of line"#, line: 1, column: 8)
        expectError("[[hooks]\n", #"expected "]]" to close [[hooks, found "]""#, line: 1, column: 8)
        expectError("[]", "missing table name in [ ]", line: 1, column: 2)
        expectError("[t] x = 1", #"expected end of line after table header [t], found "x""#, line: 1, column: 5)
    }

    @Test func unterminatedStringsPointAtTheOpeningQuote() {
        expectError("a = 1\nname = \"ops\nnext = 2", "unterminated string", line: 2, column: 8)
        expectError("name = 'ops", "unterminated string", line: 1, column: 8)
        expectError("a = \"\"\"\nline\n", "unterminated multi-line string", line: 1, column: 5)
    }

    @Test func invalidEscapes() {
        expectError(#"a = "C:\qux""#, #"invalid escape \q"#, line: 1, column: 8)
        expectError(#"a = "\u12G4""#, #"invalid escape \u12G4: expected 4 hex digits"#, line: 1, column: 6)
        expectError(#"a = "\uD800""#, #"invalid escape \uD800: not a Unicode scalar value"#, line: 1, column: 6)
        expectError("a = \"\"\"x\\ y\"\"\"", #"invalid escape: "\" followed by space"#, line: 1, column: 9)
    }

    @Test func controlCharactersAndBareCarriageReturnsAreRejected() {
        expectError("a = \"x\u{01}\"", "control character U+0001 is not allowed in a string (use an escape such as \\n)", line: 1, column: 7)
        expectError("a = 1 # bell\u{07}", "control character U+0007 is not allowed in a comment", line: 1, column: 13)
        expectError("a = 1\rb = 2", "bare carriage return (CR not followed by LF)", line: 1, column: 6)
    }

    @Test func invalidIntegers() {
        expectError("a = 0123", #"invalid number "0123": leading zeros are not allowed"#, line: 1, column: 5)
        expectError("a = 1__000", #"invalid number "1__000": underscores must be between digits"#, line: 1, column: 5)
        expectError("a = +0xFF", #"invalid number "+0xFF": hexadecimal, octal and binary integers cannot have a sign"#, line: 1, column: 5)
        expectError("a = 0o78", #"invalid number "0o78": unexpected character "8""#, line: 1, column: 5)
    }

    @Test func integersBeyondSixtyFourBitsAreRejected() {
        expectError(
            "limit = 9223372036854775808",
            #"invalid number "9223372036854775808": does not fit in a 64-bit signed integer"#, line: 1, column: 9)
        expectError(
            "limit = 0x8000000000000000",
            #"invalid number "0x8000000000000000": does not fit in a 64-bit signed integer"#, line: 1, column: 9)
    }

    @Test func invalidFloats() {
        expectError("a = 1.", #"invalid number "1.": expected digits after the decimal point"#, line: 1, column: 5)
        expectError("a = 1e", #"invalid number "1e": expected digits in the exponent"#, line: 1, column: 5)
        expectError("a = .5", #"invalid value ".5" for key "a""#, line: 1, column: 5)
    }

    @Test func invalidDateTimes() {
        expectError("d = 2023-02-29", #"invalid date-time "2023-02-29": day must be 01 to 28 in that month"#, line: 1, column: 5)
        expectError("t = 07:32", #"invalid date-time "07:32": expected a time as HH:MM:SS (seconds are required)"#, line: 1, column: 5)
        expectError("d = 1979-05-27T25:00:00Z", #"invalid date-time "1979-05-27T25:00:00Z": hour must be 00 to 23"#, line: 1, column: 5)
    }

    @Test func arrayErrors() {
        expectError("a = [1 2]", #"expected "," or "]" after an element of array "a", found "2""#, line: 1, column: 8)
        expectError("a = [1,,2]", #"expected a value for array "a", found ",""#, line: 1, column: 8)
        expectError("a = [\n  1,\n", #"unterminated array (missing "]")"#, line: 1, column: 5)
    }

    @Test func inlineTableErrors() {
        expectError("a = { b = 1, }", "trailing comma is not allowed in an inline table", line: 1, column: 12)
        expectError(
            "a = { b = 1,\n c = 2 }",
            #"inline table must be closed with "}" on the same line (use a [table] for longer tables)"#,
            line: 1, column: 13)
        expectError("a = { b = 1 c = 2 }", #"expected "," or "}" in inline table, found "c""#, line: 1, column: 13)
    }

    @Test func deepNestingIsAnErrorNotACrash() throws {
        let ok = "a = " + String(repeating: "[", count: 128) + String(repeating: "]", count: 128)
        _ = try parse(ok)
        expectError(
            "a = " + String(repeating: "[", count: 129) + String(repeating: "]", count: 129),
            "arrays and inline tables are nested more than 128 deep", line: 1, column: 133)
    }

    @Test func errorDescriptionIsFileLineColumnMessage() throws {
        let error = try #require(parseError("\n\n  x = 1\n  x = 2"))
        #expect(error.file == "hearth.toml")
        #expect(error.description == #"hearth.toml:4:3: duplicate key "x" (first defined on line 3)"#)
    }

    @Test func columnsCountUnicodeScalars() {
        expectError(
            "\"\u{E9}\u{1F600}\" = 1 x",
            "expected end of line after the value of key \"\u{E9}\u{1F600}\", found \"x\"", line: 1, column: 10)
        expectError(
            "[a]\n\"b c\".d = 1\n\"b c\".d = 2", #"duplicate key "b c".d (first defined on line 2)"#, line: 3, column: 1)
    }
}
