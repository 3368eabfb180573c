import Foundation

/// A checkout's `HEAD` commit, read from its files (no `git` process).
enum GitHead {
    /// The commit of the checkout holding `sourceFile`, and when its ref last changed.
    static func read(sourceFile: String) -> (commit: String, changed: Date)? {
        var dir = URL(fileURLWithPath: sourceFile).deletingLastPathComponent()
        let fm = FileManager.default
        while dir.path != "/" {
            let dotGit = dir.appendingPathComponent(".git").path
            var isDir: ObjCBool = false
            if fm.fileExists(atPath: dotGit, isDirectory: &isDir) {
                var gitDir = dotGit
                if !isDir.boolValue {
                    guard let text = try? String(contentsOfFile: dotGit, encoding: .utf8), text.hasPrefix("gitdir:") else { return nil }
                    gitDir = absolute(text.dropFirst(7).trimmingCharacters(in: .whitespacesAndNewlines), base: dir.path)
                }
                return head(gitDir: gitDir)
            }
            dir = dir.deletingLastPathComponent()
        }
        return nil
    }

    static func head(gitDir: String) -> (commit: String, changed: Date)? {
        let headPath = gitDir + "/HEAD"
        guard let text = try? String(contentsOfFile: headPath, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines) else { return nil }
        guard text.hasPrefix("ref:") else { return isCommit(text) ? (text, modified(headPath)) : nil }
        let ref = text.dropFirst(4).trimmingCharacters(in: .whitespaces)
        var common = gitDir
        if let c = try? String(contentsOfFile: gitDir + "/commondir", encoding: .utf8) {
            common = absolute(c.trimmingCharacters(in: .whitespacesAndNewlines), base: gitDir)
        }
        for dir in [gitDir, common] {
            let path = dir + "/" + ref
            if let sha = try? String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines), isCommit(sha) {
                return (sha, modified(path))
            }
        }
        let packed = common + "/packed-refs"
        guard let lines = try? String(contentsOfFile: packed, encoding: .utf8) else { return nil }
        for line in lines.split(separator: "\n") where line.hasSuffix(" " + ref) {
            let sha = String(line.prefix { $0 != " " })
            if isCommit(sha) { return (sha, modified(packed)) }
        }
        return nil
    }

    static func isCommit(_ s: String) -> Bool { s.count == 40 && s.allSatisfy(\.isHexDigit) }

    static func modified(_ path: String) -> Date {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date) ?? .distantPast
    }

    static func absolute(_ path: String, base: String) -> String {
        path.hasPrefix("/") ? path : URL(fileURLWithPath: base).appendingPathComponent(path).standardizedFileURL.path
    }
}
