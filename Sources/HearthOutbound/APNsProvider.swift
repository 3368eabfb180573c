package import Crypto
package import Foundation
package import HearthKit

/// Apple Push Notification service over HTTP/2 with token-based authentication (docs/push.md).
///
/// One `POST {endpoint}/3/device/{token}` per device token with headers `authorization:
/// bearer <provider token>`, `apns-topic` (the app's bundle id), `apns-push-type: alert`,
/// `apns-priority`, `apns-expiration` (Unix seconds; 0 = deliver once or drop) and `apns-id`
/// (a UUID derived from the message id and the token, so a retried push keeps its id).
/// Body: `{"aps": {"alert": {"title", "body"}, "badge"?}, …data}` (data keys at the top level,
/// except `aps`).
///
/// Results: 200 delivered; 410 (`Unregistered`, `ExpiredToken`) and 400 `BadDeviceToken` →
/// remove the token; 403 `ExpiredProviderToken` / `InvalidProviderToken` → sign a new provider
/// token and try once more, then retry later; 429 and 5xx → retry (honouring `Retry-After`);
/// anything else → permanent failure. Transport failures are retried.
package struct APNsProvider: PushProvider {
    package let name = "apns"
    /// `scheme://host[:port]` without a trailing slash.
    package let endpoint: String
    package let topic: String
    package let priority: Int
    /// How long APNs keeps trying an offline device; zero sends `apns-expiration: 0`.
    package let expiration: Duration
    package let providerToken: APNsProviderToken
    private let http: any HTTPTransport
    private let now: @Sendable () -> Date

    package init(
        key: P256.Signing.PrivateKey, keyID: String, teamID: String, topic: String, endpoint: String = "https://api.push.apple.com",
        priority: Int = 10, expiration: Duration = .seconds(86_400), http: any HTTPTransport, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        var e = endpoint
        while e.hasSuffix("/") { e.removeLast() }
        self.endpoint = e
        self.topic = topic
        self.priority = priority
        self.expiration = expiration
        self.http = http
        self.now = now
        self.providerToken = APNsProviderToken(key: key, keyID: keyID, teamID: teamID, now: now)
    }

    /// Builds the provider from the `.p8` key's PEM text; `source` names where it came from (a
    /// file or `$VARIABLE`) in the error, which never shows the key.
    package init(
        keyPEM: String, source: String, keyID: String, teamID: String, topic: String, endpoint: String = "https://api.push.apple.com",
        priority: Int = 10, expiration: Duration = .seconds(86_400), http: any HTTPTransport, now: @escaping @Sendable () -> Date = { Date() }
    ) throws(PushSetupError) {
        let key: P256.Signing.PrivateKey
        do { key = try P256.Signing.PrivateKey(pemRepresentation: keyPEM) } catch {
            throw PushSetupError("\(source): not a PEM P-256 private key; use the AuthKey_<keyId>.p8 file downloaded from the Apple developer account (Keys, with Apple Push Notifications service enabled)")
        }
        self.init(key: key, keyID: keyID, teamID: teamID, topic: topic, endpoint: endpoint, priority: priority, expiration: expiration, http: http, now: now)
    }

    package func send(_ push: PushNotification, to token: String) async -> PushSendResult {
        let body = JSONWriter.compactBytes(.object(APNsProvider.payload(push)))
        let url = "\(endpoint)/3/device/\(FCMProvider.pathSegment(token))"
        let expiry = expiration <= .zero ? "0" : String(Int64(now().timeIntervalSince1970) + expiration.components.seconds)
        var resigned = false
        while true {
            let bearer: String
            do { bearer = try providerToken.token() } catch {
                return .permanentFailure(reason: "APNs: \(error)")
            }
            let request = HTTPRequest(
                method: "POST", url: url,
                headers: [
                    ("authorization", "bearer \(bearer)"), ("apns-topic", topic), ("apns-push-type", "alert"),
                    ("apns-priority", String(priority)), ("apns-expiration", expiry),
                    ("apns-id", APNsProvider.apnsID(messageID: push.messageID, token: token)),
                    ("content-type", "application/json"),
                ],
                body: body)
            let response: HTTPResponse
            do { response = try await http.send(request) } catch {
                switch error {
                case .invalidRequest: return .permanentFailure(reason: "APNs: \(error)")
                default: return .retry(after: nil, reason: "APNs: \(error)")
                }
            }
            let reason = APNsProvider.reason(response.body)
            if response.status == 403, reason == "ExpiredProviderToken" || reason == "InvalidProviderToken", !resigned {
                providerToken.invalidate(bearer)
                resigned = true
                continue
            }
            return APNsProvider.classify(
                status: response.status, reason: reason, retryAfter: RetryAfter.delay(response.header("retry-after"), now: now()), token: token)
        }
    }

    /// The JSON body for one push.
    package static func payload(_ push: PushNotification) -> JSONObject {
        var aps: [(String, JSONValue)] = [("alert", .object(JSONObject([("title", .string(push.title)), ("body", .string(push.body))])))]
        if let badge = push.badge { aps.append(("badge", .int(Int64(badge)))) }
        var top: [(String, JSONValue)] = [("aps", .object(JSONObject(aps)))]
        for k in push.data.keys.sorted() where k != "aps" { top.append((k, .string(push.data[k]!))) }
        return JSONObject(top)
    }

    /// A UUID (version-8 layout, RFC 9562) from SHA-256 of the message id and the token: the
    /// same push to the same device always carries the same `apns-id`.
    package static func apnsID(messageID: String, token: String) -> String {
        var bytes = Array(SHA256.hash(data: Array((messageID + "\u{0}" + token).utf8)).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x80
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let hex = bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
        let h = Array(hex)
        return [String(h[0..<8]), String(h[8..<12]), String(h[12..<16]), String(h[16..<20]), String(h[20..<32])].joined(separator: "-")
    }

    /// The `reason` of an APNs error body (`{"reason": "BadDeviceToken"}`).
    static func reason(_ body: [UInt8]) -> String? {
        guard !body.isEmpty else { return nil }
        return (try? JSONParser.parse(body))?.objectValue?["reason"]?.stringValue
    }

    static func classify(status: Int, reason: String?, retryAfter: Duration?, token: String) -> PushSendResult {
        if status == 200 { return .delivered }
        let text = PushRedaction.clean("APNs \(status) \(reason ?? "(no reason)")", hiding: [token])
        switch status {
        case 410: return .removeToken(reason: text)
        case 400 where reason == "BadDeviceToken": return .removeToken(reason: text)
        case 429, 500..<600: return .retry(after: retryAfter, reason: text)
        case 403 where reason == "ExpiredProviderToken" || reason == "InvalidProviderToken":
            return .retry(after: retryAfter, reason: text + " (a freshly signed provider token was refused; check [push.apns] keyId, teamId and the .p8 key)")
        case 400 where reason == "DeviceTokenNotForTopic" || reason == "TopicDisallowed" || reason == "BadTopic":
            return .permanentFailure(reason: text + " (check [push.apns] topic: it must be the app's bundle id)")
        default:
            if (200..<300).contains(status) { return .delivered }
            return .permanentFailure(reason: text)
        }
    }
}

extension APNsProvider {
    /// `[push.apns]` (one line in ``PushProviders/builtIn``): keyId, teamId, topic, the `.p8`
    /// key from `keyFile` or `keyEnv`, the endpoint, priority and expiration.
    package struct Settings: PushProviderSettings {
        package static let kind = PushProviderKind.apns
        package var keyFile: String?
        package var keyEnv: String?
        package var keyID: String?
        package var teamID: String?
        package var topic: String?
        package var endpoint = "https://api.push.apple.com"
        /// `apns-priority`: 10 (send now) or 5 (power-friendly).
        package var priority = 10
        /// How long APNs keeps a push for an offline device (`apns-expiration` = now + this; 0 = once).
        package var expiration: Duration = .seconds(86_400)

        package init() {}

        package init<Table: PushSettingsTable>(table t: inout Table) throws(Table.Failure) {
            keyFile = try t.secretFile("keyFile")
            keyEnv = try t.string("keyEnv")
            keyID = try t.string("keyId")
            teamID = try t.string("teamId")
            topic = try t.string("topic")
            if let e = try t.url("endpoint") { endpoint = e }
            if let n = try t.integer("priority") {
                guard n == 5 || n == 10 else {
                    throw t.invalid("priority", "[push.apns] priority: invalid value \(n); accepted: 10 (immediately) or 5 (power-friendly)")
                }
                priority = Int(n)
            }
            if let d = try t.duration("expiration") { expiration = d }
        }

        package var missing: String? {
            (keyFile == nil && keyEnv == nil) || keyID == nil || teamID == nil || topic == nil
                ? "[push.apns] keyFile (or keyEnv), keyId, teamId and topic" : nil
        }

        package var files: [String] { [keyFile].compactMap { $0 } }

        package func makeProvider(http: any HTTPTransport, environment: [String: String]) throws(PushSetupError) -> any PushProvider {
            guard let keyID, !keyID.isEmpty else { throw PushSetupError("[push.apns] keyId is required: the 10-character Key ID shown next to the key in the Apple developer account (Certificates, Identifiers & Profiles → Keys)") }
            guard let teamID, !teamID.isEmpty else { throw PushSetupError("[push.apns] teamId is required: the 10-character Team ID of the Apple developer account (Membership details)") }
            guard let topic, !topic.isEmpty else { throw PushSetupError("[push.apns] topic is required: the app's bundle id, e.g. com.example.campus") }
            let (bytes, source) = try PushProviders.credential(
                file: keyFile, env: keyEnv, environment: environment,
                keys: ("[push.apns] keyFile", "[push.apns] keyEnv"), inlineMarker: "-----BEGIN")
            return try APNsProvider(
                keyPEM: String(decoding: bytes, as: UTF8.self), source: source, keyID: keyID, teamID: teamID, topic: topic,
                endpoint: endpoint, priority: priority, expiration: expiration, http: http)
        }
    }
}
