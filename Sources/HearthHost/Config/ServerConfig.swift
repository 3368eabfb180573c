import Foundation
import HearthStore

/// `[server]`: the daemon's HTTP endpoint (docs/operations/monitoring.md#the-endpoint).
package struct ServerConfig: Sendable, Equatable {
    /// The host part of `listen`, without brackets for IPv6.
    package var host: String
    package var port: Int
    /// A file holding the bearer token (its contents, surrounding whitespace removed).
    package var tokenFile: String?
    /// An environment variable holding the bearer token.
    package var tokenEnv: String?
    /// `[[server.tokens]]`: named tokens with a role (docs/operations/monitoring.md#tokens-and-roles).
    package var tokens: [TokenSpec] = []
    /// `/healthz` and `/readyz` need a token too (default: they answer without one, for probes).
    package var healthNeedsToken = false

    /// What a token may do: `read` the pages and metrics, or also `operate` (run, pause,
    /// resume, retry).
    package enum Role: String, Sendable, CaseIterable {
        case read, operate
    }

    /// One `[[server.tokens]]` entry: where its secret is, and its role.
    package struct TokenSpec: Sendable, Equatable {
        package var name: String
        package var file: String?
        package var env: String?
        package var role: Role
        /// The line of the entry, for messages.
        package var line: Int?

        package init(name: String, file: String? = nil, env: String? = nil, role: Role, line: Int? = nil) {
            self.name = name
            self.file = file
            self.env = env
            self.role = role
            self.line = line
        }
    }

    /// A token with its secret read. The secret is never logged nor printed.
    package struct Token: Sendable, Equatable, CustomStringConvertible {
        package var name: String
        package var secret: String
        package var role: Role

        package init(name: String, secret: String, role: Role) {
            self.name = name
            self.secret = secret
            self.role = role
        }

        package var description: String { "token \(name) (\(role.rawValue))" }
    }

    package init(host: String, port: Int, tokenFile: String? = nil, tokenEnv: String? = nil, tokens: [TokenSpec] = [], healthNeedsToken: Bool = false) {
        self.host = host
        self.port = port
        self.tokenFile = tokenFile
        self.tokenEnv = tokenEnv
        self.tokens = tokens
        self.healthNeedsToken = healthNeedsToken
    }

    /// Whether any token is configured (then every read needs one).
    package var hasTokens: Bool { tokenFile != nil || tokenEnv != nil || !tokens.isEmpty }

    /// `127.0.0.1:9464`, `[::1]:9464`, `localhost:9464`, `0.0.0.0:9464`.
    package static func parseListen(_ text: String) -> (String, Int)? {
        guard let colon = text.lastIndex(of: ":") else { return nil }
        var host = String(text[..<colon])
        guard let port = Int(text[text.index(after: colon)...]), (0...65535).contains(port) else { return nil }
        if host.hasPrefix("[") {
            guard host.hasSuffix("]"), host.count > 2 else { return nil }
            host = String(host.dropFirst().dropLast())
        } else if host.contains(":") {
            return nil  // an IPv6 address needs brackets
        }
        guard !host.isEmpty, !host.contains(where: \.isWhitespace) else { return nil }
        return (host, port)
    }

    /// Whether only this machine can reach the address: 127.0.0.0/8, ::1, localhost.
    package var isLoopback: Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.") && host.split(separator: ".").count == 4
    }

    /// The address as written back (IPv6 in brackets).
    package var listen: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// Every configured token with its secret read: the `[[server.tokens]]` entries, and the
    /// single `tokenFile` / `tokenEnv` as one `operate` token named `token`. Throws
    /// ``ConfigError`` when a file cannot be read, a variable is unset or empty, or two tokens
    /// share a secret.
    package func resolveTokens(environment: [String: String], configFile: String) throws(ConfigError) -> [Token] {
        var out: [Token] = []
        if let secret = try Self.secret(file: tokenFile, env: tokenEnv, what: "[server]", line: nil, environment: environment, configFile: configFile) {
            out.append(Token(name: "token", secret: secret, role: .operate))
        }
        for (i, spec) in tokens.enumerated() {
            let what = "[[server.tokens]] #\(i + 1) (\(spec.name))"
            guard let secret = try Self.secret(file: spec.file, env: spec.env, what: what, line: spec.line, environment: environment, configFile: configFile) else { continue }
            if let other = out.first(where: { $0.secret == secret }) {
                throw ConfigError(file: configFile, line: spec.line, "\(what): the same secret as \(other.name); give every token its own secret (e.g. `openssl rand -hex 32`)")
            }
            out.append(Token(name: spec.name, secret: secret, role: spec.role))
        }
        return out
    }

    static func secret(file: String?, env: String?, what: String, line: Int?, environment: [String: String], configFile: String) throws(ConfigError) -> String? {
        let (fileKey, envKey) = what == "[server]" ? ("tokenFile", "tokenEnv") : ("file", "env")
        if let file {
            guard let bytes = try? FileIO.readSmallFile(file), let text = String(validating: bytes, as: UTF8.self) else {
                throw ConfigError(file: configFile, line: line, "\(what) \(fileKey): cannot read \(file); create it (e.g. `openssl rand -hex 32 > \(file); chmod 600 \(file)`) or fix the path")
            }
            let token = text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !token.isEmpty else { throw ConfigError(file: configFile, line: line, "\(what) \(fileKey): \(file) is empty; put the bearer token in it") }
            return token
        }
        if let env {
            guard let token = environment[env]?.trimmingCharacters(in: .whitespacesAndNewlines), !token.isEmpty else {
                throw ConfigError(file: configFile, line: line, "\(what) \(envKey): the environment variable \(env) is not set or empty; set it to the bearer token")
            }
            return token
        }
        return nil
    }
}
