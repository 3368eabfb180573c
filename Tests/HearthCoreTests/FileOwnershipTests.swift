import Foundation
import HearthKit
import HearthDataDirectory
import HearthStore
import HearthHost
import Testing
import HearthTestSupport

/// Documents keep their owner, group and mode; new ones take the parent directory's group and
/// `[store] fileMode` / `dirMode` (docs/data-directory.md#ownership-and-modes). On real files,
/// as root (the ids of nobody:nogroup are 65534).
@Suite("File ownership", .enabled(if: geteuid() == 0, "needs root to chown test files"))
struct FileOwnershipTests {
    static let nobody: uid_t = 65534
    static let nogroup: gid_t = 65534

    struct Owner: Equatable, CustomStringConvertible {
        var uid: uid_t
        var gid: gid_t
        var mode: UInt32
        var description: String { "\(uid):\(gid) \(String(mode, radix: 8))" }
    }

    static func owner(_ path: String) throws -> Owner {
        // Through FileIO: `stat`'s members are not visible here since swift-certificates (through
        // jwt-kit) is in the build (MemberImportVisibility names CoreFoundation or CDispatch).
        let st = try #require(try FileIO.statPath(path), "stat \(path)")
        return Owner(uid: st.uid, gid: st.gid, mode: st.mode & 0o7777)
    }

    static func set(_ path: String, uid: uid_t, gid: gid_t, mode: UInt32) {
        #expect(chown(path, uid, gid) == 0)
        #expect(chmod(path, mode_t(mode)) == 0)
    }

    /// Updates `users/u1` (points → 600) and creates every path in `creates`, in one commit.
    static func commit(_ data: DataDirectory, creates: [DocumentPath] = []) throws {
        let ctx = JobContext(jobName: "t", logicalTime: Date(), startTime: Date(), timeZone: .gmt, parameters: JobParameters(), store: data, policy: .skip)
        if let u1 = try ctx.document(try DocumentPath("users", "u1")) { ctx.update(u1) { $0["points"] = 600 } }
        for p in creates { ctx.create(p, JSONObject([("name", "new")])) }
        try Committer(data: data).commit(ctx.changeset, id: "run1")
    }

    @Test func aReplacedDocumentKeepsItsOwnerGroupAndMode() throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        try dir.write("users/u1.json", #"{"name": "A", "points": 500}"#)
        Self.set(dir.path + "/users/u1.json", uid: Self.nobody, gid: Self.nogroup, mode: 0o664)
        try Self.commit(try DataDirectory(root: dir.path))
        #expect(dir.read("users/u1.json") == "{\n  \"name\": \"A\",\n  \"points\": 600\n}\n")
        #expect(try Self.owner(dir.path + "/users/u1.json") == Owner(uid: Self.nobody, gid: Self.nogroup, mode: 0o664))
    }

    @Test func aReplacedDocumentInASetgidDirectoryKeepsItsOwnGroup() throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        try dir.write("users/u1.json", #"{"points": 1}"#)
        Self.set(dir.path + "/users", uid: Self.nobody, gid: Self.nogroup, mode: 0o2775)
        Self.set(dir.path + "/users/u1.json", uid: 0, gid: 0, mode: 0o640)
        try Self.commit(try DataDirectory(root: dir.path))
        #expect(try Self.owner(dir.path + "/users/u1.json") == Owner(uid: 0, gid: 0, mode: 0o640))
    }

    @Test func aNewDocumentInASetgidCollectionDirectoryGetsItsGroupAndTheFileMode() throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        try FileManager.default.createDirectory(atPath: dir.path + "/users", withIntermediateDirectories: true)
        Self.set(dir.path + "/users", uid: 0, gid: Self.nogroup, mode: 0o2775)
        try Self.commit(try DataDirectory(root: dir.path), creates: [try DocumentPath("users", "u2")])
        #expect(try Self.owner(dir.path + "/users/u2.json") == Owner(uid: 0, gid: Self.nogroup, mode: 0o644))
    }

    @Test func asRootANewDocumentAlsoTakesTheDirectoryOwner() throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        try FileManager.default.createDirectory(atPath: dir.path + "/users", withIntermediateDirectories: true)
        Self.set(dir.path + "/users", uid: Self.nobody, gid: Self.nogroup, mode: 0o755)
        try Self.commit(try DataDirectory(root: dir.path, ownership: FileOwnership(fileMode: 0o664)), creates: [try DocumentPath("users", "u2")])
        #expect(try Self.owner(dir.path + "/users/u2.json") == Owner(uid: Self.nobody, gid: Self.nogroup, mode: 0o664))
    }

    @Test func aNewCollectionDirectoryTakesDirModeTheParentsGroupAndItsSetgidBit() throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        Self.set(dir.path, uid: Self.nobody, gid: Self.nogroup, mode: 0o2775)
        let data = try DataDirectory(root: dir.path, ownership: FileOwnership(fileMode: 0o660, dirMode: 0o770))
        try Self.commit(data, creates: [try DocumentPath("leaderboard_cache", "weekly"), try DocumentPath(components: ["users", "u1", "badges", "b1"])])
        #expect(try Self.owner(dir.path + "/leaderboard_cache") == Owner(uid: Self.nobody, gid: Self.nogroup, mode: 0o2770))
        #expect(try Self.owner(dir.path + "/leaderboard_cache/weekly.json") == Owner(uid: Self.nobody, gid: Self.nogroup, mode: 0o660))
        #expect(try Self.owner(dir.path + "/users") == Owner(uid: Self.nobody, gid: Self.nogroup, mode: 0o2770))
        #expect(try Self.owner(dir.path + "/users/u1/badges") == Owner(uid: Self.nobody, gid: Self.nogroup, mode: 0o2770))
        // Hearth's own state is not app data: root's, 0750.
        #expect(try Self.owner(dir.path + "/.hearth/journal").mode & 0o777 == 0o750)
    }

    @Test func aBigCommitKeepsOwnersToo() throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        try dir.write("users/u1.json", #"{"points": 1}"#)
        Self.set(dir.path + "/users/u1.json", uid: Self.nobody, gid: Self.nogroup, mode: 0o604)
        Self.set(dir.path + "/users", uid: 0, gid: Self.nogroup, mode: 0o2775)
        let creates = try (0..<40).map { try DocumentPath("users", "n\($0)") }
        try Self.commit(try DataDirectory(root: dir.path), creates: creates)
        #expect(try Self.owner(dir.path + "/users/u1.json") == Owner(uid: Self.nobody, gid: Self.nogroup, mode: 0o604))
        for i in [0, 39] {
            #expect(try Self.owner(dir.path + "/users/n\(i).json") == Owner(uid: 0, gid: Self.nogroup, mode: 0o644))
        }
    }

    @Test func rootKeepsEveryOwnerSoNothingIsUnkeepable() throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        try dir.write("users/u1.json", "{}")
        Self.set(dir.path + "/users/u1.json", uid: Self.nobody, gid: Self.nogroup, mode: 0o600)
        #expect(FileOwnership.unkeepable([dir.path + "/users/u1.json"], probeDirectory: dir.path) == [])
    }

    @Test func storeModesComeFromTheConfiguration() throws {
        let loader = ConfigLoader(jobs: [], environment: [:])
        let c = try loader.parse("[store]\nfileMode = \"0664\"\ndirMode = 0o2775\n", file: "h.toml", dataOverride: "/tmp")
        #expect(c.store == FileOwnership(fileMode: 0o664, dirMode: 0o2775))
        #expect(try loader.parse("", file: "h.toml", dataOverride: "/tmp").store == FileOwnership(fileMode: 0o644, dirMode: 0o755))
        #expect {
            try loader.parse("[store]\nfileMode = \"rw-r--r--\"\n", file: "h.toml", dataOverride: "/tmp")
        } throws: { error in
            "\(error)" == #"h.toml:2: store.fileMode: expected a file mode like "0644" (an octal string) or 0o644, at most 0777, found "rw-r--r--""#
        }
    }
}
