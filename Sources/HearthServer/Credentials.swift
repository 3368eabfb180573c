import Foundation
import Synchronization
import HearthHost

/// Who may do what on the endpoint (docs/operations/monitoring.md#tokens-and-roles): the
/// configured tokens and the browser sessions signed in with them. Tokens are compared in
/// constant time, all of them every time; neither tokens nor session ids are ever logged.
final class Credentials: Sendable {
    /// Someone the request proved to be.
    struct Identity: Sendable, Equatable {
        var name: String
        var role: ServerConfig.Role
        /// The session's CSRF token when signed in through `/login` (forms must echo it).
        var csrf: String?
    }

    struct Session: Sendable {
        var identity: Identity
        var expires: Date
    }

    let tokens: [(name: String, secret: [UInt8], role: ServerConfig.Role)]
    let sessions = Mutex<[String: Session]>([:])
    /// How long a sign-in lasts.
    static let sessionLifetime: TimeInterval = 12 * 3600
    static let cookieName = "hearth_session"

    init(_ tokens: [ServerConfig.Token]) {
        self.tokens = tokens.map { ($0.name, Array($0.secret.utf8), $0.role) }
    }

    /// Whether any token is configured: then every read needs one too.
    var required: Bool { !tokens.isEmpty }

    /// The token `given` is, comparing against every token in constant time.
    func token(matching given: [UInt8]) -> Identity? {
        var found: Identity?
        for t in tokens where Self.constantTimeEqual(given, t.secret) { found = Identity(name: t.name, role: t.role) }
        return found
    }

    /// The identity a request proves with `Authorization: Bearer …` or the session cookie.
    func identify(authorization: String?, cookie: String?) -> Identity? {
        if let authorization {
            let given = Array(authorization.utf8)
            let prefix = Array("Bearer ".utf8)
            guard given.count > prefix.count else { return nil }
            var schemeDiffers = false
            for i in 0..<prefix.count { schemeDiffers = schemeDiffers || (given[i] | 0x20) != (prefix[i] | 0x20) }
            let identity = token(matching: Array(given[prefix.count...]))
            return schemeDiffers ? nil : identity
        }
        guard let id = cookie.flatMap(Self.sessionID(fromCookie:)) else { return nil }
        let now = Date()
        return sessions.withLock { all -> Identity? in
            guard let s = all[id] else { return nil }
            guard s.expires > now else {
                all[id] = nil
                return nil
            }
            return s.identity
        }
    }

    /// Starts a session for `identity`; returns its id (the cookie's value).
    func signIn(_ identity: Identity) -> String {
        let id = Self.randomHex(32)
        var signedIn = identity
        signedIn.csrf = Self.randomHex(32)
        let now = Date()
        sessions.withLock { all in
            all = all.filter { $0.value.expires > now }
            all[id] = Session(identity: signedIn, expires: now.addingTimeInterval(Self.sessionLifetime))
        }
        return id
    }

    func signOut(cookie: String?) {
        guard let id = cookie.flatMap(Self.sessionID(fromCookie:)) else { return }
        _ = sessions.withLock { $0.removeValue(forKey: id) }
    }

    static func sessionID(fromCookie header: String) -> String? {
        for part in header.split(separator: ";") {
            let kv = part.trimmingCharacters(in: .whitespaces)
            if kv.hasPrefix(cookieName + "=") { return String(kv.dropFirst(cookieName.count + 1)) }
        }
        return nil
    }

    static func randomHex(_ bytes: Int) -> String {
        var g = SystemRandomNumberGenerator()
        return (0..<bytes).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &g)) }.joined()
    }

    /// Compares every byte of the longer input, whatever differs first.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference: UInt8 = a.count == b.count ? 0 : 1
        for i in 0..<max(a.count, b.count) {
            difference |= (i < a.count ? a[i] : 0) ^ (i < b.count ? b[i] : 0)
        }
        return difference == 0
    }

    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        constantTimeEqual(Array(a.utf8), Array(b.utf8))
    }
}
