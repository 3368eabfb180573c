import Foundation
import HearthKit
import HearthDataDirectory
import HearthStore
import HearthOutbound
import HearthHost
import Synchronization
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

    @Test func aDataDirectoryThatIsGoneIsNeverRecreatedByACommitOrTheDaemonsState() throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        try dir.write("data/users/a.json", #"{"name": "A", "points": 500}"#)
        let data = try DataDirectory(root: dir.path + "/data")
        let (cs, _) = try makeChangeset(data)
        // Moved away (or its disk unmounted) while a daemon holds it open.
        try FileManager.default.moveItem(atPath: dir.path + "/data", toPath: dir.path + "/away")
        let gone = "write below the data directory (it is gone: moved, deleted or its disk unmounted; Hearth does not recreate it — put it back or point dataDir at it) \(data.root): No such file or directory"
        #expect(throws: FileIO.Failure.self) { try Committer(data: data).commit(cs, id: "run1") }
        do { try Committer(data: data).commit(cs, id: "run1") } catch { #expect("\(error)" == gone) }
        do {
            try DirectorySchedulerState(data: data).save(.init(job: "t", schedule: "every 1 minute", timeZone: "UTC", lastSlot: Date(), updatedAt: Date()))
            Issue.record("the scheduler state was saved into a data directory that is gone")
        } catch { #expect("\(error)" == gone) }
        do {
            _ = try Committer(data: data).lock(holder: "t", timeout: .seconds(1))
            Issue.record("the writers' lock was taken in a data directory that is gone")
        } catch { #expect("\(error)" == gone) }
        #expect(try FileIO.statPath(data.root) == nil)
        #expect(dir.read("away/users/a.json") == #"{"name": "A", "points": 500}"#)
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

    /// A job that keeps documents as path + version and reads them again to write them
    /// (`JobContext.reread`, e.g. gift-settle's gifts and users): the second read's content is
    /// written over, but with the first read's version, so a change by another writer between
    /// the two reads is still a conflict at the commit (and the run is re-run), never lost.
    @Test func aDocumentChangedBetweenTheFirstReadAndTheRereadIsAConflict() async throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        try dir.write("users/a.json", #"{"name": "A", "points": 500}"#)
        try dir.write("users/b.json", #"{"name": "B", "points": 7}"#)
        let data = try DataDirectory(root: dir.path)
        let ctx = JobContext(jobName: "t", logicalTime: Date(), startTime: Date(), timeZone: .gmt, parameters: JobParameters(), store: data, policy: .skip)
        let kept = try ["a", "b"].map { id in
            let d = try #require(try ctx.document(try DocumentPath("users", id)))
            return Document(path: d.path, object: JSONObject(), version: d.version)
        }
        try dir.write("users/a.json", #"{"name": "A", "points": 900}"#)
        var reread: [Document] = []
        try await ctx.reread(kept) { _, document in if let document { reread.append(document) } }
        #expect(reread.map(\.version) == kept.map(\.version))
        #expect(reread.first?["points"] == .int(900))
        for d in reread { ctx.update(d) { $0["bonus"] = .int(1) } }
        #expect(try Committer(data: data).conflicts(in: ctx.changeset).map(\.description) == ["users/a"])
    }

    @Test func aStagedCommitGivesEachDirectoryOneThreadLargestFirstInJournalOrder() {
        let paths = [
            "users/a.json", "transactions/t1.json", "users/b.json", ".hearth/outbox/pending/x.jsonl",
            "transactions/t2.json", "users/c.json", "notifications/n.json", "top.json",
        ]
        #expect(Committer.lanes(of: paths) == [[0, 2, 5], [1, 4], [7], [3], [6]])
    }

    @Test func lanesRunEveryIndexOnceAndGiveResultsLaneByLaneInOrder() {
        let lanes = [[0, 2, 5, 6, 8, 9, 11], [1, 4], [3, 7, 10]]
        for share in [false, true] {
            let out = concurrentLanes(lanes, chunkSize: 2, share: share) { chunk in chunk.map { $0 * 10 } }
            #expect(out == [0, 20, 50, 60, 80, 90, 110, 10, 40, 30, 70, 100])
        }
        #expect(concurrentLanes([[Int]](), share: false) { $0.map { $0 } }.isEmpty)
    }

    @Test func withoutSharingALaneNeverRunsTwoChunksAtOnce() {
        // Three lanes of small chunks that take a while each: two threads keep to separate lanes.
        let lanes = [Array(0..<40), Array(40..<70), Array(70..<100)]
        let running = Mutex((now: [0, 0, 0], most: [0, 0, 0], order: [[Int]](repeating: [], count: 3)))
        let seen = concurrentLanes(lanes, chunkSize: 5, share: false) { chunk -> [Int] in
            let lane = chunk.first! < 40 ? 0 : chunk.first! < 70 ? 1 : 2
            running.withLock { r in
                r.now[lane] += 1
                r.most[lane] = max(r.most[lane], r.now[lane])
                r.order[lane] += chunk
            }
            // The subject: a chunk's work, the window in which a second thread could wrongly
            // enter its busy lane. That would be an overlap; "none came" has no event to wait for.
            usleep(2000)
            running.withLock { $0.now[lane] -= 1 }
            return Array(chunk)
        }
        #expect(seen == Array(0..<100))
        running.withLock { r in
            #expect(r.most == [1, 1, 1])
            #expect(r.order == lanes)  // chunks of a lane ran in order
        }
    }

    @Test func aConcurrentRereadHandsEachKeptDocumentOnceWithItsFirstVersion() async throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        for i in 0..<600 { try dir.write("users/u\(i).json", #"{"points": \#(i)}"#) }
        let data = try DataDirectory(root: dir.path)
        let ctx = JobContext(jobName: "t", logicalTime: Date(), startTime: Date(), timeZone: .gmt, parameters: JobParameters(), store: data, policy: .skip)
        let kept = try (0..<600).map { i in
            let d = try #require(try ctx.document(try DocumentPath("users", "u\(i)")))
            return Document(path: d.path, object: JSONObject(), version: d.version)
        }
        try dir.write("users/u7.json", #"{"points": 7000}"#)
        try FileManager.default.removeItem(atPath: dir.path + "/users/u9.json")
        let handed = Mutex([Int: JSONValue?]())
        try await ctx.rereadConcurrently(kept, chunkSize: 256) { i, document in
            handed.withLock { $0[i] = document?["points"] }
            if let document {
                #expect(document.version == kept[i].version)
                ctx.update(document) { $0["points"] = .int(1) }
            }
        }
        handed.withLock { h in
            #expect(h.count == 600)
            #expect(h[7] == .some(.int(7000)))
            #expect(h[9] == .some(nil))
            #expect(h[8] == .some(.int(8)))
        }
        // u1 already had 1 point; u9 is gone; the rest are updates, whatever order they came in.
        #expect(ctx.changeset.entries.count == 598)
        #expect(try Committer(data: data).conflicts(in: ctx.changeset).map(\.description) == ["users/u7"])
    }

    @Test func aConcurrentRereadRethrowsTheFirstErrorByIndex() async throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        for i in 0..<300 { try dir.write("users/u\(i).json", "{}") }
        let data = try DataDirectory(root: dir.path)
        let ctx = JobContext(jobName: "t", logicalTime: Date(), startTime: Date(), timeZone: .gmt, parameters: JobParameters(), store: data, policy: .skip)
        let kept = try (0..<300).map { i in try #require(try ctx.document(try DocumentPath("users", "u\(i)"))) }
        struct Stop: Error, Equatable { let index: Int }
        await #expect(throws: Stop(index: 40)) {
            try await ctx.rereadConcurrently(kept) { i, _ in
                if i == 40 || i == 290 { throw Stop(index: i) }
            }
        }
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

    @Test func aBigCommitIsStagedAndLeavesNoJournalOrTempFile() throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        for i in 0..<40 { try dir.write("users/u\(i).json", #"{"points": \#(i)}"#) }
        let data = try DataDirectory(root: dir.path)
        let ctx = JobContext(jobName: "t", logicalTime: Date(), startTime: Date(), timeZone: .gmt, parameters: JobParameters(), store: data, policy: .skip)
        for i in 0..<40 {
            let d = try #require(try ctx.document(try DocumentPath("users", "u\(i)")))
            if i == 0 { ctx.delete(d) } else { ctx.update(d) { $0["points"] = .int(Int64(i) + 100) } }
        }
        ctx.create(try DocumentPath("notifications", "n1"), JSONObject([("read", false)]))
        try Committer(data: data).commit(ctx.changeset, id: "big", extra: [.put(".hearth/runs/t/big.json", Array("{}\n".utf8))])
        #expect(dir.read("users/u0.json") == nil)
        #expect(dir.read("users/u7.json") == "{\n  \"points\": 107\n}\n")
        #expect(dir.read("notifications/n1.json") == "{\n  \"read\": false\n}\n")
        #expect(dir.read(".hearth/runs/t/big.json") == "{}\n")
        #expect(try FileIO.list(dir.path + "/.hearth/journal") == [])
        #expect(try FileIO.list(dir.path + "/users")?.filter { $0.hasSuffix(".hearth-tmp") } == [])
    }

    @Test(arguments: [1, 40])
    func aDeferredFileIsMadeOnceByTheCommitAndWrittenWithTheDocuments(documents: Int) throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let data = try DataDirectory(root: dir.path)
        let ctx = JobContext(jobName: "t", logicalTime: Date(), startTime: Date(), timeZone: .gmt, parameters: JobParameters(), store: data, policy: .skip)
        for i in 0..<documents { ctx.create(try DocumentPath("notifications", "n\(i)"), JSONObject([("read", false)])) }
        let made = Mutex(0)
        let batch = Committer.Write.deferred(".hearth/outbox/pending/t-b0001.jsonl") {
            made.withLock { $0 += 1 }
            return Array("{\"id\":\"m1\"}\n".utf8)
        }
        #expect(made.withLock { $0 } == 0)
        try Committer(data: data).commit(ctx.changeset, id: "c", extra: [batch])
        #expect(made.withLock { $0 } == 1)
        #expect(dir.read(".hearth/outbox/pending/t-b0001.jsonl") == "{\"id\":\"m1\"}\n")
        #expect(dir.read("notifications/n0.json") == "{\n  \"read\": false\n}\n")
        #expect(try FileIO.list(dir.path + "/.hearth/journal") == [])
        #expect(try FileIO.list(dir.path + "/.hearth/outbox/pending") == ["t-b0001.jsonl"])
    }

    @Test func recoveryFinishesACommittedStagedJournalAndRemovesThePendingOnesTempFiles() throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        try dir.write("users/a.json", #"{"points": 1}"#)
        try dir.write("users/b.json", #"{"points": 2}"#)
        try dir.write("users/d.json", #"{"points": 4}"#)
        // r1 crashed after its commit point: b's temp file renamed already, c's not, a not yet deleted.
        try dir.write("users/.c.json.hearth-tmp", #"{"points": 3}"#)
        try dir.write(".hearth/journal/r1.journal", #"{"id":"r1","operations":[],"staged":[{"rename":"users/b.json"},{"rename":"users/c.json"},{"delete":"users/a.json"}]}"#)
        // r2 crashed before it: its temp file for d is taken back, d is untouched.
        try dir.write("users/.d.json.hearth-tmp", #"{"points": 40}"#)
        try dir.write(".hearth/journal/r2.pending", #"{"id":"r2","operations":[],"staged":[{"rename":"users/d.json"},{"rename":"users/e.json"}]}"#)
        let r = try Committer(data: try DataDirectory(root: dir.path)).recover()
        #expect(r.redone == ["r1"])
        #expect(r.discarded == ["r2.pending"])
        #expect(dir.read("users/a.json") == nil)
        #expect(dir.read("users/b.json") == #"{"points": 2}"#)
        #expect(dir.read("users/c.json") == #"{"points": 3}"#)
        #expect(dir.read("users/d.json") == #"{"points": 4}"#)
        #expect(try FileIO.list(dir.path + "/users")?.sorted() == ["b.json", "c.json", "d.json"])
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
