import Foundation

/// The documents of a data directory (not `.hearth/`): relative path → bytes.
struct TreeSnapshotLite: Equatable {
    var files: [String: Data] = [:]

    init(_ root: String) {
        guard let e = FileManager.default.enumerator(atPath: root) else { return }
        while let rel = e.nextObject() as? String {
            if rel.hasPrefix(".hearth") { continue }
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: root + "/" + rel, isDirectory: &isDir), !isDir.boolValue {
                files[rel] = FileManager.default.contents(atPath: root + "/" + rel)
            }
        }
    }
}
