package import HearthKit

// The `[push]`, `[[webhooks]]` and `[outbox]` sections as plain options; HearthHost reads
// them from the config file (docs/configuration.md).

/// `[push]`: the configured provider, and every known provider's `[push.NAME]` settings.
package struct PushConfig: Sendable {
    /// `[push] provider`.
    package var provider: PushProviderKind = .none
    /// Each provider's settings (its defaults when its table is absent), in the registry's
    /// order; a provider's own type reads and interprets them (``PushProviderSettings``).
    package private(set) var providers: [any PushProviderSettings]

    /// `provider = "none"` and the defaults of every provider in `registry`.
    package init(registry: PushProviders = .builtIn) {
        providers = registry.entries.map { $0.init() }
    }

    /// The settings of the provider called `name`.
    package func settings(named name: String) -> (any PushProviderSettings)? {
        providers.first { type(of: $0).kind.name == name }
    }

    /// Replaces the settings of the provider `settings` are for (adds them if it has none).
    package mutating func set(_ settings: any PushProviderSettings) {
        let name = type(of: settings).kind.name
        if let i = providers.firstIndex(where: { type(of: $0).kind.name == name }) { providers[i] = settings } else { providers.append(settings) }
    }

    /// One provider's settings (its defaults until set).
    package subscript<Settings: PushProviderSettings>(_: Settings.Type) -> Settings {
        get { settings(named: Settings.kind.name) as? Settings ?? Settings() }
        set { set(newValue) }
    }

    /// Every provider's credential files, in the registry's order.
    package var files: [String] { providers.flatMap(\.files) }
}

/// `[[webhooks]]`.
package struct WebhookConfig: Sendable, Equatable {
    package var name: String
    package var url: String
    package var secretFile: String?
    package var secretEnv: String?
    /// Event types sent to this endpoint; empty = all.
    package var events: [String]
    package init(name: String, url: String, secretFile: String? = nil, secretEnv: String? = nil, events: [String] = []) {
        self.name = name
        self.url = url
        self.secretFile = secretFile
        self.secretEnv = secretEnv
        self.events = events
    }
}

/// `[outbox]`.
package struct OutboxConfig: Sendable, Equatable {
    package var maxAttempts = 8
    package var maxAge: Duration = .seconds(86_400)
    package var concurrency = 100
    package init() {}
}
