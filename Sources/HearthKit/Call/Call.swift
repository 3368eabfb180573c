/// A call from an app (a Firebase callable, docs/callables.md): what the caller sent and who
/// the caller is. A callable job reads it from ``JobContext/call`` and answers with
/// ``JobContext/answer(_:)`` or by throwing a ``CallError``.
public struct Call: Sendable, Equatable {
    /// The request's `data`: any JSON value (`null` when the app sent `data: null`).
    public var data: JSONValue
    /// The verified ID token's `sub`; nil for a call without a token (a job whose `auth` is
    /// `"optional"`).
    public var uid: String?
    /// The verified ID token's claims (empty without a token).
    public var claims: JSONObject

    public init(data: JSONValue, uid: String? = nil, claims: JSONObject = JSONObject()) {
        self.data = data
        self.uid = uid
        self.claims = claims
    }

    /// The caller's uid, or ``CallError/Code/unauthenticated`` when the call came without a
    /// token.
    public func requireUID() throws(CallError) -> String {
        guard let uid, !uid.isEmpty else { throw CallError(.unauthenticated, "this function needs a signed-in user") }
        return uid
    }

    /// `data` as an object (fields that are `null` count as absent), or
    /// ``CallError/Code/invalidArgument`` with `details.reason` = `reason`.
    public func dataObject(reason: String = "invalid_request") throws(CallError) -> JSONObject {
        guard case .object(let object) = data else {
            throw CallError(.invalidArgument, "data must be a JSON object", reason: reason)
        }
        return object
    }
}

/// Whether a callable job needs an ID token (`[jobs.NAME] auth`).
public enum CallAuth: String, Sendable, CaseIterable {
    /// A call without a valid token is answered `401 UNAUTHENTICATED` before the job runs.
    case required
    /// A call without a token runs with ``Call/uid`` nil; a token that is present must be valid.
    case optional
}
