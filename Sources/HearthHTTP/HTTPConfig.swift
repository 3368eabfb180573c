public import Foundation

/// `[http]`: options of the outbound HTTP client.
public struct HTTPConfig: Sendable, Equatable {
    public var caFile: String?
    public var connectTimeout: Duration = .seconds(5)
    public var timeout: Duration = .seconds(15)
    public init() {}
}
