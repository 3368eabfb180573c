import Foundation
import Hummingbird
import HTTPTypes
import HearthKit

/// One action request's body, JSON (the API) or a form (the status page), read into fields
/// (docs/operations/api.md).
struct ActionRequest: Sendable {
    enum Kind: Sendable { case json, form }

    var kind: Kind
    /// Top-level fields: strings, numbers and booleans as text (`true` / `false`).
    var fields: [String: String] = [:]
    /// `params` of a JSON body, or the form's `param.NAME` fields.
    var params: [String: String] = [:]

    static let maxBody = 64 * 1024

    /// Reads the body; a ``ActionFailure`` (400) when it is not a JSON object or a form, or
    /// has a field not in `accepted`.
    static func read(_ request: inout Request, accepted: [String]) async throws -> ActionRequest {
        let type = request.headers[.contentType]?.lowercased() ?? ""
        let buffer: ByteBuffer
        do { buffer = try await request.collectBody(upTo: maxBody) } catch {
            throw ActionFailure(.contentTooLarge, "the body is larger than \(maxBody / 1024) KiB", field: nil, fix: "send a smaller JSON object")
        }
        let bytes = Array(buffer.readableBytesView)
        if type.hasPrefix("application/x-www-form-urlencoded") {
            var r = ActionRequest(kind: .form)
            for (k, v) in FormBody.parse(bytes) {
                if k.hasPrefix("param.") { r.params[String(k.dropFirst(6))] = v } else { r.fields[k] = v }
            }
            return r
        }
        var r = ActionRequest(kind: .json)
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { return r }
        guard !type.isEmpty, type.hasPrefix("application/json") else {
            throw ActionFailure(.unsupportedMediaType, "Content-Type \(type.isEmpty ? "(none)" : type) is not accepted", field: nil, fix: "send Content-Type: application/json with a JSON object")
        }
        guard case .object(let o)? = try? JSONParser.parse(bytes) else {
            throw ActionFailure(.badRequest, "the body is not a JSON object", field: nil, fix: "send a JSON object, e.g. {\"note\": \"…\"} or {}")
        }
        for (key, value) in o {
            guard accepted.contains(key) else {
                throw ActionFailure(.badRequest, "unknown field \(JSONWriter.quoted(key))", field: key, fix: accepted.isEmpty ? "send {} (this action takes no fields)" : "accepted here: \(accepted.joined(separator: ", "))")
            }
            if key == "params" {
                guard case .object(let p) = value else {
                    throw ActionFailure(.badRequest, "params must be an object of name: value", field: "params", fix: "e.g. {\"params\": {\"top\": 50}}")
                }
                for (name, v) in p {
                    guard let text = scalar(v) else {
                        throw ActionFailure(.badRequest, "params.\(name) must be a string, a number or a boolean", field: "params.\(name)", fix: "give the value as on the command line, e.g. \"50\"")
                    }
                    r.params[name] = text
                }
            } else {
                guard let text = scalar(value) else {
                    throw ActionFailure(.badRequest, "\(key) must be a string, a number or a boolean", field: key, fix: "see docs/operations/api.md")
                }
                r.fields[key] = text
            }
        }
        return r
    }

    static func scalar(_ v: JSONValue) -> String? {
        switch v {
        case .string(let s): return s
        case .bool(let b): return b ? "true" : "false"
        case .int(let i): return String(i)
        case .double(let d): return String(d)
        default: return nil
        }
    }

    /// A boolean field: JSON `true` / `false`, a checked form box (`on`), `1` / `0`.
    func flag(_ key: String) throws -> Bool {
        guard let v = fields[key] else { return false }
        switch v.lowercased() {
        case "true", "on", "1", "yes": return true
        case "false", "off", "0", "no", "": return false
        default: throw ActionFailure(.badRequest, "\(key) must be true or false, not \(JSONWriter.quoted(v))", field: key, fix: "send \"\(key)\": true or false")
        }
    }
}

/// An action refused or failed: the status, what went wrong, the field and the fix
/// (docs/operations/api.md#errors). Never a stack trace.
/// An operator request refused or failed: the one way the endpoint answers its JSON errors,
/// `{"error": MESSAGE, "field": FIELD, "fix": FIX}` with its status (docs/operations/api.md#errors).
/// Thrown from a handler, Hummingbird answers it (``response(from:context:)``); the actions
/// catch it first to audit it, and answer a browser's form with a page instead.
struct ActionFailure: HTTPResponseError, Sendable {
    var status: HTTPResponse.Status
    var message: String
    var field: String?
    var fix: String?

    init(_ status: HTTPResponse.Status, _ message: String, field: String?, fix: String?) {
        self.status = status
        self.message = message
        self.field = field
        self.fix = fix
    }

    var json: JSONObject {
        JSONObject([
            ("error", .string(message)), ("field", field.map { .string($0) } ?? .null), ("fix", fix.map { .string($0) } ?? .null),
        ])
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        jsonResponse()
    }

    func jsonResponse() -> Response {
        var headers = HTTPFields()
        if status == .unauthorized { headers[.wwwAuthenticate] = "Bearer" }
        return ActionRoutes.json(status, json, headers: headers)
    }
}

/// `application/x-www-form-urlencoded`: `a=1&b=x+y%21`.
enum FormBody {
    static func parse(_ bytes: [UInt8]) -> [(String, String)] {
        bytes.split(separator: UInt8(ascii: "&")).map { pair in
            let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            return (decode(parts[0]), parts.count > 1 ? decode(parts[1]) : "")
        }
    }

    static func decode(_ s: ArraySlice<UInt8>) -> String {
        var out: [UInt8] = []
        var i = s.startIndex
        while i < s.endIndex {
            let c = s[i]
            if c == UInt8(ascii: "+") {
                out.append(0x20)
            } else if c == UInt8(ascii: "%"), i + 2 < s.endIndex, let h = hex(s[i + 1]), let l = hex(s[i + 2]) {
                out.append(h << 4 | l)
                i += 2
            } else {
                out.append(c)
            }
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func hex(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
