import Foundation

/// The declared type of a job parameter.
public enum ParameterKind: Sendable, Equatable {
    case integer(min: Int64? = nil, max: Int64? = nil)
    case string(allowed: [String]? = nil)
    case stringList(allowed: [String]? = nil)
    case duration
    case boolean
    /// An http(s) URL, or empty for "none".
    case url

    public var accepted: String {
        switch self {
        case .integer(let lo, let hi):
            switch (lo, hi) {
            case (let lo?, let hi?): return "an integer from \(lo) to \(hi)"
            case (let lo?, nil): return "an integer ≥ \(lo)"
            case (nil, let hi?): return "an integer ≤ \(hi)"
            default: return "an integer"
            }
        case .string(let allowed?): return "one of " + allowed.map { JSONWriter.quoted($0) }.joined(separator: ", ")
        case .string: return "a string"
        case .stringList(let allowed?): return "a list of " + allowed.map { JSONWriter.quoted($0) }.joined(separator: ", ") + " (comma-separated on the command line)"
        case .stringList: return "a list of strings (comma-separated on the command line)"
        case .duration: return "a duration like \"30s\", \"10m\", \"24h\" or \"7d\""
        case .boolean: return "true or false"
        case .url: return "an http:// or https:// URL"
        }
    }
}

/// A parameter's value.
public enum ParameterValue: Sendable, Equatable, CustomStringConvertible {
    case integer(Int64)
    case string(String)
    case stringList([String])
    case duration(Duration)
    case boolean(Bool)

    public var description: String {
        switch self {
        case .integer(let i): String(i)
        case .string(let s): s
        case .stringList(let l): l.joined(separator: ",")
        case .duration(let d): DurationFormat.format(d)
        case .boolean(let b): String(b)
        }
    }
}

/// One declared parameter as the config loader and the CLI see it: name, accepted values,
/// default. Jobs declare parameters with the typed ``Parameter``.
public struct ParameterSpec: Sendable {
    public var name: String
    public var kind: ParameterKind
    public var defaultValue: ParameterValue?
    public var help: String

    public init(_ name: String, _ kind: ParameterKind, default defaultValue: ParameterValue?, help: String) {
        self.name = name
        self.kind = kind
        self.defaultValue = defaultValue
        self.help = help
    }

    /// Parses a `--param name=value` string.
    public func parse(_ text: String) throws(ParameterError) -> ParameterValue {
        let fail = ParameterError(parameter: name, value: text, accepted: kind.accepted)
        switch kind {
        case .integer:
            guard let i = Int64(text.trimmingCharacters(in: .whitespaces)) else { throw fail }
            return try validate(.integer(i))
        case .string: return try validate(.string(text))
        case .stringList:
            let items = text.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            return try validate(.stringList(items))
        case .duration:
            guard let d = DurationFormat.parse(text) else { throw fail }
            return .duration(d)
        case .boolean:
            switch text.lowercased() {
            case "true", "yes", "1": return .boolean(true)
            case "false", "no", "0": return .boolean(false)
            default: throw fail
            }
        case .url: return try validate(.string(text))
        }
    }

    /// Checks a value (from config or the command line) against the declared kind.
    public func validate(_ value: ParameterValue) throws(ParameterError) -> ParameterValue {
        let fail = ParameterError(parameter: name, value: value.description, accepted: kind.accepted)
        switch (kind, value) {
        case (.integer(let lo, let hi), .integer(let i)):
            if let lo, i < lo { throw fail }
            if let hi, i > hi { throw fail }
            return value
        case (.string(let allowed), .string(let s)):
            if let allowed, !allowed.contains(s) { throw fail }
            return value
        case (.stringList(let allowed), .stringList(let l)):
            if let allowed, let bad = l.first(where: { !allowed.contains($0) }) {
                throw ParameterError(parameter: name, value: bad, accepted: kind.accepted)
            }
            return value
        case (.stringList, .string(let s)):
            return try validate(.stringList([s]))
        case (.duration, .duration): return value
        case (.duration, .string(let s)):
            guard let d = DurationFormat.parse(s) else { throw fail }
            return .duration(d)
        case (.boolean, .boolean): return value
        case (.url, .string(let s)):
            if s.isEmpty { return value }
            guard s.hasPrefix("http://") || s.hasPrefix("https://"), s.count > 8 else { throw fail }
            return value
        default: throw fail
        }
    }
}

/// A bad parameter value, with what is accepted.
public struct ParameterError: Error, Sendable, CustomStringConvertible {
    public var parameter: String
    public var value: String
    public var accepted: String
    public var description: String {
        "parameter \(JSONWriter.quoted(parameter)): invalid value \(JSONWriter.quoted(value)); accepted: \(accepted)"
    }
}

/// The validated parameters of one run.
public struct JobParameters: Sendable {
    public private(set) var values: [String: ParameterValue]

    public init(_ values: [String: ParameterValue] = [:]) { self.values = values }


    /// Defaults, then config values, then command-line values; each checked against `specs`.
    public static func resolve(
        specs: [ParameterSpec], config: [String: ParameterValue], commandLine: [String: String]
    ) throws(ParameterError) -> JobParameters {
        var values: [String: ParameterValue] = [:]
        for spec in specs { if let d = spec.defaultValue { values[spec.name] = d } }
        let known = specs.map(\.name)
        for (k, v) in config {
            guard let spec = specs.first(where: { $0.name == k }) else {
                throw ParameterError(parameter: k, value: v.description, accepted: "no such parameter; this job takes " + (known.isEmpty ? "none" : known.joined(separator: ", ")))
            }
            values[k] = try spec.validate(v)
        }
        for (k, v) in commandLine {
            guard let spec = specs.first(where: { $0.name == k }) else {
                throw ParameterError(parameter: k, value: v, accepted: "no such parameter; this job takes " + (known.isEmpty ? "none" : known.joined(separator: ", ")))
            }
            values[k] = try spec.parse(v)
        }
        return JobParameters(values)
    }
}
