import Foundation
import HearthKit
import HearthStore
import HearthHTTP
import HearthSchedule
import HearthOutbound
import HearthHost
import Testing
import HearthTestSupport

@Suite("Commits and recovery")
struct CommitterTests {
    func makeChangeset(_ data: DataDirectory) throws -> (Changeset, JobContext) {
        let ctx = JobContext(jobName: "t", logicalTime: Date(), startTime: Date(), timeZone: .gmt, parameters: JobParameters(), store: data, policy: .skip)
        let a = try #require(try ctx.document(try DocumentPath("users", "a")))
        ctx.update(a) { $0["points"] = .int(600) }
        ctx.create(try DocumentPath("users", "c"), JSONObject([("name", "C")]))
        return (ctx.changeset, ctx)
    }

    @Test func aCommitWritesEveryFileAndRemovesItsJournal() throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        try dir.write("users/a.json", #"{"name": "A", "points": 500}"#)
        let data = try DataDirectory(root: dir.path)
        let (cs, _) = try makeChangeset(data)
        let committer = Committer(data: data)
        #expect(try committer.conflicts(in: cs).isEmpty)
        try committer.commit(cs, id: "run1")
        #expect(dir.read("users/a.json") == "{\n  \"name\": \"A\",\n  \"points\": 600\n}\n")
        #expect(dir.read("users/c.json") == "{\n  \"name\": \"C\"\n}\n")
        #expect(try FileIO.list(dir.path + "/.hearth/journal") == [])
    }

    @Test func aChangedDocumentIsAConflictAndAnAppearedOneToo() throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        try dir.write("users/a.json", #"{"name": "A", "points": 500}"#)
        let data = try DataDirectory(root: dir.path)
        let (cs, _) = try makeChangeset(data)
        try dir.write("users/a.json", #"{"name": "A", "points": 501}"#)
        try dir.write("users/c.json", #"{"name": "someone else"}"#)
        #expect(try Committer(data: data).conflicts(in: cs).map(\.description) == ["users/a", "users/c"])
    }

    @Test func recoveryRedoesACommittedJournalAndDiscardsAPendingOne() throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        try dir.write("users/a.json", #"{"points": 1}"#)
        let data = try DataDirectory(root: dir.path)
        // A crash right after the commit point leaves a committed journal; one before it, a pending one.
        try FileManager.default.createDirectory(atPath: dir.path + "/.hearth/journal", withIntermediateDirectories: true)
        let journalText = #"{"id":"r1","operations":[{"put":"users/b.json","content":"{\n  \"points\": 3\n}\n"},{"delete":"users/a.json"}]}"#
        try dir.write(".hearth/journal/r1.journal", journalText)
        try dir.write(".hearth/journal/r2.pending", #"{"id":"r2","operations":[{"put":"users/z.json","content":"{}"}]}"#)
        let r = try Committer(data: data).recover()
        #expect(r.redone == ["r1"])
        #expect(r.discarded == ["r2.pending"])
        #expect(dir.read("users/a.json") == nil)
        #expect(dir.read("users/b.json") == "{\n  \"points\": 3\n}\n")
        #expect(dir.read("users/z.json") == nil)
        #expect(try FileIO.list(dir.path + "/.hearth/journal") == [])
    }

    @Test func aJournalNamingAPathOutsideTheDataDirectoryIsRefused() throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        try dir.write(".hearth/journal/r1.journal", #"{"id":"r1","operations":[{"put":"../escape.json","content":"{}"}]}"#)
        let data = try DataDirectory(root: dir.path)
        #expect(throws: StoreError.self) { try Committer(data: data).recover() }
    }

    @Test func theLockNamesItsHolderWhenBusy() throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let data = try DataDirectory(root: dir.path)
        let committer = Committer(data: data)
        let held = try committer.lock(holder: "pid=4242 job=weekly-bonus", timeout: .seconds(1))
        defer { held.release() }
        // flock locks belong to the open file description, so a second open in this process
        // contends like another process would.
        do {
            _ = try committer.lock(holder: "pid=1 job=x", timeout: .milliseconds(100))
            Issue.record("second lock acquired")
        } catch let e as LockBusyError {
            #expect(e.holder == "pid=4242 job=weekly-bonus")
            #expect(e.description.hasPrefix("the data directory \(dir.path) is locked by another process (pid=4242 job=weekly-bonus); waited 100ms (lockTimeout)."))
        }
    }
}
