import Foundation
package import HearthKit
import HearthStore

/// Builds the configured push provider (`[push] provider`, docs/configuration.md#keys and docs/push.md), reading its
/// credentials from their files or environment variables. Errors name the file or variable and
/// the field, never a secret.
package enum PushProviders {
    /// Builds one provider from `[push]`, reading its credentials (``credential(file:env:environment:keys:inlineMarker:)``).
    package typealias Make = @Sendable (_ push: PushConfig, _ http: any HTTPTransport, _ environment: [String: String]) throws(PushSetupError) -> any PushProvider

    /// Every provider Hearth can build, by `[push] provider`: one line each
    /// (docs/push.md#adding-a-provider). `none` has no line: nothing is pushed.
    package static let registry: [PushProviderKind: Make] = [
        .fcm: FCMProvider.make,
        .apns: APNsProvider.make,
        .webhook: WebhookPushProvider.make,
    ]

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
        if p.provider == .none { return nil }
        guard let make = registry[p.provider] else { throw PushSetupError("[push] provider = \"\(p.provider.rawValue)\" is not built into this hearth") }
        return try make(p, http, environment)
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
