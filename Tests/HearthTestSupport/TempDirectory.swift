import Foundation
import HearthStore

/// A fresh directory under the system temp dir, removed by `remove()`.
public struct TempDirectory: Sendable {
    public let path: String

    public init(_ prefix: String = "hearth") throws {
        let base = FileManager.default.temporaryDirectory.path + "/\(prefix)-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        path = FileIO.realPath(base) ?? base
    }

    public func write(_ relative: String, _ text: String) throws {
        let file = path + "/" + relative
        try FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
    }

    public func read(_ relative: String) -> String? {
        FileManager.default.contents(atPath: path + "/" + relative).map { String(decoding: $0, as: UTF8.self) }
    }

    public func remove() { try? FileManager.default.removeItem(atPath: path) }
}
