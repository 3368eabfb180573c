import Foundation

/// What `hearth --version` prints: the version, and the git commit when the binary was built
/// from a git checkout.
///
/// How the commit is found (docs/cli.md#version): SwiftPM has no plugin-free step that runs on
/// every build — a value computed in Package.swift is cached with the manifest and goes stale
/// after the next commit — so the binary records where its sources were (`#filePath`, fixed at
/// compile time) and reads that checkout's `HEAD` when asked, following a worktree's `gitdir`,
/// loose refs and `packed-refs`. When `HEAD` moved after the binary was built (the ref is newer
/// than the executable) it says so rather than claim a commit it was not built from. On a machine
/// without that checkout it prints the version alone.
enum HearthVersion {
    static let number = "0.9.0"

    static var description: String {
        guard let head = GitHead.read(sourceFile: #filePath) else { return number }
        let short = String(head.commit.prefix(12))
        if let built = executableModified(), head.changed > built.addingTimeInterval(1) {
            return "\(number) (built from git before \(short), the checkout's HEAD now)"
        }
        return "\(number) (git \(short))"
    }

    static func executableModified() -> Date? {
        guard let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else { return nil }
        return (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
    }
}
