package import HearthKit
package import HearthStore

/// What a call is answered with, in the callable protocol's shape (docs/callables.md#the-protocol):
/// `200 {"result": VALUE}`, or `{"error": {"status": CODE, "message": TEXT, "details": VALUE}}`
/// with the code's HTTP status.
package enum CallAnswer: Sendable, Equatable {
    case result(JSONValue)
    case error(CallError)

    /// The HTTP status the endpoint answers with.
    package var httpStatus: Int {
        switch self {
        case .result: 200
        case .error(let e): e.code.httpStatus
        }
    }

    /// `OK`, or the error's code: what the run record and the metrics keep.
    package var code: String {
        switch self {
        case .result: "OK"
        case .error(let e): e.code.rawValue
        }
    }

    /// The response body.
    package var body: JSONObject {
        switch self {
        case .result(let value):
            return JSONObject([("result", value)])
        case .error(let e):
            var error = JSONObject([("status", .string(e.code.rawValue)), ("message", .string(e.message))])
            if let details = e.details { error["details"] = details }
            return JSONObject([("error", .object(error))])
        }
    }

    /// The answer to a call whose run failed for a reason that is not the job's answer: the
    /// caller learns only the code; the reason is in the run record and the log.
    package static func failure(_ status: RunRecord.Status) -> CallAnswer {
        switch status {
        case .conflict: .error(CallError(.aborted, "the data changed while the call ran, too many times in a row; call again"))
        case .cancelled: .error(CallError(.deadlineExceeded, "the call did not finish within its timeout"))
        default: .error(CallError(.internal, "INTERNAL"))
        }
    }
}
