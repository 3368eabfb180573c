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

    package init(host: String, port: Int, tokenFile: String? = nil, tokenEnv: String? = nil) {
        self.host = host
        self.port = port
        self.tokenFile = tokenFile
        self.tokenEnv = tokenEnv
    }

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

    /// The bearer token every request must carry (nil: no token configured).
    /// Throws ``ConfigError`` when the file cannot be read or the variable is unset or empty.
    package func token(environment: [String: String], configFile: String) throws(ConfigError) -> String? {
        if let tokenFile {
            guard let bytes = try? FileIO.readSmallFile(tokenFile), let text = String(validating: bytes, as: UTF8.self) else {
                throw ConfigError(file: configFile, "[server] tokenFile: cannot read \(tokenFile); create it (e.g. `openssl rand -hex 32 > \(tokenFile); chmod 600 \(tokenFile)`) or fix the path")
            }
            let token = text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !token.isEmpty else { throw ConfigError(file: configFile, "[server] tokenFile: \(tokenFile) is empty; put the bearer token in it") }
            return token
        }
        if let tokenEnv {
            guard let token = environment[tokenEnv]?.trimmingCharacters(in: .whitespacesAndNewlines), !token.isEmpty else {
                throw ConfigError(file: configFile, "[server] tokenEnv: the environment variable \(tokenEnv) is not set or empty; set it to the bearer token")
            }
            return token
        }
        return nil
    }
}
