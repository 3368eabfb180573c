import Foundation
import HearthKit
import HearthDataDirectory
import HearthStore
import HearthHost
import Testing
import HearthTestSupport

@Suite("Data directory")
struct DataDirectoryTests {
    @Test func readsDocumentsAndSubcollectionsInIdOrder() throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        try dir.write("users/b.json", #"{"n": 2}"#)
        try dir.write("users/a.json", #"{"n": 1}"#)
        try dir.write("users/a/badges/x.json", #"{"k": "v"}"#)
        try dir.write("users/.hidden.json", "{}")
        try dir.write("users/notes.txt", "hi")
        let data = try DataDirectory(root: dir.path)
        #expect(try data.documentIDs(in: "users") == ["a", "b"])
        #expect(try data.listCollection("users").ignored == ["notes.txt"])
        #expect(try data.documentIDs(in: "users/a/badges") == ["x"])
        guard case .document(let d) = data.read(try DocumentPath(components: ["users", "a", "badges", "x"])) else {
            Issue.record("subcollection document not read")
            return
        }
        #expect(d.object["k"] == .string("v"))
    }

    @Test(arguments: ["", ".", "..", "../x", "a/b", "a\\b", "a\u{0}b", "a\u{7}b", ".hidden", String(repeating: "x", count: 201)])
    func invalidIdsAreRejected(id: String) {
        #expect(throws: DocumentPathError.self) { try DocumentPath("users", id) }
    }

    @Test func idsOf200BytesAndUnicodeAreAccepted() throws {
        _ = try DocumentPath("users", String(repeating: "é", count: 100))
        _ = try DocumentPath("users", "user 42 (Madison)")
    }

    @Test func invalidDocumentsNameTheFileAndTheProblem() throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        try dir.write("users/badjson.json", "{\"a\": ")
        try dir.write("users/array.json", "[1, 2]")
        try dir.write("users/huge.json", "{\"a\": \"" + String(repeating: "x", count: 1 << 20) + "\"}")
        let data = try DataDirectory(root: dir.path)
        var messages: [String] = []
        for r in try data.readCollection("users") {
            if case .invalid(_, let issue) = r { messages.append(issue.description) }
        }
        #expect(messages == [
            "users/array.json: expected a JSON object, found array",
            "users/badjson.json: invalid JSON at line 1, column 7: unexpected end of input",
            "users/huge.json: document is 1048585 bytes; the maximum is 1 MiB (1048576 bytes). Split it or move large data out of the document.",
        ])
    }

    @Test func aBatchReadTellsPresentAbsentAndInvalidDocumentsApart() throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        try dir.write("notifications/a.json", #"{"n": 1}"#)
        try dir.write("notifications/bad.json", "{")
        try FileManager.default.createDirectory(atPath: dir.path + "/notifications/dir.json", withIntermediateDirectories: true)
        let data = try DataDirectory(root: dir.path)
        let paths = try ["a", "absent", "bad", "dir"].map { try DocumentPath("notifications", $0) }
        let reads = data.read(ArraySlice(paths)).map { read -> String in
            switch read {
            case .document(let d): "document \(d.id)"
            case .missing(let p): "missing \(p.id)"
            case .invalid(_, let issue): "invalid \(issue.description)"
            }
        }
        #expect(reads[0] == "document a")
        #expect(reads[1] == "missing absent")
        #expect(reads[2].hasPrefix("invalid notifications/bad.json: "))
        #expect(reads[3].hasPrefix("invalid notifications/dir.json: cannot read: "))  // a directory (EISDIR), not an absent document
        // The same outcomes one path at a time.
        #expect(paths.map { data.read($0) }.map { if case .missing = $0 { true } else { false } } == [false, true, false, false])
    }

    @Test func aSymlinkOutOfTheDataDirectoryIsNeverFollowed() throws {
        let dir = try TempDirectory()
        let outside = try TempDirectory()
        defer { dir.remove(); outside.remove() }
        try outside.write("secret.json", #"{"password": "hunter2"}"#)
        try dir.write("users/ok.json", "{}")
        try FileManager.default.createSymbolicLink(atPath: dir.path + "/users/evil.json", withDestinationPath: outside.path + "/secret.json")
        try FileManager.default.createSymbolicLink(atPath: dir.path + "/stolen", withDestinationPath: outside.path)
        let data = try DataDirectory(root: dir.path)
        guard case .invalid(_, let issue) = data.read(try DocumentPath("users", "evil")) else {
            Issue.record("symlink followed")
            return
        }
        #expect(issue.description == "users/evil.json: symbolic link pointing outside the data directory; Hearth never follows it. Replace it with the document itself.")
        #expect(throws: StoreError.self) { try data.readCollection("stolen") }
    }

    @Test func typedFieldAccessNamesTheExpectedAndFoundTypes() throws {
        let path = try DocumentPath("users", "u42")
        let doc = Document(path: path, object: JSONObject([("points", .string("12")), ("fromUserId", .string("../etc"))]), version: DocumentVersion(size: 0, mtimeSeconds: 0, mtimeNanoseconds: 0, hash: 0))
        do {
            _ = try doc.int("points")
            Issue.record("no error")
        } catch {
            #expect(error.issue(in: path).description == #"users/u42.json: field "points": expected integer, found string "12""#)
        }
        do {
            _ = try doc.documentID("fromUserId")
            Issue.record("no error")
        } catch {
            #expect(error.issue(in: path).description == #"users/u42.json: field "fromUserId": invalid document id "../etc": names must not start with ".""#)
        }
    }
}
