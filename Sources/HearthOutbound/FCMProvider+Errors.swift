import HearthKit
/// Classifying FCM HTTP v1 error responses.
///
/// An error body looks like `{"error": {"code": 404, "message": "…", "status": "NOT_FOUND",
/// "details": [{"@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode":
/// "UNREGISTERED"}]}}`; a request FCM could not parse carries a `google.rpc.BadRequest` detail
/// with `fieldViolations[].field`.
extension FCMProvider {
    /// What an FCM error body says.
    struct ErrorInfo: Equatable {
        /// `details[].errorCode` of the `FcmError` detail, else the canonical `status`.
        var errorCode: String?
        var message: String?
        /// `fieldViolations[].field` of a `BadRequest` detail.
        var fields: [String] = []
        /// Whether an `FcmError` detail was present.
        var fcmDetail = false
    }

    static func errorInfo(_ body: [UInt8]) -> ErrorInfo {
        guard !body.isEmpty, let root = (try? JSONParser.parse(body))?.objectValue, let error = root["error"]?.objectValue else {
            return ErrorInfo()
        }
        var info = ErrorInfo(errorCode: error["status"]?.stringValue, message: error["message"]?.stringValue)
        for detail in error["details"]?.arrayValue ?? [] {
            guard let d = detail.objectValue else { continue }
            let type = d["@type"]?.stringValue ?? ""
            if type.hasSuffix("google.firebase.fcm.v1.FcmError"), let code = d["errorCode"]?.stringValue {
                info.errorCode = code
                info.fcmDetail = true
            } else if type.hasSuffix("google.rpc.BadRequest") {
                for v in d["fieldViolations"]?.arrayValue ?? [] {
                    if let f = v.objectValue?["field"]?.stringValue { info.fields.append(f) }
                }
            }
        }
        return info
    }

    /// The result of one `messages:send` response:
    ///
    /// - 2xx: delivered.
    /// - `UNREGISTERED` (404): the app was uninstalled or the token expired → remove the token.
    ///   A 404 without that code (a wrong `project_id`) is a permanent failure: tokens are only
    ///   removed when FCM says the token itself is the problem.
    /// - `INVALID_ARGUMENT` (400) about the token (a `message.token` field violation, or an
    ///   `FcmError` detail whose message mentions the registration token, with no other field
    ///   named) → remove the token; about anything else (a bad payload) → permanent failure.
    /// - `QUOTA_EXCEEDED` (429), `UNAVAILABLE` (503), `INTERNAL` (500), other 5xx, 408 → retry,
    ///   honouring `Retry-After`.
    /// - 401 (after the one re-mint) → retry: the credentials, not the message, are wrong.
    /// - `THIRD_PARTY_AUTH_ERROR`, `SENDER_ID_MISMATCH`, other 4xx, 1xx/3xx → permanent failure.
    static func classify(status: Int, body: [UInt8], retryAfter: Duration?, token: String, secrets: [String] = []) -> PushSendResult {
        if (200..<300).contains(status) { return .delivered }
        let info = errorInfo(body)
        let code = info.errorCode ?? "HTTP \(status)"
        var reason = "FCM \(status) \(code)"
        if let m = info.message, !m.isEmpty { reason += ": " + m }
        reason = PushRedaction.clean(reason, hiding: [token] + secrets)

        if info.errorCode == "UNREGISTERED" { return .removeToken(reason: reason) }
        if status == 400 || info.errorCode == "INVALID_ARGUMENT" {
            let tokenField = info.fields.contains { $0 == "message.token" || $0 == "token" }
            let otherField = info.fields.contains { $0 != "message.token" && $0 != "token" }
            let mentionsToken = (info.message ?? "").lowercased().contains("registration token")
            if tokenField || (info.fcmDetail && info.errorCode == "INVALID_ARGUMENT" && !otherField && mentionsToken) {
                return .removeToken(reason: reason)
            }
            return .permanentFailure(reason: reason)
        }
        if status == 429 || info.errorCode == "QUOTA_EXCEEDED" || info.errorCode == "UNAVAILABLE" || info.errorCode == "INTERNAL"
            || status >= 500 || status == 408 {
            return .retry(after: retryAfter, reason: reason)
        }
        if status == 401, info.errorCode != "THIRD_PARTY_AUTH_ERROR" {
            return .retry(after: retryAfter, reason: reason + " (a freshly minted access token was refused; check that the service account has the Firebase Cloud Messaging API Admin role)")
        }
        if (300..<400).contains(status) { return .permanentFailure(reason: reason + " (redirects are not followed; check [push.fcm] endpoint)") }
        if status == 404 { return .permanentFailure(reason: reason + " (check the service account's project_id and [push.fcm] endpoint)") }
        return .permanentFailure(reason: reason)
    }
}
