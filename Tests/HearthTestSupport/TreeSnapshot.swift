public import Foundation

/// Every regular file under a directory (skipping `.hearth/`): relative path → bytes and mtime.
public struct TreeSnapshot: Equatable, Sendable {
    public struct Entry: Equatable, Sendable {
        public var bytes: Data
        public var mtime: Date
    }
    public var files: [String: Entry]

    public init(_ root: String, includeState: Bool = false) {
        var out: [String: Entry] = [:]
        let fm = FileManager.default
        if let e = fm.enumerator(atPath: root) {
            while let rel = e.nextObject() as? String {
                if !includeState, rel.hasPrefix(".hearth") { continue }
                let full = root + "/" + rel
                let attrs = try? fm.attributesOfItem(atPath: full)
                guard attrs?[.type] as? FileAttributeType == .typeRegular else { continue }
                out[rel] = Entry(bytes: fm.contents(atPath: full) ?? Data(), mtime: attrs?[.modificationDate] as? Date ?? .distantPast)
            }
        }
        files = out
    }

    /// Same paths and bytes (mtimes ignored).
    public func sameContent(as other: TreeSnapshot) -> Bool {
        files.count == other.files.count && files.allSatisfy { other.files[$0.key]?.bytes == $0.value.bytes }
    }
}
