import Foundation
import Synchronization
import HearthKit
import HearthDataDirectory
import HearthStore
import Testing
import HearthTestSupport

/// The data directory's change feed (docs/triggers.md#the-change-feed--data-directory): real
/// files in a temp directory, real inotify; every test waits for the events it expects (with a
/// timeout), and proves that nothing else came by writing a sentinel document last and
/// expecting its batch next. A file the test writes and then renames into place, or writes
/// before the feed starts, is written with `writeClosed`: a process another test spawns meanwhile
/// can hold it open until its exec, and its last close would then be a write the feed reports.
extension TempDirectory {
    func folder(_ relative: String) throws {
        try FileManager.default.createDirectory(atPath: path + "/" + relative, withIntermediateDirectories: true)
    }
}

@Suite("DirectoryChangeFeed")
struct DirectoryChangeFeedTests {
    /// The feed's events, taken from its stream as they come.
    final class Collector: Sendable {
        private let buffer = Mutex<[ChangeFeedEvent]>([])
        /// Told of every event.
        private let changes = ChangeNotifier()

        func deliver(_ event: ChangeFeedEvent) {
            buffer.withLock { $0.append(event) }
            changes.notify()
        }

        /// The next event. Only a failing test waits out the timeout, so it is long: a test
        /// process whose two cooperative threads are both blocked (a suite starting its
        /// PostgreSQL) stalled every test here for over 10 s once.
        func next(timeout: Duration = .seconds(60), sourceLocation: SourceLocation = #_sourceLocation) async throws -> ChangeFeedEvent {
            try await eventually("the feed's next event", timeout: timeout, wakingOn: changes, sourceLocation: sourceLocation) {
                buffer.withLock { $0.isEmpty ? nil : $0.removeFirst() }
            }
        }
    }

    /// A started feed over a temp data directory.
    struct Feed {
        let dir: TempDirectory
        let data: DataDirectory
        let collector: Collector
        let control: DirectoryChangeFeed.Control
        let consumer: Task<Void, Never>

        init(_ collections: Set<String>, setUp: (TempDirectory) async throws -> Void = { _ in }) async throws {
            dir = try TempDirectory("hearth-feed")
            try await setUp(dir)
            data = try DataDirectory(root: dir.path)
            let (events, control) = try DirectoryChangeFeed.start(data: data, collections: collections)
            let collector = Collector()
            self.collector = collector
            self.control = control
            consumer = Task {
                for await e in events { collector.deliver(e) }
            }
        }

        func next(sourceLocation: SourceLocation = #_sourceLocation) async throws -> ChangeFeedEvent {
            try await collector.next(sourceLocation: sourceLocation)
        }

        /// Runs `body` with a feed over a new temp directory (made by `setUp`), then stops it
        /// and removes the directory.
        static func with(_ collections: Set<String>, setUp: (TempDirectory) async throws -> Void = { _ in }, _ body: (Feed) async throws -> Void) async throws {
            let feed = try await Feed(collections, setUp: setUp)
            do { try await body(feed) } catch {
                await feed.end()
                throw error
            }
            await feed.end()
        }

        /// Stops the feed and removes the directory.
        func end() async {
            consumer.cancel()
            await control.waitUntilFinished()
            dir.remove()
        }

        func path(_ relative: String) -> String { dir.path + "/" + relative }

        /// Writes `text` at `relative` in place: open, one write(2) per piece, close.
        func writeInPlace(_ relative: String, _ pieces: [String]) throws {
            let fd = open(path(relative), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw StoreError("open \(relative): \(errno)") }
            defer { close(fd) }
            for p in pieces {
                let n = Array(p.utf8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                guard n == p.utf8.count else { throw StoreError("write \(relative)") }
            }
        }

        /// Writes `text` beside the folder and renames it to `relative` (as an app's atomic write).
        func renameIntoPlace(_ relative: String, _ text: String) async throws {
            let staging = path(".staging-" + UUID().uuidString)
            try await writeAbsolute(staging, text)
            guard rename(staging, path(relative)) == 0 else { throw StoreError("rename to \(relative): \(errno)") }
        }

        /// Writes `file`, returning once its last close has happened (`LastCloseWatch`): a
        /// close that came only after the file was renamed into a watched folder would be a
        /// second write.
        func writeAbsolute(_ file: String, _ text: String) async throws {
            try await BlockingIO.run { () throws(any Error) in try TempDirectory.writeFileClosed(file, text) }
        }

        /// Writes `relative` (a sentinel document) and expects its batch as the next event:
        /// nothing came before it.
        func expectOnlySentinel(_ relative: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
            try await renameIntoPlace(relative, #"{"sentinel": true}"#)
            let p = try DocumentPath(parsing: relative)
            let event = try await next(sourceLocation: sourceLocation)
            #expect(event == .changed(ChangeBatch(collection: p.components[0], paths: [p])), "came first: \(event)", sourceLocation: sourceLocation)
        }
    }

    static func paths(_ texts: String...) throws -> [DocumentPath] { try texts.map { try DocumentPath(parsing: $0) } }

    static func commit(_ data: DataDirectory, job: String, chain: Int, creating ids: [String], in collection: String) async throws {
        var c = Changeset()
        for id in ids {
            c.put(path: try DocumentPath(collection, id), action: .create, before: nil, after: JSONObject([("status", "completed")]), expected: nil)
        }
        let t = Date(timeIntervalSince1970: 1_795_000_000)
        let runID = "20261118T000000-\(ids.count)"
        let record = RunRecord(runID: runID, job: job, trigger: .write, logicalTime: t, start: t, end: t, attempt: 1, status: .succeeded, dryRun: false)
        let result = try await data.commit(RunCommit(job: job, runID: runID, changeset: c, record: record, chain: chain), holder: "test", timeout: .seconds(5))
        #expect(result == .committed)
    }

    @Test func aDocumentRenamedIntoPlaceByAnotherProcessIsOneBatch() async throws {
        try await Feed.with(["transactions"], setUp: { try await $0.writeClosed("transactions/old.json", "{}") }) { feed in
            try await feed.writeAbsolute(feed.path("g1.json"), #"{"status": "pending"}"#)
            let mv = Process()
            mv.executableURL = URL(fileURLWithPath: "/bin/mv")
            mv.arguments = [feed.path("g1.json"), feed.path("transactions/g1.json")]
            try mv.run()
            mv.waitUntilExit()
            #expect(mv.terminationStatus == 0)
            #expect(try await feed.next() == .changed(ChangeBatch(collection: "transactions", paths: try Self.paths("transactions/g1"))))
            try await feed.expectOnlySentinel("transactions/s.json")
        }
    }

    @Test func aDocumentWrittenInPlaceIsOneBatchWhenClosedNotOnePerWrite() async throws {
        try await Feed.with(["transactions"], setUp: { try $0.folder("transactions") }) { feed in
            try feed.writeInPlace("transactions/g1.json", [#"{"status": "#, #""pending","#, #" "amount": 5}"#])
            #expect(try await feed.next() == .changed(ChangeBatch(collection: "transactions", paths: try Self.paths("transactions/g1"))))
            try await feed.expectOnlySentinel("transactions/s.json")
        }
    }

    @Test func aDeletedDocumentIsABatch() async throws {
        try await Feed.with(["transactions"], setUp: { try await $0.writeClosed("transactions/g1.json", "{}") }) { feed in
            #expect(unlink(feed.path("transactions/g1.json")) == 0)
            #expect(try await feed.next() == .changed(ChangeBatch(collection: "transactions", paths: try Self.paths("transactions/g1"))))
            try await feed.expectOnlySentinel("transactions/s.json")
        }
    }

    @Test func aHearthCommitNamesItsJobAndChainAndAnAppsLaterWriteInPlaceDoesNot() async throws {
        try await Feed.with(["transactions"], setUp: { try $0.folder("transactions") }) { feed in
            let closes = try LastCloseWatch(feed.path("transactions"))
            try await Self.commit(feed.data, job: "gift-settle", chain: 2, creating: ["g1"], in: "transactions")
            #expect(try await feed.next() == .changed(ChangeBatch(collection: "transactions", paths: try Self.paths("transactions/g1"), writer: "gift-settle", chain: 2)))
            // The commit's temp file closed for the last time (a process another test spawned
            // may hold it until its exec): a close after the rewrite below would be a write.
            _ = try await BlockingIO.run { () throws(any Error) in try closes.wait() }
            // The app rewrites the file in place with bytes of the same size: the attribute stays,
            // the modification time does not.
            let before = try #require(feed.dir.read("transactions/g1.json"))
            let rewritten = before.replacingOccurrences(of: "completed", with: "cancelled")
            #expect(rewritten.utf8.count == before.utf8.count)
            try feed.writeInPlace("transactions/g1.json", [rewritten])
            #expect(try await feed.next() == .changed(ChangeBatch(collection: "transactions", paths: try Self.paths("transactions/g1"))))
            try await feed.expectOnlySentinel("transactions/s.json")
        }
    }

    /// A process spawned while a commit writes a temp file holds a copy of its descriptor until
    /// its `exec`; the file's last close then comes after the rename, under the document's name.
    /// That close is not a second write.
    @Test func aCommitsTempFileClosedAfterItsRenameIsNotASecondWrite() async throws {
        try await Feed.with(["transactions"], setUp: { try $0.folder("transactions") }) { feed in
            let temp = feed.path("transactions/.g1.json.tmp")
            let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            try #require(fd >= 0)
            #expect(Array("{}".utf8).withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) } == 2)
            WriterMark(job: "gift-settle", chain: 1).apply(to: fd, relativePath: "transactions/g1.json")
            let held = dup(fd)  // the spawned process's copy
            close(fd)
            #expect(rename(temp, feed.path("transactions/g1.json")) == 0)
            #expect(try await feed.next() == .changed(ChangeBatch(collection: "transactions", paths: try Self.paths("transactions/g1"), writer: "gift-settle", chain: 1)))
            close(held)  // the last close: IN_CLOSE_WRITE of transactions/g1.json
            try await feed.expectOnlySentinel("transactions/s.json")
        }
    }

    @Test func aBigStagedCommitIsAttributedAndACopyOfAMarkedFileUnderAnotherNameIsNot() async throws {
        try await Feed.with(["transactions"], setUp: { try $0.folder("transactions") }) { feed in
            let ids = (0..<40).map { String(format: "g%02d", $0) }   // more than batchSyncThreshold: staged
            try await Self.commit(feed.data, job: "gift-settle", chain: 1, creating: ids, in: "transactions")
            var seen: [DocumentPath] = []
            while seen.count < ids.count {
                let e = try await feed.next()
                guard case .changed(let b) = e else { Issue.record("unexpected \(e)"); break }
                #expect(b.collection == "transactions" && b.writer == "gift-settle" && b.chain == 1)
                seen += b.paths ?? []
            }
            #expect(Set(seen) == Set(try ids.map { try DocumentPath("transactions", $0) }))
            #expect(seen.count == ids.count)
            // `cp -a` keeps the attribute, the size and the time, not the path.
            let cp = Process()
            cp.executableURL = URL(fileURLWithPath: "/bin/cp")
            cp.arguments = ["-a", feed.path("transactions/g00.json"), feed.path("transactions/copy.json")]
            try cp.run()
            cp.waitUntilExit()
            #expect(cp.terminationStatus == 0)
            #expect(try await feed.next() == .changed(ChangeBatch(collection: "transactions", paths: try Self.paths("transactions/copy"))))
            try await feed.expectOnlySentinel("transactions/s.json")
        }
    }

    /// The built `hearth` beside the test bundle (.build/debug).
    static var hearthBinary: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("hearth").path
    }

    @Test func aCommitByHearthRunInAnotherProcessIsAttributedToItsJob() async throws {
        try await Feed.with(["users"], setUp: { dir in
            try await dir.writeClosed("users/alice.json", #"{"name": "Alice", "totalPointsGifted": 150, "giftsGiven": 3}"#)
            try await dir.writeClosed("users/bob.json", #"{"name": "Bob", "totalPointsGifted": 50, "giftsGiven": 1}"#)
        }) { feed in
            let binary = Self.hearthBinary
            #expect(FileManager.default.isExecutableFile(atPath: binary), "build first: \(binary)")
            let root = feed.dir.path
            let status = try await BlockingIO.run { () throws -> Int32 in
                let run = Process()
                run.executableURL = URL(fileURLWithPath: binary)
                run.arguments = ["run", "leaderboard-rebuild", "--data", root, "--now", "2026-11-18T12:00:00Z", "--param", "periods=alltime", "--log-level", "error"]
                run.standardOutput = FileHandle.nullDevice
                try run.run()
                run.waitUntilExit()
                return run.terminationStatus
            }
            #expect(status == 0)
            var seen: [DocumentPath] = []
            while seen.count < 2 {
                let e = try await feed.next()
                guard case .changed(let b) = e else { Issue.record("unexpected \(e)"); break }
                #expect(b.collection == "users" && b.writer == "leaderboard-rebuild" && b.chain == 0)
                seen += b.paths ?? []
            }
            #expect(seen.sorted() == (try Self.paths("users/alice", "users/bob")))
            try await feed.expectOnlySentinel("users/s.json")
        }
    }

    @Test func symlinksNonJSONFilesAndDotFilesAreNoBatch() async throws {
        try await Feed.with(["transactions"], setUp: { try await $0.writeClosed("elsewhere.json", "{}"); try $0.folder("transactions") }) { feed in
            #expect(symlink(feed.path("elsewhere.json"), feed.path("transactions/link.json")) == 0)
            #expect(symlink(feed.path("elsewhere.json"), feed.path("link2.json")) == 0)
            #expect(rename(feed.path("link2.json"), feed.path("transactions/moved.json")) == 0)
            try feed.writeInPlace("transactions/notes.txt", ["not a document"])
            try feed.writeInPlace("transactions/.g1.json", ["{}"])
            try await feed.renameIntoPlace("transactions/.g2.json.hearth-tmp", "{}")
            try await feed.expectOnlySentinel("transactions/s.json")
        }
    }

    @Test func aCollectionFolderThatIsASymlinkIsNotWatched() async throws {
        try await Feed.with(["transactions", "gifts"], setUp: { dir in
            try await dir.writeClosed("real/a.json", "{}")
            try await dir.writeClosed("gifts/a.json", "{}")
            #expect(symlink(dir.path + "/real", dir.path + "/transactions") == 0)
        }) { feed in
            #expect(try await feed.next() == .lost(collections: ["transactions"], reason: "transactions/ is a symbolic link; Hearth never follows it, so writes there start no run (make it a real folder)"))
            try await feed.renameIntoPlace("real/b.json", "{}")
            try await feed.renameIntoPlace("transactions/c.json", "{}")
            try await feed.expectOnlySentinel("gifts/s.json")
        }
    }

    @Test func aCollectionFolderDeletedAndRecreatedIsWatchedAgainAfterALoss() async throws {
        try await Feed.with(["transactions"], setUp: { try await $0.writeClosed("transactions/g1.json", "{}") }) { feed in
            #expect(unlink(feed.path("transactions/g1.json")) == 0)
            #expect(try await feed.next() == .changed(ChangeBatch(collection: "transactions", paths: try Self.paths("transactions/g1"))))
            #expect(rmdir(feed.path("transactions")) == 0)
            #expect(mkdir(feed.path("transactions"), 0o755) == 0)
            #expect(try await feed.next() == .lost(collections: ["transactions"], reason: "transactions/ was created; documents written before it was watched are read by the next run"))
            try await feed.renameIntoPlace("transactions/g2.json", "{}")
            #expect(try await feed.next() == .changed(ChangeBatch(collection: "transactions", paths: try Self.paths("transactions/g2"))))
            try await feed.expectOnlySentinel("transactions/s.json")
        }
    }

    @Test func aCollectionFolderCreatedAfterTheFeedStartedIsALossThenWatched() async throws {
        try await Feed.with(["gifts"]) { feed in
            #expect(mkdir(feed.path("gifts"), 0o755) == 0)
            #expect(try await feed.next() == .lost(collections: ["gifts"], reason: "gifts/ was created; documents written before it was watched are read by the next run"))
            try feed.writeInPlace("gifts/a.json", ["{}"])
            #expect(try await feed.next() == .changed(ChangeBatch(collection: "gifts", paths: try Self.paths("gifts/a"))))
            try await feed.expectOnlySentinel("gifts/s.json")
        }
    }

    @Test func subcollectionFoldersAreWatchedAndAFolderMovedInReportsItsDocuments() async throws {
        try await Feed.with(["users"], setUp: { try await $0.writeClosed("users/u1.json", "{}") }) { feed in
            #expect(mkdir(feed.path("users/u1"), 0o755) == 0)
            #expect(mkdir(feed.path("users/u1/badges"), 0o755) == 0)
            // Once the sentinel's event is handled, so were the folders' (the queue is in order).
            try await feed.expectOnlySentinel("users/s.json")
            try await feed.renameIntoPlace("users/u1/badges/b1.json", "{}")
            #expect(try await feed.next() == .changed(ChangeBatch(collection: "users", paths: try Self.paths("users/u1/badges/b1"))))
            // A document's folder made elsewhere and moved in: its documents are reported written.
            try await feed.dir.writeClosed("staged/u2/badges/b7.json", "{}")
            try await feed.dir.writeClosed("staged/u2/badges/notes.txt", "x")
            #expect(rename(feed.path("staged/u2"), feed.path("users/u2")) == 0)
            #expect(try await feed.next() == .changed(ChangeBatch(collection: "users", paths: try Self.paths("users/u2/badges/b7"))))
            try feed.writeInPlace("users/u2/badges/b8.json", ["{}"])
            #expect(try await feed.next() == .changed(ChangeBatch(collection: "users", paths: try Self.paths("users/u2/badges/b8"))))
            try await feed.expectOnlySentinel("users/s2.json")
        }
    }

    @Test func anOverflowIsALossOfEveryCollectionAndWatchingGoesOn() async throws {
        try await Feed.with(["transactions", "gifts"], setUp: { try await $0.writeClosed("transactions/g1.json", "{}") }) { feed in
            feed.control.simulateOverflow()
            #expect(try await feed.next() == .lost(collections: ["transactions", "gifts"], reason: "inotify queue overflowed"))
            try await feed.renameIntoPlace("transactions/g2.json", "{}")
            #expect(try await feed.next() == .changed(ChangeBatch(collection: "transactions", paths: try Self.paths("transactions/g2"))))
            #expect(mkdir(feed.path("gifts"), 0o755) == 0)
            #expect(try await feed.next() == .lost(collections: ["gifts"], reason: "gifts/ was created; documents written before it was watched are read by the next run"))
            try await feed.expectOnlySentinel("gifts/s.json")
        }
    }

    @Test func endingTheStreamEndsTheThreadAndClosesTheInotifyInstance() async throws {
        let feed = try await Feed(["transactions"]) { try await $0.writeClosed("transactions/g1.json", "{}") }
        let inode = try #require(try FileIO.statPath(feed.path("transactions"))).inode
        let watch = "ino:\(String(inode, radix: 16)) "
        #expect(Self.inotifyWatchLines().contains { $0.contains(watch) })
        feed.consumer.cancel()
        await feed.control.waitUntilFinished()
        #expect(!Self.inotifyWatchLines().contains { $0.contains(watch) })
        feed.dir.remove()
    }

    /// The `inotify wd:` lines of this process's descriptors (proc(5) fdinfo).
    static func inotifyWatchLines() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fdinfo")) ?? []
        return names.flatMap { name -> [String] in
            guard let text = try? String(contentsOfFile: "/proc/self/fdinfo/" + name, encoding: .utf8) else { return [] }
            return text.split(separator: "\n").filter { $0.hasPrefix("inotify wd:") }.map(String.init)
        }
    }

    @Test func theWriterMarkNeedsTheSameSizeTimeAndPath() {
        let value = WriterMark.value(job: "gift-settle", chain: 3, size: 120, mtime: 1_795_000_000_123_456_789, path: "transactions/g1.json")
        #expect(WriterMark.parse(value, size: 120, mtime: 1_795_000_000_123_456_789, path: "transactions/g1.json") == WriterMark(job: "gift-settle", chain: 3))
        #expect(WriterMark.parse(value, size: 121, mtime: 1_795_000_000_123_456_789, path: "transactions/g1.json") == nil)
        #expect(WriterMark.parse(value, size: 120, mtime: 1_795_000_000_123_456_790, path: "transactions/g1.json") == nil)
        #expect(WriterMark.parse(value, size: 120, mtime: 1_795_000_000_123_456_789, path: "transactions/g2.json") == nil)
        #expect(WriterMark.parse(Array("garbage".utf8), size: 120, mtime: 1, path: "x") == nil)
    }
}
