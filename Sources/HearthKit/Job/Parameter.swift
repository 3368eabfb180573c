/// A job parameter, declared once with its type, accepted values and default:
///
///     static let top = Parameter.integer("top", default: 100, in: 1...10_000, help: "users listed")
///     static let descriptor = JobDescriptor(…, parameters: [top], …)
///     init(parameters: JobParameters, …) { top = parameters[Self.top] }
///
/// The value a run gets is the command line's `--param`, else the config's `params`, else this
/// default; the config loader and the CLI check values against ``spec`` before anything runs.
public struct Parameter<Value: Sendable>: Sendable {
    /// What the config loader and the CLI check values against.
    public let spec: ParameterSpec
    public let defaultValue: Value
    private let decode: @Sendable (ParameterValue) -> Value?

    private init(_ spec: ParameterSpec, default defaultValue: Value, decode: @escaping @Sendable (ParameterValue) -> Value?) {
        self.spec = spec
        self.defaultValue = defaultValue
        self.decode = decode
    }

    public var name: String { spec.name }

    /// The value in `parameters`, or the default when the run has none.
    func value(in parameters: JobParameters) -> Value {
        parameters.values[spec.name].flatMap(decode) ?? defaultValue
    }
}

/// Anything a ``JobDescriptor`` lists as a parameter.
public protocol ParameterDeclaration: Sendable {
    var spec: ParameterSpec { get }
}

extension Parameter: ParameterDeclaration {}

extension Parameter where Value == Int64 {
    /// An integer, optionally within `range`.
    public static func integer(_ name: String, default value: Int64, in range: ClosedRange<Int64>? = nil, min: Int64? = nil, help: String) -> Self {
        let kind = ParameterKind.integer(min: range?.lowerBound ?? min, max: range?.upperBound)
        return Self(ParameterSpec(name, kind, default: .integer(value), help: help), default: value) {
            if case .integer(let i) = $0 { i } else { nil }
        }
    }
}

extension Parameter where Value == String {
    /// A string, optionally one of `allowed`.
    public static func string(_ name: String, default value: String, allowed: [String]? = nil, help: String) -> Self {
        Self(ParameterSpec(name, .string(allowed: allowed), default: .string(value), help: help), default: value) {
            if case .string(let s) = $0 { s } else { nil }
        }
    }

    /// An http(s) URL; the empty string means "none" and is the default.
    public static func url(_ name: String, help: String) -> Self {
        Self(ParameterSpec(name, .url, default: nil, help: help), default: "") {
            if case .string(let s) = $0 { s } else { nil }
        }
    }
}

extension Parameter where Value == [String] {
    /// A list of strings (comma-separated on the command line), each optionally one of `allowed`.
    public static func stringList(_ name: String, default value: [String], allowed: [String]? = nil, help: String) -> Self {
        Self(ParameterSpec(name, .stringList(allowed: allowed), default: .stringList(value), help: help), default: value) {
            if case .stringList(let l) = $0 { l } else { nil }
        }
    }
}

extension Parameter where Value == Duration {
    /// A duration like `"30s"`, `"10m"`, `"24h"` or `"7d"`.
    public static func duration(_ name: String, default value: Duration, help: String) -> Self {
        Self(ParameterSpec(name, .duration, default: .duration(value), help: help), default: value) {
            if case .duration(let d) = $0 { d } else { nil }
        }
    }
}

extension Parameter where Value == Bool {
    /// `true` or `false`.
    public static func boolean(_ name: String, default value: Bool, help: String) -> Self {
        Self(ParameterSpec(name, .boolean, default: .boolean(value), help: help), default: value) {
            if case .boolean(let b) = $0 { b } else { nil }
        }
    }
}

extension JobParameters {
    /// The run's value of `parameter` (its default when neither config nor command line set it).
    public subscript<Value>(_ parameter: Parameter<Value>) -> Value { parameter.value(in: self) }
}
