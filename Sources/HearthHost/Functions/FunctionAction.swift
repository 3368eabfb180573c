package import HearthKit
package import Logging

/// One line of a command job's stdout, validated (docs/functions.md#output).
package enum FunctionAction: Sendable, Equatable {
    case create(DocumentPath, JSONObject)
    /// `update` with `data`: the whole document.
    case replace(DocumentPath, JSONObject)
    /// `update` with `merge` / `remove`: top-level fields set and removed.
    case merge(DocumentPath, set: JSONObject, remove: [String])
    case delete(DocumentPath)
    case push(id: String, userID: String, title: String, body: String, data: JSONObject, badge: Int?)
    case webhook(id: String, event: String, data: JSONObject)
    case warn(String)
    case log(Logger.Level, String)
    /// A call's result (`{"op": "result", "value": …}`).
    case result(JSONValue)
    /// A call refused with a code (`{"op": "error", "code": …, "message": …, "details": …}`):
    /// nothing the function wrote is committed.
    case refuse(CallError)

    /// Parses and checks one line against the job's declared `writes` and the config's
    /// notification types. The thrown message says what was expected; the caller adds the
    /// line number.
    package static func parse(_ line: some Collection<UInt8>, writes: [String], notificationTypes: [String]) throws(LineError) -> FunctionAction {
        let value: JSONValue
        do { value = try JSONParser.parse(line) } catch {
            throw LineError("not valid JSON (\(error)); every line must be one JSON object")
        }
        guard case .object(var o) = value else {
            throw LineError("expected a JSON object, found \(value.typeName)")
        }
        guard case .string(let op)? = o["op"] else {
            throw LineError("missing \"op\": expected one of \(ops.map { JSONWriter.quoted($0) }.joined(separator: ", "))")
        }
        o["op"] = nil
        var r = LineReader(object: o, op: op)
        let action: FunctionAction
        switch op {
        case "create":
            let path = try r.path(writes: writes)
            let data = try r.document("data", required: true)!
            try checkNotification(path, data, types: notificationTypes)
            action = .create(path, data)
        case "update":
            let path = try r.path(writes: writes)
            if let data = try r.document("data", required: false) {
                guard r.object["merge"] == nil, r.object["remove"] == nil else {
                    throw LineError("update: give either \"data\" (the whole document) or \"merge\"/\"remove\" (fields), not both")
                }
                try checkNotification(path, data, types: notificationTypes)
                action = .replace(path, data)
            } else {
                let set = try r.object("merge") ?? JSONObject()
                let remove = try r.strings("remove") ?? []
                guard !set.keys.isEmpty || !remove.isEmpty else {
                    throw LineError("update: expected \"data\" (the whole document) or \"merge\" (an object of fields to set) or \"remove\" (field names)")
                }
                action = .merge(path, set: set, remove: remove)
            }
        case "delete":
            action = .delete(try r.path(writes: writes))
        case "push":
            let id = try r.messageID()
            guard let user = try r.string("userId"), DocumentPath.isValid(name: user) else {
                throw LineError("push: \"userId\" must be a user document id")
            }
            guard let title = try r.string("title"), !title.isEmpty else { throw LineError("push: \"title\" must be a non-empty string") }
            let body = try r.string("body") ?? ""
            let data = try r.object("data") ?? JSONObject()
            for (k, v) in data {
                guard case .string = v else { throw LineError("push: \"data\".\(k) must be a string (FCM and APNs carry string values), found \(v.typeName)") }
            }
            var badge: Int?
            if let b = r.object["badge"] {
                guard case .int(let i) = b, i >= 0, i <= 99_999 else { throw LineError("push: \"badge\" must be an integer from 0 to 99999, found \(b.foundDescription)") }
                badge = Int(i)
                r.object["badge"] = nil
            }
            action = .push(id: id, userID: user, title: title, body: body, data: data, badge: badge)
        case "webhook":
            let id = try r.messageID()
            guard let event = try r.string("event"), isEventType(event) else {
                throw LineError("webhook: \"event\" must be a dotted lower-case event type like \"gig.expired\"")
            }
            action = .webhook(id: id, event: event, data: try r.object("data") ?? JSONObject())
        case "warn":
            guard let m = try r.string("message") else { throw LineError("warn: expected \"message\", a string") }
            action = .warn(m)
        case "log":
            guard let m = try r.string("message") else { throw LineError("log: expected \"message\", a string") }
            let levelName = try r.string("level") ?? "info"
            guard let level = Logger.Level(rawValue: levelName) else {
                throw LineError("log: \"level\" must be one of trace, debug, info, notice, warning, error, critical; found \(JSONWriter.quoted(levelName))")
            }
            action = .log(level, m)
        case "result":
            guard let value = r.take("value") else { throw LineError("result: expected \"value\", the call's result (any JSON value)") }
            action = .result(value)
        case "error":
            let codeName = try r.string("code") ?? ""
            guard let code = CallError.Code(rawValue: codeName) else {
                throw LineError("error: \"code\" must be one of \(CallError.Code.allCases.map { JSONWriter.quoted($0.rawValue) }.joined(separator: ", ")), found \(JSONWriter.quoted(codeName))")
            }
            guard let message = try r.string("message") else { throw LineError("error: expected \"message\", a string the caller sees") }
            action = .refuse(CallError(code, message, details: r.take("details")))
        default:
            throw LineError("unknown op \(JSONWriter.quoted(op)); expected one of \(ops.map { JSONWriter.quoted($0) }.joined(separator: ", "))")
        }
        if let extra = r.object.keys.first {
            throw LineError("\(op): unknown key \(JSONWriter.quoted(extra)) (see docs/functions.md#output for the keys of each op)")
        }
        return action
    }

    static let ops = ["create", "update", "delete", "push", "webhook", "warn", "log", "result", "error"]

    /// A notification must have a type the apps can decode (`[notifications].types`).
    private static func checkNotification(_ path: DocumentPath, _ data: JSONObject, types: [String]) throws(LineError) {
        guard path.collection == "notifications", !types.isEmpty else { return }
        guard case .string(let t)? = data["type"], types.contains(t) else {
            throw LineError("\(path): a notification's \"type\" must be one of [notifications].types (\(types.joined(separator: ", "))), found \(data["type"]?.foundDescription ?? "none")")
        }
    }

    private static func isEventType(_ s: String) -> Bool {
        let parts = s.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count >= 2 && s.count <= 100 && parts.allSatisfy { p in
            !p.isEmpty && p.utf8.allSatisfy { ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 95 || $0 == 45 }
        }
    }

    /// What was wrong with a line.
    package struct LineError: Error, Sendable {
        package var message: String
        init(_ message: String) { self.message = message }
    }
}

/// Takes the keys of one output line, so that the keys left over are unknown ones.
private struct LineReader {
    var object: JSONObject
    let op: String

    mutating func take(_ key: String) -> JSONValue? {
        defer { object[key] = nil }
        return object[key]
    }

    mutating func string(_ key: String) throws(FunctionAction.LineError) -> String? {
        switch take(key) {
        case nil: return nil
        case .string(let s)?: return s
        case let v?: throw FunctionAction.LineError("\(op): \"\(key)\" must be a string, found \(v.foundDescription)")
        }
    }

    mutating func object(_ key: String) throws(FunctionAction.LineError) -> JSONObject? {
        switch take(key) {
        case nil: return nil
        case .object(let o)?: return o
        case let v?: throw FunctionAction.LineError("\(op): \"\(key)\" must be an object, found \(v.foundDescription)")
        }
    }

    mutating func strings(_ key: String) throws(FunctionAction.LineError) -> [String]? {
        switch take(key) {
        case nil: return nil
        case .array(let items)?:
            var out: [String] = []
            for i in items {
                guard case .string(let s) = i else { throw FunctionAction.LineError("\(op): \"\(key)\" must be an array of strings") }
                out.append(s)
            }
            return out
        case let v?: throw FunctionAction.LineError("\(op): \"\(key)\" must be an array of strings, found \(v.foundDescription)")
        }
    }

    /// `path`: a valid document path in a collection the job declares in `writes`.
    mutating func path(writes: [String]) throws(FunctionAction.LineError) -> DocumentPath {
        guard let text = try string("path") else { throw FunctionAction.LineError("\(op): expected \"path\", e.g. \"gigs/g1\"") }
        let path: DocumentPath
        do { path = try DocumentPath(parsing: text) } catch {
            throw FunctionAction.LineError("\(op): \"path\" \(JSONWriter.quoted(text)): \(error)")
        }
        let pattern = JobDescriptor.writePattern(of: path)
        guard writes.contains(pattern) else {
            let list = writes.map { JSONWriter.quoted($0) }.joined(separator: ", ")
            throw FunctionAction.LineError("\(op) \(path): \(JSONWriter.quoted(pattern)) is not in the job's writes [\(list)]; add it to `writes` in its [jobs] table")
        }
        return path
    }

    /// `data`: a document of at most 1 MiB.
    mutating func document(_ key: String, required: Bool) throws(FunctionAction.LineError) -> JSONObject? {
        guard let o = try object(key) else {
            if required { throw FunctionAction.LineError("\(op): expected \"\(key)\", the document (a JSON object)") }
            return nil
        }
        let size = JSONWriter.document(o).count
        guard size <= 1 << 20 else {
            throw FunctionAction.LineError("\(op): the document is \(size) bytes; the maximum is 1 MiB (1048576 bytes)")
        }
        return o
    }

    /// `id`: the message's stable id (the same logical message must get the same id on every
    /// run, so that a re-run never sends it twice).
    mutating func messageID() throws(FunctionAction.LineError) -> String {
        guard let id = try string("id"), !id.isEmpty, id.count <= 200,
              id.utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) || $0 == 45 || $0 == 95 || $0 == 46 || $0 == 58 })
        else {
            throw FunctionAction.LineError("\(op): expected \"id\", a stable id of 1–200 characters from A–Z a–z 0–9 - _ . : (the same message must get the same id on every run)")
        }
        return id
    }
}
