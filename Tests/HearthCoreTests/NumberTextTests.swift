import Foundation
import HearthKit
import HearthDataDirectory
import HearthStore
import HearthHost
import Testing
import HearthTestSupport

/// Numbers keep the text they were written with unless a job changes them
/// (docs/data-directory.md#numbers).
@Suite("Numbers as written")
struct NumberTextTests {
    static let kept = ["12345678901234567890", "1.10", "1E2", "-0.0", "1e-7", "0.1000000000000000055511151231257827", "-0", "1e300"]

    @Test func numbersThatIntOrDoubleWouldRewriteAreWrittenBackAsTheirText() throws {
        let text = "[" + Self.kept.joined(separator: ",") + "]"
        let v = try JSONParser.parse(text)
        #expect(JSONWriter.compact(v) == text)
        #expect(v.arrayValue?.allSatisfy { if case .number = $0 { true } else { false } } == true)
    }

    @Test func numbersInTheirShortestFormStayIntAndDouble() throws {
        let v = try JSONParser.parse("[0, -12, 9223372036854775807, 1.5, 0.1, -0.25, 100.0, 1e+300]")
        #expect(v == [0, -12, .int(Int64.max), 1.5, 0.1, -0.25, 100.0, 1e300])
        #expect(JSONWriter.compact(v) == "[0,-12,9223372036854775807,1.5,0.1,-0.25,100.0,1e+300]")
    }

    @Test func jobsReadKeptNumbersAsIntAndDoubleWhereTheyFit() throws {
        let doc = try Self.document(#"{"big": 12345678901234567890, "hundred": 1E2, "tenth": 1.10, "negZero": -0.0, "tiny": 1e-7, "long": 0.1000000000000000055511151231257827}"#)
        #expect(try doc.int("hundred") == 100)
        #expect(try doc.number("hundred") == 100)
        #expect(try doc.number("tenth") == 1.1)
        #expect(try doc.number("negZero")?.sign == .minus)
        #expect(try doc.int("negZero") == 0)
        #expect(try doc.number("tiny") == 1e-7)
        #expect(try doc.number("long") == 0.1)
        #expect(try doc.number("big") == 12345678901234567890.0)
        #expect(doc["big"]?.intValue == nil)
        #expect(doc["big"]?.typeName == "integer")
    }

    @Test func readingAKeptNumberThatDoesNotFitGivesTheInvalidFieldMessage() throws {
        let doc = try Self.document(#"{"big": 12345678901234567890, "tenth": 1.10}"#)
        #expect(throws: FieldError.self) { try doc.int("big") }
        do { _ = try doc.int("big") } catch {
            #expect(error.issue(in: doc.path).description
                == #"users/u1.json: field "big": expected integer between -9223372036854775808 and 9223372036854775807, found integer 12345678901234567890"#)
        }
        do { _ = try doc.int("tenth") } catch {
            #expect(error.issue(in: doc.path).description == #"users/u1.json: field "tenth": expected integer, found number 1.10"#)
        }
    }

    @Test func keptNumbersCompareByValue() throws {
        let v = try JSONParser.parse(#"{"a": 1.10, "b": 1E2, "c": 12345678901234567890, "d": -0}"#)
        #expect(v.sameContent(as: ["a": 1.1, "b": 100, "c": .number(JSONNumber(unchecked: "12345678901234567890")), "d": 0]))
        #expect(!v.sameContent(as: ["a": 1.1, "b": 100, "c": 12345678901234567890.0, "d": 0]))
        #expect(!v.sameContent(as: ["a": 1.11, "b": 100, "c": .number(JSONNumber(unchecked: "12345678901234567890")), "d": 0]))
    }

    @Test func aJobWritingBackTheSameValueKeepsTheText() throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        try dir.write("users/u1.json", "{\n  \"price\": 1.10,\n  \"nested\": {\n    \"rate\": 1E2\n  },\n  \"points\": 1\n}\n")
        let data = try DataDirectory(root: dir.path)
        let ctx = JobContext(jobName: "t", logicalTime: Date(), startTime: Date(), timeZone: .gmt, parameters: JobParameters(), store: data, policy: .skip)
        let doc = try #require(try ctx.document(try DocumentPath("users", "u1")))
        ctx.update(doc) { o in
            o["price"] = .double(1.1)
            o["nested"] = ["rate": 100]
            o["points"] = 2
        }
        let after = try #require(ctx.changeset.entries.first?.after)
        #expect(String(decoding: JSONWriter.document(after), as: UTF8.self) == "{\n  \"price\": 1.10,\n  \"nested\": {\n    \"rate\": 1E2\n  },\n  \"points\": 2\n}\n")
    }

    @Test func numbersBeyondDoubleRangeAreStillRejected() {
        #expect(throws: JSONParseError.self) { try JSONParser.parse("[1e400]") }
    }

    static func document(_ json: String) throws -> Document {
        let o = try #require(try JSONParser.parse(json).objectValue)
        return Document(path: try DocumentPath("users", "u1"), object: o, version: DocumentVersion(size: 0, mtimeSeconds: 0, mtimeNanoseconds: 0, hash: 0))
    }
}
