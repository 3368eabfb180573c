import Foundation
package import HearthKit
import HearthStore

/// The push providers a process knows, by `[push] provider` (docs/push.md#adding-a-provider):
/// each provider's ``PushProviderSettings`` type, which carries its kind (name and token fields),
/// reads its `[push.NAME]` keys and makes it. The config loader accepts the names listed here
/// (and `none`); ``make(push:http:environment:)`` builds the configured one, reading its
/// credentials from their files or environment variables. Errors name the file or variable and
/// the field, never a secret.
package struct PushProviders: Sendable {
    /// In the order `[push] provider`'s accepted values are listed.
    package let entries: [any PushProviderSettings.Type]

    package init(_ entries: [any PushProviderSettings.Type]) {
        self.entries = entries
    }

    /// Every provider built into Hearth: one line each. `none` has no line: nothing is pushed.
    package static let builtIn = PushProviders([
        FCMProvider.Settings.self,
        APNsProvider.Settings.self,
        WebhookPushProvider.Settings.self,
    ])

    /// These providers, then `more`.
    package func adding(_ more: any PushProviderSettings.Type...) -> PushProviders {
        PushProviders(entries + more)
    }

    /// The provider called `name`.
    package func entry(named name: String) -> (any PushProviderSettings.Type)? {
        entries.first { $0.kind.name == name }
    }

    /// The values `[push] provider` accepts: each provider's name, then `none`.
    package var names: [String] { entries.map { $0.kind.name } + [PushProviderKind.none.name] }

    /// Every provider's token fields, each once, in order.
    package var tokenFields: [DeviceTokens.Field] {
        var seen = Set<DeviceTokens.Field>()
        return entries.flatMap { $0.kind.tokenFields }.filter { seen.insert($0).inserted }
    }

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
        guard let settings = p.settings(named: p.provider.name) else {
            throw PushSetupError("[push] provider = \"\(p.provider.name)\" is not built into this hearth")
        }
        return try settings.makeProvider(http: http, environment: environment)
    }

    /// The credential's bytes and a name for messages. An environment variable whose value
    /// starts with `inlineMarker` holds the credential; otherwise it holds a file path.
    package static func credential(
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
