import Testing
import HearthKit
import HearthHost
import Logging

/// Each output line of a command job is checked before it becomes a change (docs/functions.md#output).
@Suite("command job output lines")
struct FunctionActionTests {
    static let writes = ["gigs", "notifications", "users/*/badges"]
    static let types = ["gift_received", "gig_expired"]

    func parse(_ line: String) throws(FunctionAction.LineError) -> FunctionAction {
        try FunctionAction.parse(Array(line.utf8), writes: Self.writes, notificationTypes: Self.types)
    }

    @Test func eachOpBecomesItsAction() throws {
        let g1 = try DocumentPath(parsing: "gigs/g1")
        #expect(try parse(#"{"op":"create","path":"gigs/g1","data":{"a":1}}"#) == .create(g1, JSONObject([("a", .int(1))])))
        #expect(try parse(#"{"op":"update","path":"gigs/g1","data":{"a":2}}"#) == .replace(g1, JSONObject([("a", .int(2))])))
        #expect(try parse(#"{"op":"update","path":"gigs/g1","merge":{"s":"x"},"remove":["old"]}"#) == .merge(g1, set: JSONObject([("s", .string("x"))]), remove: ["old"]))
        #expect(try parse(#"{"op":"delete","path":"gigs/g1"}"#) == .delete(g1))
        #expect(try parse(#"{"op":"update","path":"users/u1/badges/b1","merge":{"n":1}}"#) == .merge(try DocumentPath(parsing: "users/u1/badges/b1"), set: JSONObject([("n", .int(1))]), remove: []))
        #expect(try parse(#"{"op":"push","id":"p-1","userId":"u1","title":"Hi","body":"there","data":{"k":"v"},"badge":2}"#)
            == .push(id: "p-1", userID: "u1", title: "Hi", body: "there", data: JSONObject([("k", .string("v"))]), badge: 2))
        #expect(try parse(#"{"op":"webhook","id":"e-1","event":"gig.expired","data":{"gigId":"g1"}}"#) == .webhook(id: "e-1", event: "gig.expired", data: JSONObject([("gigId", .string("g1"))])))
        #expect(try parse(#"{"op":"warn","message":"careful"}"#) == .warn("careful"))
        #expect(try parse(#"{"op":"log","level":"debug","message":"m"}"#) == .log(.debug, "m"))
        #expect(try parse(#"{"op":"create","path":"notifications/n1","data":{"type":"gig_expired"}}"#) == .create(try DocumentPath(parsing: "notifications/n1"), JSONObject([("type", .string("gig_expired"))])))
        #expect(try parse(#"{"op":"result","value":[1,null]}"#) == .result(.array([.int(1), .null])))
        #expect(try parse(#"{"op":"error","code":"NOT_FOUND","message":"no such code","details":{"reason":"unknown_code"}}"#)
            == .refuse(CallError(.notFound, "no such code", reason: "unknown_code")))
    }

    @Test func aCallsAnswerNeedsItsValueAndAnErrorAKnownCodeAndAMessage() {
        #expect(throws: FunctionAction.LineError.self) { try parse(#"{"op":"result"}"#) }
        #expect { _ = try parse(#"{"op":"error","code":"NOPE","message":"m"}"#) } throws: { error in
            (error as? FunctionAction.LineError)?.message.hasPrefix(#"error: "code" must be one of "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT""#) == true
        }
        #expect { _ = try parse(#"{"op":"error","code":"ABORTED"}"#) } throws: { error in
            (error as? FunctionAction.LineError)?.message == #"error: expected "message", a string the caller sees"#
        }
    }

    @Test(arguments: [
        ("[1]", "expected a JSON object, found array"),
        ("{\"op\": 1}", "missing \"op\": expected one of \"create\", \"update\", \"delete\", \"push\", \"webhook\", \"warn\", \"log\", \"result\", \"error\""),
        ("{\"op\":\"upsert\"}", "unknown op \"upsert\"; expected one of \"create\", \"update\", \"delete\", \"push\", \"webhook\", \"warn\", \"log\", \"result\", \"error\""),
        ("{\"op\":\"create\",\"path\":\"users/u1\",\"data\":{}}", "create users/u1: \"users\" is not in the job's writes [\"gigs\", \"notifications\", \"users/*/badges\"]; add it to `writes` in its [jobs] table"),
        ("{\"op\":\"create\",\"path\":\"gigs/.hidden\",\"data\":{}}", "create: \"path\" \"gigs/.hidden\": invalid document id \".hidden\": names must not start with \".\""),
        ("{\"op\":\"create\",\"path\":\"gigs/g1\"}", "create: expected \"data\", the document (a JSON object)"),
        ("{\"op\":\"update\",\"path\":\"gigs/g1\",\"data\":{},\"merge\":{}}", "update: give either \"data\" (the whole document) or \"merge\"/\"remove\" (fields), not both"),
        ("{\"op\":\"delete\",\"path\":\"gigs/g1\",\"force\":true}", "delete: unknown key \"force\" (see docs/functions.md#output for the keys of each op)"),
        ("{\"op\":\"create\",\"path\":\"notifications/n1\",\"data\":{\"type\":\"party\"}}", "notifications/n1: a notification's \"type\" must be one of [notifications].types (gift_received, gig_expired), found string \"party\""),
        ("{\"op\":\"push\",\"userId\":\"u1\",\"title\":\"t\"}", "push: expected \"id\", a stable id of 1–200 characters from A–Z a–z 0–9 - _ . : (the same message must get the same id on every run)"),
        ("{\"op\":\"push\",\"id\":\"p\",\"userId\":\"u1\",\"title\":\"t\",\"data\":{\"n\":1}}", "push: \"data\".n must be a string (FCM and APNs carry string values), found integer"),
        ("{\"op\":\"push\",\"id\":\"p\",\"userId\":\"u1\",\"title\":\"\"}", "push: \"title\" must be a non-empty string"),
        ("{\"op\":\"webhook\",\"id\":\"e\",\"event\":\"GigExpired\"}", "webhook: \"event\" must be a dotted lower-case event type like \"gig.expired\""),
        ("{\"op\":\"log\",\"level\":\"loud\",\"message\":\"m\"}", "log: \"level\" must be one of trace, debug, info, notice, warning, error, critical; found \"loud\""),
    ])
    func aLineThatBreaksTheProtocolSaysWhatWasExpected(line: String, message: String) {
        #expect {
            _ = try parse(line)
        } throws: { error in
            (error as? FunctionAction.LineError)?.message.hasPrefix(message) == true
        }
    }

    @Test func aDocumentOverOneMebibyteIsRefused() {
        let big = String(repeating: "x", count: 1 << 20)
        #expect(throws: FunctionAction.LineError.self) {
            _ = try parse(#"{"op":"create","path":"gigs/g1","data":{"text":"\#(big)"}}"#)
        }
    }
}
