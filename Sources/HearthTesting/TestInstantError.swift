/// A ``TestJobContext`` instant that is not ISO 8601.
public struct TestInstantError: Error, Sendable, CustomStringConvertible {
    public var text: String
    public var description: String { "\"\(text)\" is not an ISO 8601 instant (e.g. 2026-11-18T12:00:00Z)" }
}
