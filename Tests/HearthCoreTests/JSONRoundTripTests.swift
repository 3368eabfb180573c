import HearthKit
import HearthHost
import Testing

@Suite("JSON round trip")
struct JSONRoundTripTests {
    @Test func keyOrderIsKeptAndNewKeysAreAppended() throws {
        let text = #"{"zeta": 1, "alpha": {"b": 2, "a": 1}, "mid": [3, 2, 1]}"#
        guard case .object(var o) = try JSONParser.parse(text) else { Issue.record("not an object"); return }
        o["alpha"] = .string("replaced")
        o["new"] = .bool(true)
        #expect(String(decoding: JSONWriter.document(o), as: UTF8.self) == """
            {
              "zeta": 1,
              "alpha": "replaced",
              "mid": [
                3,
                2,
                1
              ],
              "new": true
            }

            """)
    }

    @Test func int64ExtremesSurviveExactly() throws {
        let text = #"{"max": 9223372036854775807, "min": -9223372036854775808, "big": 9007199254740993}"#
        guard case .object(let o) = try JSONParser.parse(text) else { Issue.record("not an object"); return }
        #expect(o["max"] == .int(Int64.max))
        #expect(o["min"] == .int(Int64.min))
        #expect(o["big"] == .int(9_007_199_254_740_993))
        #expect(JSONWriter.compact(.object(o)) == #"{"max":9223372036854775807,"min":-9223372036854775808,"big":9007199254740993}"#)
    }

    @Test func numbersBeyondInt64AndFractionsRoundTripAsWritten() throws {
        let v = try JSONParser.parse("[1.5, 0.1, 1e300, 18446744073709551616, -0.25]")
        #expect(JSONWriter.compact(v) == "[1.5,0.1,1e300,18446744073709551616,-0.25]")
        #expect(try JSONParser.parse(JSONWriter.compact(v)) == v)
    }

    @Test func stringsEscapeOnlyWhatJSONRequires() throws {
        let v = try JSONParser.parse(#"["a\"b\\c\n\t\u0001/é😀", "\ud83d\ude00"]"#)
        #expect(JSONWriter.compact(v) == "[\"a\\\"b\\\\c\\n\\t\\u0001/é😀\",\"😀\"]")
    }

    @Test(arguments: [
        ("{\"a\": 1,}", "invalid JSON at line 1, column 9: expected a quoted key"),
        ("{\"a\" 1}", "invalid JSON at line 1, column 6: expected ':' after key"),
        ("[1, 2", "invalid JSON at line 1, column 6: unexpected end of input in array"),
        ("{\"a\": 01}", "invalid JSON at line 1, column 8: leading zeros are not allowed in numbers"),
        ("{\"a\": \"x\ny\"}", "invalid JSON at line 1, column 9: control character in string"),
        ("{} x", "invalid JSON at line 1, column 4: unexpected content after the JSON value"),
        ("\n\n  tru", "invalid JSON at line 3, column 3: unexpected end of input"),
    ])
    func invalidJSONIsRejectedWithItsPosition(text: String, message: String) {
        #expect(throws: JSONParseError.self) { try JSONParser.parse(text) }
        do { _ = try JSONParser.parse(text) } catch { #expect(error.description == message) }
    }

    @Test func invalidUTF8IsRejected() {
        let bytes: [UInt8] = Array("{\"a\": \"".utf8) + [0xC3, 0x28] + Array("\"}".utf8)
        #expect(throws: JSONParseError.self) { try JSONParser.parse(bytes) }
    }

    @Test func nestingDeeperThanTheLimitIsRejected() {
        let deep = String(repeating: "[", count: 300) + String(repeating: "]", count: 300)
        do {
            _ = try JSONParser.parse(deep)
            Issue.record("accepted 300 levels")
        } catch {
            #expect(error.message == "nesting deeper than 256 levels")
        }
    }

    @Test func sameContentIgnoresKeyOrderAndIntegralDoubles() throws {
        let a = try JSONParser.parse(#"{"a": 1, "b": [1, {"x": 2, "y": 3}]}"#)
        let b = try JSONParser.parse(#"{"b": [1.0, {"y": 3, "x": 2}], "a": 1}"#)
        #expect(a.sameContent(as: b))
        #expect(!a.sameContent(as: try JSONParser.parse(#"{"a": 1, "b": [1, {"x": 2}]}"#)))
    }

    /// Small objects find a repeated key by scanning, large ones through an index; either way
    /// the last value wins in the first key's place.
    @Test(arguments: [3, 33, 5_000])
    func aRepeatedKeyKeepsItsPlaceAndTakesTheLastValue(keys: Int) throws {
        let members = (0..<keys).map { "\"k\($0)\": \($0)" } + ["\"k1\": \"again\""]
        guard case .object(let o) = try JSONParser.parse("{" + members.joined(separator: ", ") + "}") else {
            Issue.record("not an object")
            return
        }
        #expect(o.count == keys)
        #expect(o.keys.first == "k0")
        #expect(o.keys[1] == "k1")
        #expect(o["k1"] == .string("again"))
        #expect(o["k\(keys - 1)"] == .int(Int64(keys - 1)))
    }
}
