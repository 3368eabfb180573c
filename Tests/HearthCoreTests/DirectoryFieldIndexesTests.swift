import Foundation
import HearthKit
import HearthDataDirectory
import HearthStore
import Testing
import HearthTestSupport

/// The data directory's field indexes (docs/storage/field-indexes.md): a `.oneOf` search of a
/// watched collection answered from memory gives what a full filtered read gives, follows the
/// writes the change feed reports, and starts again from the files after a loss.
@Suite("data directory field indexes")
struct DirectoryFieldIndexesTests {
    /// `search` as a job's reads see it: the ids of the documents found (`!id` for one that is
    /// not a JSON object), and how many documents were read; nil when the store did not search.
    static func search(_ data: DataDirectory, _ values: Set<String>, field: String = "conversationId") throws -> (ids: [String], read: Int)? {
        var ids: [String] = []
        let read = try data.search("messages", matching: ScanFilter([.oneOf(field: field, values: values)])) { reads in
            for r in reads {
                switch r {
                case .document(let d): ids.append(d.path.id)
                case .invalid(let p, _): ids.append("!" + p.id)
                case .missing(let p): ids.append("?" + p.id)
                }
            }
        }
        return read.map { (ids, $0) }
    }

    /// What a full read of the collection, filtered, gives.
    static func scan(_ data: DataDirectory, _ values: Set<String>) throws -> [String] {
        let filter = ScanFilter([.oneOf(field: "conversationId", values: values)])
        return try data.readCollection("messages").compactMap { r in
            switch r {
            case .document(let d): filter.matches(d) ? d.path.id : nil
            case .invalid(let p, _): "!" + p.id
            case .missing: nil
            }
        }
    }

    @Test func aSearchWithTheIndexEqualsAFullFilteredRead() throws {
        let seed = try TestSeed()
        var random = seed.generator()
        let dir = try TempDirectory()
        defer { dir.remove() }
        // 2,000 messages in 50 conversations; some with a number, a list or nothing for a
        // conversationId, and some files that are not JSON objects.
        for i in 0..<2000 {
            let id = String(format: "m%05d", i)
            let c = Int.random(in: 0..<50, using: &random)
            let text = switch Int.random(in: 0..<40, using: &random) {
            case 0: #"{"conversationId": \#(c)}"#
            case 1: #"{"conversationId": ["c\#(c)"]}"#
            case 2: #"{"senderId": "amy"}"#
            case 3: "[1, 2]"
            case 4: #"{"conversationId": "c\#(c)""#
            default: #"{"conversationId": "c\#(c)", "n": \#(i)}"#
            }
            try dir.write("messages/\(id).json", text)
        }
        let data = try DataDirectory(root: dir.path)
        #expect(try Self.search(data, ["c1"]) == nil, "not watched: no search")
        data.fieldIndexes.watching("messages", true)
        // The first search builds the index: it reads the collection.
        let first = try #require(try Self.search(data, ["c1", "c7"]))
        #expect(first.ids == (try Self.scan(data, ["c1", "c7"])), "\(seed)")
        #expect(first.read == 2000)
        #expect(data.fieldIndexes.isBuilt("messages", field: "conversationId"))
        for _ in 0..<20 {
            let values = Set((0..<Int.random(in: 1...4, using: &random)).map { _ in "c\(Int.random(in: 0..<55, using: &random))" })
            let found = try #require(try Self.search(data, values))
            let expected = try Self.scan(data, values)
            #expect(found.ids == expected, "\(values) \(seed)")
            // Only what it returns is read: the documents of those conversations and the invalid files.
            #expect(found.read == expected.count, "\(values) \(seed)")
        }
    }

    @Test func aWrittenDocumentIsSeenWithItsNewValueAndALossRebuildsTheIndex() throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        for i in 0..<30 { try dir.write("messages/m\(i).json", #"{"conversationId": "c\#(i % 3)"}"#) }
        let data = try DataDirectory(root: dir.path)
        data.fieldIndexes.watching("messages", true)
        #expect(try Self.search(data, ["c0"])?.ids == (0..<10).map { "m\($0 * 3)" }.sorted())

        // m3 moves from c0 to c1, m30 is new in c1, m1 is deleted: the feed reports them.
        try dir.write("messages/m3.json", #"{"conversationId": "c1"}"#)
        try dir.write("messages/m30.json", #"{"conversationId": "c1"}"#)
        try FileManager.default.removeItem(atPath: dir.path + "/messages/m1.json")
        data.fieldIndexes.written("messages", ids: ["m3", "m30", "m1"])
        let c1 = try #require(try Self.search(data, ["c1"]))
        #expect(c1.ids == ["m10", "m13", "m16", "m19", "m22", "m25", "m28", "m3", "m30", "m4", "m7"])
        #expect(c1.read == 9 + 2, "the 9 listed under c1 and the 2 written that exist (m1 is gone)")
        let c0 = try #require(try Self.search(data, ["c0"]))
        #expect(!c0.ids.contains("m3"))
        #expect(c0.read == 10, "m3 is still listed under c0 once; reading it drops it")
        #expect(try Self.search(data, ["c0"])?.read == 9)

        // A write the feed did not report is not seen until the collection is lost…
        try dir.write("messages/m0.json", #"{"conversationId": "c2"}"#)
        #expect(try Self.search(data, ["c2"])?.ids.contains("m0") == false)
        data.fieldIndexes.lost("messages")
        #expect(!data.fieldIndexes.isBuilt("messages", field: "conversationId"))
        // …then the next search reads the files again.
        let rebuilt = try #require(try Self.search(data, ["c2"]))
        #expect(rebuilt.read == 30)
        #expect(rebuilt.ids == (try Self.scan(data, ["c2"])))
        #expect(rebuilt.ids.contains("m0"))

        // The end of the watch drops the index and stops the searches.
        data.fieldIndexes.watching("messages", false)
        #expect(try Self.search(data, ["c2"]) == nil)
        #expect(!data.fieldIndexes.isBuilt("messages", field: "conversationId"))
    }

    @Test func aFileThatBecomesInvalidIsReturnedUntilItIsFixed() throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        for i in 0..<4 { try dir.write("messages/m\(i).json", #"{"conversationId": "c\#(i % 2)"}"#) }
        let data = try DataDirectory(root: dir.path)
        data.fieldIndexes.watching("messages", true)
        #expect(try Self.search(data, ["c0"])?.ids == ["m0", "m2"])
        try dir.write("messages/m1.json", #"{"conversationId": "#)   // half-written
        data.fieldIndexes.written("messages", ids: ["m1"])
        #expect(try Self.search(data, ["c0"])?.ids == ["m0", "!m1", "m2"])
        #expect(try Self.search(data, ["c1"])?.ids == ["!m1", "m3"])
        try dir.write("messages/m1.json", #"{"conversationId": "c0"}"#)
        data.fieldIndexes.written("messages", ids: ["m1"])
        #expect(try Self.search(data, ["c0"])?.ids == ["m0", "m1", "m2"])
        #expect(try Self.search(data, ["c1"])?.ids == ["m3"])
    }

    @Test func aFilterWithoutOneOfOrOnASubcollectionIsNotSearched() throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        try dir.write("messages/m1.json", #"{"conversationId": "c1", "status": "sent"}"#)
        let data = try DataDirectory(root: dir.path)
        data.fieldIndexes.watching("messages", true)
        #expect(try data.search("messages", matching: ScanFilter([.equals(field: "status", value: "sent")])) { _ in } == nil)
        #expect(try data.search("users/u1/badges", matching: ScanFilter([.oneOf(field: "k", values: ["v"])])) { _ in } == nil)
    }
}
