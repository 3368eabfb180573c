package import HearthKit

/// One push provider as the registry knows it (``PushProviders``,
/// docs/push.md#adding-a-provider): its kind (the `[push] provider` name and the user fields its
/// device tokens are in), the keys of its `[push.NAME]` table, and how the provider is made from
/// them. A value holds one provider's settings; the type is its line in the registry.
package protocol PushProviderSettings: Sendable {
    /// `[push] provider = NAME`, and the token fields ``DeviceTokens`` reads for it.
    static var kind: PushProviderKind { get }
    /// The settings when the config has no `[push.NAME]` table.
    init()
    /// Reads `[push.NAME]`. Keys it does not read are rejected as unknown keys; a value it
    /// refuses is `table.invalid(key, message)`, which names the file and line.
    init<Table: PushSettingsTable>(table: inout Table) throws(Table.Failure)
    /// What `provider = NAME` still needs, worded to end `[push] provider = "NAME" needs …`
    /// (e.g. `[push.webhook] url and secretFile (or secretEnv)`); nil when nothing is missing.
    var missing: String? { get }
    /// The credential files it reads (`hearth export-systemd` makes them readable to the units).
    var files: [String] { get }
    /// The provider, with its credentials read from their files or `environment`. Errors name
    /// the key and the fix, never a secret; it sends over `http`, never a client of its own.
    func makeProvider(http: any HTTPTransport, environment: [String: String]) throws(PushSetupError) -> any PushProvider
}
