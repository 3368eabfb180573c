import HearthKit
package import HearthStore
/// The write-ahead journal of docs/reliability.md#commits-locking-crashes.
///
/// A commit writes every file it will put (with its full bytes) and every file it will
/// delete into `.hearth/journal/<id>.pending`, fsyncs it and renames it to `<id>.journal`:
/// that rename is the commit point. The files are then written (temp file, fsync, rename),
/// their directories fsynced, and the journal removed. Recovery redoes every `.journal`
/// (writing a file twice is harmless) and deletes every `.pending` (never committed).
///
/// A big commit's journal is **staged** instead (``staged``): it names the files, not their
/// bytes. The list is made durable first, then every new file is written to its temp file and
/// made durable, and only then is the journal renamed to `.journal`: from the commit point
/// every new file's bytes are on disk beside it, so finishing is renaming each temp file into
/// place (a missing one was renamed already) and deleting. Recovery of an uncommitted staged
/// journal removes the temp files it names.
package struct Journal: Sendable {
    package typealias Operation = FileOperation

    /// One step of a staged journal.
    enum Staged: Sendable, Equatable {
        /// Rename the temp file beside this relative path (``FileIO/temporaryPath(for:)``) into place.
        case rename(String)
        case delete(String)

        var path: String {
            switch self {
            case .rename(let p), .delete(let p): p
            }
        }
    }

    package var id: String
    package var operations: [Operation]
    /// A staged journal's steps (then `operations` is empty).
    var staged: [Staged] = []

    package init(id: String, operations: [Operation]) {
        self.id = id
        self.operations = operations
    }

    init(id: String, staged: [Staged]) {
        self.id = id
        self.operations = []
        self.staged = staged
    }

    var isStaged: Bool { !staged.isEmpty }

    /// `{"id": ID, "operations": [{"put": PATH, "content": TEXT} | {"delete": PATH}, …]}`,
    /// compact, handed to `emit` in pieces of about `chunk` bytes: a big commit holds each
    /// file's bytes once (in `operations`) and one piece of the journal, never a second copy of
    /// everything.
    func encode(chunk: Int = 1 << 20, _ emit: ([UInt8]) throws -> Void) rethrows {
        var out: [UInt8] = []
        out.reserveCapacity(chunk + 4096)
        out.append(contentsOf: Array(#"{"id":"#.utf8))
        JSONWriter.writeCompact(.string(id), into: &out)
        out.append(contentsOf: Array(#","operations":["#.utf8))
        for (i, op) in operations.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            switch op {
            case .put(let path, let bytes):
                JSONWriter.writeCompact(.object(JSONObject([("put", .string(path)), ("content", .string(String(decoding: bytes, as: UTF8.self)))])), into: &out)
            case .delete(let path):
                JSONWriter.writeCompact(.object(JSONObject([("delete", .string(path))])), into: &out)
            }
            if out.count >= chunk {
                try emit(out)
                out.removeAll(keepingCapacity: true)
            }
        }
        out.append(UInt8(ascii: "]"))
        if !staged.isEmpty {
            out.append(contentsOf: Array(#","staged":["#.utf8))
            for (i, step) in staged.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                switch step {
                case .rename(let path): JSONWriter.writeCompact(.object(JSONObject([("rename", .string(path))])), into: &out)
                case .delete(let path): JSONWriter.writeCompact(.object(JSONObject([("delete", .string(path))])), into: &out)
                }
                if out.count >= chunk {
                    try emit(out)
                    out.removeAll(keepingCapacity: true)
                }
            }
            out.append(UInt8(ascii: "]"))
        }
        out.append(UInt8(ascii: "}"))
        try emit(out)
    }

    static func decode(_ bytes: [UInt8]) -> Journal? {
        guard case .object(let o)? = try? JSONParser.parse(bytes), case .string(let id)? = o["id"],
            case .array(let ops)? = o["operations"]
        else { return nil }
        var operations: [Operation] = []
        for op in ops {
            guard case .object(let e) = op else { return nil }
            if case .string(let p)? = e["put"], case .string(let c)? = e["content"] {
                operations.append(.put(p, Array(c.utf8)))
            } else if case .string(let p)? = e["delete"] {
                operations.append(.delete(p))
            } else {
                return nil
            }
        }
        var journal = Journal(id: id, operations: operations)
        if let value = o["staged"] {
            guard case .array(let steps) = value else { return nil }
            for step in steps {
                guard case .object(let e) = step else { return nil }
                if case .string(let p)? = e["rename"] {
                    journal.staged.append(.rename(p))
                } else if case .string(let p)? = e["delete"] {
                    journal.staged.append(.delete(p))
                } else {
                    return nil
                }
            }
        }
        return journal
    }

    /// Relative paths must stay inside the data directory: no `..`, no absolute paths.
    static func isSafe(_ relative: String) -> Bool {
        !relative.isEmpty && !relative.hasPrefix("/")
            && !relative.split(separator: "/", omittingEmptySubsequences: false).contains { $0.isEmpty || $0 == "." || $0 == ".." }
    }
}
