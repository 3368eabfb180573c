import Foundation
import HearthKit
import HearthDataDirectory
import HearthStore
import Testing
import HearthTestSupport

/// docs/storage/reject-memos.md: a scan with a memo reads again only the files that changed
/// since it turned them down.
@Suite("Reject memos")
struct RejectMemoTests {
    /// The data directory, with the memo's wall clock set by the test (the files it writes are
    /// then `age` old as far as the memo can tell).
    struct ClockedStore: DocumentStore {
        let data: DataDirectory
        var age: TimeInterval

        func documentIDs(in collection: String) throws(StoreError) -> [String] { try data.documentIDs(in: collection) }
        func read(_ path: DocumentPath) -> DocumentRead { data.read(path) }
        func read(_ paths: ArraySlice<DocumentPath>) -> [DocumentRead] { data.read(paths) }
        func readCollection(_ collection: String) throws(StoreError) -> [DocumentRead] { try data.readCollection(collection) }
        func rejectMemo(job: String, collection: String, name: String) -> (any RejectMemo)? {
            DirectoryRejectMemo(data: data, job: job, collection: collection, name: name, now: DirectoryRejectMemo.wallClockNanoseconds() + Int64(age * 1e9))
        }
    }

    /// `gift-settle`'s rule: pending gifts only.
    static func pendingIDs(_ store: any DocumentStore, dryRun: Bool = false) async throws -> (ids: [String], read: Int, issues: [String]) {
        let ctx = JobContext(jobName: "gift-settle", isDryRun: dryRun, logicalTime: Date(), startTime: Date(), timeZone: .gmt, parameters: JobParameters(), store: store, policy: .skip)
        let ids = try await ctx.decode("transactions", memo: "pending-v1") { d throws(FieldError) -> String? in
            guard try d.string("status") == "pending" else { return nil }
            return d.id
        }
        return (ids, ctx.documentsRead, ctx.issues.map(\.description))
    }

    static func make(_ dir: TempDirectory) throws -> DataDirectory {
        try dir.write("transactions/a.json", #"{"status": "pending"}"#)
        try dir.write("transactions/b.json", #"{"status": "completed"}"#)
        try dir.write("transactions/c.json", #"{"status": "failed"}"#)
        return try DataDirectory(root: dir.path)
    }

    static let memoFile = "/.hearth/memos/gift-settle/transactions/pending-v1.memo"

    @Test func aDocumentTurnedDownAndUnchangedSinceIsNotReadAgain() async throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let store = ClockedStore(data: try Self.make(dir), age: 3600)
        let first = try await Self.pendingIDs(store)
        #expect(first.ids == ["a"])
        #expect(first.read == 3)
        let second = try await Self.pendingIDs(store)
        #expect(second.ids == ["a"])
        #expect(second.read == 1)
        // 40-byte header, then one 24-byte record per file turned down (b and c); 0640, like
        // Hearth's other state.
        #expect(try FileIO.readSmallFile(dir.path + Self.memoFile)?.count == 40 + 2 * 24)
        #expect(try FileIO.statPath(dir.path + Self.memoFile).map { $0.mode & 0o777 } == 0o640)
    }

    @Test func aFileUnderTwoNamesIsRememberedOnceAndSkippedUnderBoth() async throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let store = ClockedStore(data: try Self.make(dir), age: 3600)
        #expect(link(dir.path + "/transactions/b.json", dir.path + "/transactions/b2.json") == 0)
        #expect(try await Self.pendingIDs(store).read == 4)
        #expect(try FileIO.readSmallFile(dir.path + Self.memoFile)?.count == 40 + 2 * 24)
        #expect(try await Self.pendingIDs(store).read == 1)
    }

    @Test func aFileRewrittenInPlaceOrReplacedIsReadAgain() async throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let store = ClockedStore(data: try Self.make(dir), age: 3600)
        _ = try await Self.pendingIDs(store)
        // b in place (same inode, other size); c replaced by a new file of the same size.
        let b = try FileHandle(forWritingTo: URL(fileURLWithPath: dir.path + "/transactions/b.json"))
        try b.truncate(atOffset: 0)
        try b.write(contentsOf: Data(#"{"status": "pending"}"#.utf8))
        try b.close()
        try dir.write("transactions/.c.new", #"{"status": "pendin"}"#)
        #expect(rename(dir.path + "/transactions/.c.new", dir.path + "/transactions/c.json") == 0)
        let again = try await Self.pendingIDs(store)
        #expect(again.ids == ["a", "b"])
        #expect(again.read == 3)
    }

    @Test func aFileChangedWithinTwoSecondsOfTheScanIsNotRemembered() async throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        // The files were written just now: a change in the same clock tick could keep the
        // fingerprint the scan saw, so none is remembered.
        let store = ClockedStore(data: try Self.make(dir), age: 0)
        _ = try await Self.pendingIDs(store)
        #expect(try FileIO.readSmallFile(dir.path + Self.memoFile)?.count == 40)
        #expect(try await Self.pendingIDs(store).read == 3)
    }

    @Test func aDamagedMemoOrOneFromAnotherCopyOfTheDataIsNotUsed() async throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let store = ClockedStore(data: try Self.make(dir), age: 3600)
        _ = try await Self.pendingIDs(store)
        let memo = dir.path + Self.memoFile
        var bytes = try #require(try FileIO.readSmallFile(memo))
        bytes[bytes.count - 1] ^= 1
        try FileIO.writeAtomically(memo, bytes)
        #expect(try await Self.pendingIDs(store).read == 3)

        // A copy of the data directory, memo included: other inodes, other directory.
        let copy = try TempDirectory()
        defer { copy.remove() }
        _ = try await Self.pendingIDs(store)
        try FileManager.default.removeItem(atPath: copy.path)
        try FileManager.default.copyItem(atPath: dir.path, toPath: copy.path)
        let copied = ClockedStore(data: try DataDirectory(root: copy.path), age: 3600)
        let scan = try await Self.pendingIDs(copied)
        #expect(scan.ids == ["a"])
        #expect(scan.read == 3)
    }

    @Test func aDryRunUsesTheMemoButNeverWritesIt() async throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let store = ClockedStore(data: try Self.make(dir), age: 3600)
        #expect(try await Self.pendingIDs(store, dryRun: true).read == 3)
        #expect(!FileManager.default.fileExists(atPath: dir.path + Self.memoFile))
        _ = try await Self.pendingIDs(store)
        try dir.write("transactions/d.json", #"{"status": "completed"}"#)
        #expect(try await Self.pendingIDs(store, dryRun: true).read == 2)
        // The dry run did not remember d.
        #expect(try FileIO.readSmallFile(dir.path + Self.memoFile)?.count == 40 + 2 * 24)
    }

    @Test func invalidDocumentsAreNeverRememberedAndReportedByEveryScan() async throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let data = try Self.make(dir)
        try dir.write("transactions/broken.json", #"{"status": "#)
        try dir.write("transactions/typed.json", #"{"status": 7}"#)
        let store = ClockedStore(data: data, age: 3600)
        let issues = [
            "transactions/broken.json: invalid JSON at line 1, column 12: unexpected end of input",
            "transactions/typed.json: field \"status\": expected string, found integer 7",
        ]
        #expect(try await Self.pendingIDs(store).issues == issues)
        let again = try await Self.pendingIDs(store)
        #expect(again.issues == issues)
        #expect(again.read == 3)
    }

    /// A scan's filter (docs/storage/reject-memos.md#filters) keeps from the transform, on a data
    /// directory too, every document that does not meet it, so a job's output is the same on
    /// both backends; the memo then remembers those documents as turned down.
    @Test func aScanFilterKeepsTheDocumentsThatDoNotMeetItFromTheTransform() async throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        try dir.write("transactions/d.json", #"{"status": 7}"#)
        try dir.write("transactions/e.json", #"{"status": ["pending"]}"#)
        let store = ClockedStore(data: try Self.make(dir), age: 3600)
        func scan() async throws -> (ids: [String], read: Int) {
            let ctx = JobContext(jobName: "gift-settle", isDryRun: false, logicalTime: Date(), startTime: Date(), timeZone: .gmt, parameters: JobParameters(), store: store, policy: .skip)
            let ids = try await ctx.decode("transactions", memo: "pending-v1", filter: ScanFilter([.equals(field: "status", value: "pending")])) { d throws(FieldError) -> String? in d.id }
            return (ids, ctx.documentsRead)
        }
        let first = try await scan()
        #expect(first.ids == ["a"])
        #expect(first.read == 5)
        let second = try await scan()
        #expect(second.ids == ["a"])
        #expect(second.read == 1)
    }
}
