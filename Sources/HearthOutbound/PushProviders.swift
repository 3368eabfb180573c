import Foundation
package import HearthKit
import HearthStore

/// Builds the configured push provider (`[push] provider`, docs/configuration.md#keys and docs/push.md), reading its
/// credentials from their files or environment variables. Errors name the file or variable and
/// the field, never a secret.
package enum PushProviders {
    /// The provider for `push`, or nil for `provider = "none"`.
    ///
    /// - FCM: the service account JSON from `serviceAccountFile`, or from `serviceAccountEnv`
    ///   (the variable holds the JSON itself, or the path of the file, as
    ///   `GOOGLE_APPLICATION_CREDENTIALS` does).
    /// - APNs: the `.p8` key (PEM) from `keyFile`, or from `keyEnv` (the PEM itself or a path).
    /// - Webhook: the signing secret from `secretFile` or `secretEnv`.
    package static func make(
        push p: PushConfig, http: any HTTPTransport, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(PushSetupError) -> (any PushProvider)? {
        switch p.provider {
        case .none:
            return nil
        case .fcm:
            let (bytes, source) = try credential(file: p.fcmServiceAccountFile, env: p.fcmServiceAccountEnv, environment: environment,
                                                 keys: ("[push.fcm] serviceAccountFile", "[push.fcm] serviceAccountEnv"), inlineMarker: "{")
            let account = try ServiceAccount.parse(bytes, source: source)
            return FCMProvider(account: account, endpoint: p.fcmEndpoint, tokenURI: p.fcmTokenURI, http: http)
        case .apns:
            guard let keyID = p.apnsKeyID, !keyID.isEmpty else { throw PushSetupError("[push.apns] keyId is required: the 10-character Key ID shown next to the key in the Apple developer account (Certificates, Identifiers & Profiles → Keys)") }
            guard let teamID = p.apnsTeamID, !teamID.isEmpty else { throw PushSetupError("[push.apns] teamId is required: the 10-character Team ID of the Apple developer account (Membership details)") }
            guard let topic = p.apnsTopic, !topic.isEmpty else { throw PushSetupError("[push.apns] topic is required: the app's bundle id, e.g. com.example.campus") }
            let (bytes, source) = try credential(file: p.apnsKeyFile, env: p.apnsKeyEnv, environment: environment,
                                                 keys: ("[push.apns] keyFile", "[push.apns] keyEnv"), inlineMarker: "-----BEGIN")
            return try APNsProvider(
                keyPEM: String(decoding: bytes, as: UTF8.self), source: source, keyID: keyID, teamID: teamID, topic: topic,
                endpoint: p.apnsEndpoint, priority: p.apnsPriority, expiration: p.apnsExpiration, http: http)
        case .webhook:
            guard let url = p.webhookURL else { throw PushSetupError("[push.webhook] url is required: the https:// URL of the app's push gateway") }
            let secret: WebhookSecret
            do { secret = try WebhookSecret.load(file: p.webhookSecretFile, env: p.webhookSecretEnv, environment: environment) } catch {
                throw PushSetupError("[push.webhook]: \(error.description)")
            }
            return WebhookPushProvider(url: url, secret: secret, http: http)
        }
    }

    /// The credential's bytes and a name for messages. An environment variable whose value
    /// starts with `inlineMarker` holds the credential; otherwise it holds a file path.
    static func credential(
        file: String?, env: String?, environment: [String: String], keys: (file: String, env: String), inlineMarker: String
    ) throws(PushSetupError) -> ([UInt8], String) {
        if let file { return (try read(file, key: keys.file), file) }
        if let env {
            guard let value = environment[env], !value.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                throw PushSetupError("\(keys.env): the environment variable \(env) is not set or empty")
            }
            if value.trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix(inlineMarker) { return (Array(value.utf8), "$\(env)") }
            return (try read(value, key: "\(keys.env) (\(env))"), value)
        }
        throw PushSetupError("\(keys.file) (or \(keys.env.split(separator: " ").last ?? "")) is required")
    }

    static func read(_ path: String, key: String) throws(PushSetupError) -> [UInt8] {
        let bytes: [UInt8]?
        do { bytes = try FileIO.readSmallFile(path) } catch {
            throw PushSetupError("\(key): cannot read \(path): \(String(cString: strerror(error.errno)))")
        }
        guard let bytes else { throw PushSetupError("\(key): the file \(path) does not exist") }
        return bytes
    }
}
