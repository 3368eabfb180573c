import Foundation
import HearthKit
import HearthStore
import HearthHTTP
import HearthSchedule
import HearthOutbound
import HearthHost

/// A fresh directory under the system temp dir, removed by `remove()`.
struct TempDirectory {
    let path: String

    init(_ prefix: String = "hearth") throws {
        let base = FileManager.default.temporaryDirectory.path + "/\(prefix)-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        path = FileIO.realPath(base) ?? base
    }

    func write(_ relative: String, _ text: String) throws {
        let file = path + "/" + relative
        try FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
    }

    func read(_ relative: String) -> String? {
        FileManager.default.contents(atPath: path + "/" + relative).map { String(decoding: $0, as: UTF8.self) }
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}
