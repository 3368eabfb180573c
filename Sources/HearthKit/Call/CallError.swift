/// A callable job's coded answer: nothing is written, and the caller gets
/// `{"error": {"status": CODE, "message": MESSAGE, "details": DETAILS}}` with the code's HTTP
/// status (docs/callables.md#errors).
public struct CallError: Error, Sendable, Equatable, CustomStringConvertible {
    public var code: Code
    public var message: String
    /// Any JSON value the app can read (`details: {"reason": "insufficient_points"}`).
    public var details: JSONValue?

    public init(_ code: Code, _ message: String, details: JSONValue? = nil) {
        self.code = code
        self.message = message
        self.details = details
    }

    /// An error whose details are `{"reason": reason}`, the shape the apps' jobs answer with.
    public init(_ code: Code, _ message: String, reason: String) {
        self.init(code, message, details: .object(JSONObject([("reason", .string(reason))])))
    }

    /// `details.reason`, when the details carry one.
    public var reason: String? {
        if case .object(let o)? = details, case .string(let r)? = o["reason"] { return r }
        return nil
    }

    public var description: String {
        reason.map { "\(code.rawValue): \(message) (\($0))" } ?? "\(code.rawValue): \(message)"
    }

    /// The callable protocol's status codes (Google's canonical codes), each with the HTTP
    /// status the protocol answers it with.
    public enum Code: String, Sendable, CaseIterable {
        case cancelled = "CANCELLED"
        case unknown = "UNKNOWN"
        case invalidArgument = "INVALID_ARGUMENT"
        case deadlineExceeded = "DEADLINE_EXCEEDED"
        case notFound = "NOT_FOUND"
        case alreadyExists = "ALREADY_EXISTS"
        case permissionDenied = "PERMISSION_DENIED"
        case unauthenticated = "UNAUTHENTICATED"
        case resourceExhausted = "RESOURCE_EXHAUSTED"
        case failedPrecondition = "FAILED_PRECONDITION"
        case aborted = "ABORTED"
        case outOfRange = "OUT_OF_RANGE"
        case unimplemented = "UNIMPLEMENTED"
        case `internal` = "INTERNAL"
        case unavailable = "UNAVAILABLE"
        case dataLoss = "DATA_LOSS"

        public var httpStatus: Int {
            switch self {
            case .cancelled: 499
            case .unknown, .internal, .dataLoss: 500
            case .invalidArgument, .failedPrecondition, .outOfRange: 400
            case .deadlineExceeded: 504
            case .notFound: 404
            case .alreadyExists, .aborted: 409
            case .permissionDenied: 403
            case .unauthenticated: 401
            case .resourceExhausted: 429
            case .unimplemented: 501
            case .unavailable: 503
            }
        }
    }
}
