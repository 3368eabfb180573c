package import Foundation
package import HearthKit

/// Firebase Cloud Messaging, HTTP v1 API (docs/push.md): one `messages:send` request per device
/// token, authorised by an OAuth access token minted from a service account.
///
/// Request: `POST {endpoint}/v1/projects/{project_id}/messages:send` with
/// `{"message": {"token", "notification": {"title", "body"}, "data": {…}, "apns": {"payload":
/// {"aps": {"badge": N}}}}}` (`data` only when non-empty, `apns` only with a badge).
///
/// A 401 forgets the access token and re-mints it once. Results are classified from the
/// FCM error's `details[].errorCode` and the HTTP status (see ``classify(status:body:retryAfter:token:)``).
/// Transport failures (timeouts, refused or reset connections, TLS failures) are retried.
package struct FCMProvider: PushProvider {
    package let name = "fcm"
    package let account: ServiceAccount
    /// `scheme://host[:port]` without a trailing slash.
    package let endpoint: String
    package let tokens: OAuthTokenCache
    private let http: any HTTPTransport
    private let sendURL: String
    private let now: @Sendable () -> Date

    /// - Parameters:
    ///   - endpoint: the FCM API base URL (`https://fcm.googleapis.com`).
    ///   - tokenURI: overrides the service account's `token_uri`.
    package init(
        account: ServiceAccount, endpoint: String = "https://fcm.googleapis.com", tokenURI: String? = nil, http: any HTTPTransport,
        failureHoldoff: Duration = .seconds(5), now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.account = account
        var e = endpoint
        while e.hasSuffix("/") { e.removeLast() }
        self.endpoint = e
        self.http = http
        self.now = now
        self.tokens = OAuthTokenCache(account: account, tokenURI: tokenURI, http: http, failureHoldoff: failureHoldoff, now: now)
        self.sendURL = "\(e)/v1/projects/\(FCMProvider.pathSegment(account.projectID))/messages:send"
    }

    package func send(_ push: PushNotification, to token: String) async -> PushSendResult {
        let body = JSONWriter.compactBytes(.object(FCMProvider.message(push, token: token)))
        var reminted = false
        while true {
            let access: String
            do { access = try await tokens.token() } catch {
                return .retry(after: error.retryAfter, reason: "FCM: no access token: \(error.reason)")
            }
            let request = HTTPRequest(
                method: "POST", url: sendURL,
                headers: [("authorization", "Bearer \(access)"), ("content-type", "application/json; charset=utf-8")],
                body: body)
            let response: HTTPResponse
            do { response = try await http.send(request) } catch {
                return FCMProvider.transportFailure(error)
            }
            if response.status == 401, !reminted, FCMProvider.errorInfo(response.body).errorCode != "THIRD_PARTY_AUTH_ERROR" {
                // The access token was revoked or expired early: mint a new one, once.
                await tokens.invalidate(access)
                reminted = true
                continue
            }
            return FCMProvider.classify(
                status: response.status, body: response.body,
                retryAfter: RetryAfter.delay(response.header("retry-after"), now: now()), token: token, secrets: [access])
        }
    }

    /// The `{"message": …}` request body for one token.
    package static func message(_ push: PushNotification, token: String) -> JSONObject {
        var message: [(String, JSONValue)] = [
            ("token", .string(token)),
            ("notification", .object(JSONObject([("title", .string(push.title)), ("body", .string(push.body))]))),
        ]
        if !push.data.isEmpty {
            message.append(("data", .object(JSONObject(push.data.keys.sorted().map { ($0, .string(push.data[$0]!)) }))))
        }
        if let badge = push.badge {
            message.append(("apns", .object(JSONObject([("payload", .object(JSONObject([("aps", .object(JSONObject([("badge", .int(Int64(badge)))])))])))]))))
        }
        return JSONObject([("message", .object(JSONObject(message)))])
    }

    /// Timeouts, refused or broken connections, TLS failures and cancellation are retried
    /// (the message is fine; the network or the set-up is not); a request that cannot be
    /// built (a bad endpoint URL) is a permanent failure.
    static func transportFailure(_ error: HTTPTransportError) -> PushSendResult {
        switch error {
        case .invalidRequest: .permanentFailure(reason: "FCM: \(error)")
        default: .retry(after: nil, reason: "FCM: \(error)")
        }
    }

    static func pathSegment(_ s: String) -> String {
        var out = ""
        for c in s.unicodeScalars {
            if c.isASCII, CharacterSet.alphanumerics.contains(c) || "-._~".unicodeScalars.contains(c) {
                out.unicodeScalars.append(c)
            } else {
                for b in String(c).utf8 { out += String(format: "%%%02X", b) }
            }
        }
        return out
    }
}

extension FCMProvider {
    /// `[push.fcm]` (one line in ``PushProviders/builtIn``): the service account from
    /// `serviceAccountFile` or `serviceAccountEnv`, the endpoint and the token URI.
    package struct Settings: PushProviderSettings {
        package static let kind = PushProviderKind.fcm
        package var serviceAccountFile: String?
        package var serviceAccountEnv: String?
        package var endpoint = "https://fcm.googleapis.com"
        /// Overrides the service account's `token_uri` (tests).
        package var tokenURI: String?

        package init() {}

        package init<Table: PushSettingsTable>(table t: inout Table) throws(Table.Failure) {
            serviceAccountFile = try t.secretFile("serviceAccountFile")
            serviceAccountEnv = try t.string("serviceAccountEnv")
            if let e = try t.url("endpoint") { endpoint = e }
            tokenURI = try t.url("tokenUri")
        }

        package var missing: String? {
            serviceAccountFile == nil && serviceAccountEnv == nil
                ? "[push.fcm] serviceAccountFile (the service account JSON downloaded from the Firebase console) or serviceAccountEnv" : nil
        }

        package var files: [String] { [serviceAccountFile].compactMap { $0 } }

        package func makeProvider(http: any HTTPTransport, environment: [String: String]) throws(PushSetupError) -> any PushProvider {
            let (bytes, source) = try PushProviders.credential(
                file: serviceAccountFile, env: serviceAccountEnv, environment: environment,
                keys: ("[push.fcm] serviceAccountFile", "[push.fcm] serviceAccountEnv"), inlineMarker: "{")
            let account = try ServiceAccount.parse(bytes, source: source)
            return FCMProvider(account: account, endpoint: endpoint, tokenURI: tokenURI, http: http)
        }
    }
}
