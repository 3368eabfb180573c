import HearthKit
import HearthTOML

/// The keys of callable jobs (docs/callables.md#configuration).
extension ConfigLoader {
    /// `[jobs.NAME] callable` and `auth`.
    static func readCallable(_ t: inout TableReader, into jc: inout JobConfig, file: String) throws(ConfigError) {
        if let b = try t.bool("callable") { jc.callable = b }
        if let a = try t.string("auth") {
            guard let auth = CallAuth(rawValue: a) else {
                throw ConfigError(file: file, line: t.table["auth"]?.line, "[jobs.\(jc.name)] auth: \(JSONWriter.quoted(a)) is not accepted; accepted: \"required\" (a call needs an ID token), \"optional\"")
            }
            jc.callAuth = auth
        }
    }

    /// `[callable] origins`: each `scheme://host[:port]`, as a browser sends it in `Origin`.
    static func origins(_ values: [String], line: Int?, file: String) throws(ConfigError) -> [String] {
        for origin in values {
            let rest = origin.hasPrefix("https://") ? origin.dropFirst(8) : origin.hasPrefix("http://") ? origin.dropFirst(7) : nil
            guard let rest, !rest.isEmpty, !rest.contains("/"), !rest.contains(" ") else {
                throw ConfigError(file: file, line: line, "[callable] origins: \(JSONWriter.quoted(origin)) is not an origin; write scheme://host[:port] with no path, e.g. \"https://app.example.com\" or \"http://localhost:5173\"")
            }
        }
        return values
    }
}
