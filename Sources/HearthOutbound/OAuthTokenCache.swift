package import Foundation
package import HearthKit

/// OAuth 2.0 access tokens for a Google service account (RFC 7523 JWT bearer grant), shared by
/// every FCM send.
///
/// A token is minted by signing an RS256 assertion (`iss` = client_email, `scope`, `aud` =
/// token_uri, `iat`, `exp` = iat + 3600) and posting it to the token URI; it is reused until 5
/// minutes before it expires. Concurrent callers share one mint. After a failed mint the same
/// failure is returned for `failureHoldoff` without asking again, so a broken credential does
/// not turn every queued push into a request to the token endpoint.
package actor OAuthTokenCache {
    /// The scope FCM HTTP v1 requires.
    package static let firebaseMessagingScope = "https://www.googleapis.com/auth/firebase.messaging"
    /// How long before its expiry a token stops being handed out.
    package static let refreshMargin: TimeInterval = 300

    /// Why no access token could be had. `reason` never contains the assertion or a token.
    package struct Failure: Error, Sendable, Equatable {
        package var reason: String
        package var retryAfter: Duration?
    }

    struct Cached: Sendable {
        var value: String
        /// When it stops being handed out (expiry minus the margin).
        var refreshAt: Date
    }

    private let account: ServiceAccount
    private let tokenURI: String
    private let scope: String
    private let http: any HTTPTransport
    private let now: @Sendable () -> Date
    private let failureHoldoff: Duration
    private var current: Cached?
    private var minting: Task<Result<Cached, Failure>, Never>?
    private var lastFailure: (failure: Failure, until: Date)?
    /// Number of mints started (for tests and diagnostics).
    package private(set) var mintCount = 0

    /// - Parameters:
    ///   - tokenURI: overrides the service account's `token_uri` (tests).
    ///   - failureHoldoff: how long a failed mint is remembered before trying again.
    package init(
        account: ServiceAccount, tokenURI: String? = nil, scope: String = OAuthTokenCache.firebaseMessagingScope,
        http: any HTTPTransport, failureHoldoff: Duration = .seconds(5), now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.account = account
        self.tokenURI = tokenURI ?? account.tokenURI
        self.scope = scope
        self.http = http
        self.failureHoldoff = failureHoldoff
        self.now = now
    }

    /// A valid access token: the cached one, or a freshly minted one.
    package func token() async throws(Failure) -> String {
        let t = now()
        if let current, t < current.refreshAt { return current.value }
        if let lastFailure, t < lastFailure.until { throw lastFailure.failure }
        let task: Task<Result<Cached, Failure>, Never>
        if let minting {
            task = minting
        } else {
            mintCount += 1
            let (account, tokenURI, scope, http, now) = (self.account, self.tokenURI, self.scope, self.http, self.now)
            task = Task { await OAuthTokenCache.mint(account: account, tokenURI: tokenURI, scope: scope, http: http, now: now) }
            minting = task
        }
        let result = await task.value
        if minting == task {
            minting = nil
            switch result {
            case .success(let c):
                current = c
                lastFailure = nil
            case .failure(let f):
                let holdoff = max(failureHoldoff, f.retryAfter ?? .zero)
                lastFailure = (f, now().addingTimeInterval(Double(holdoff.components.seconds) + Double(holdoff.components.attoseconds) / 1e18))
            }
        }
        return try result.get().value
    }

    /// Forgets `token` (FCM answered 401 to it) so the next ``token()`` mints a new one. A token
    /// that was already replaced is ignored: many requests failing with the same old token
    /// cause one new mint, not many.
    package func invalidate(_ token: String) {
        if current?.value == token { current = nil }
    }

    static func mint(account: ServiceAccount, tokenURI: String, scope: String, http: any HTTPTransport, now: @Sendable () -> Date) async -> Result<Cached, Failure> {
        let issued = now()
        let iat = Int64(issued.timeIntervalSince1970.rounded(.down))
        let claims = JSONObject([
            ("iss", .string(account.clientEmail)), ("scope", .string(scope)), ("aud", .string(tokenURI)),
            ("iat", .int(iat)), ("exp", .int(iat + 3600)),
        ])
        let assertion: String
        do { assertion = try JWT.rs256(claims: claims, key: account.privateKey) } catch {
            return .failure(Failure(reason: "cannot sign the OAuth assertion for \(account.clientEmail): \(error)", retryAfter: nil))
        }
        let body = "grant_type=" + formEncode("urn:ietf:params:oauth:grant-type:jwt-bearer") + "&assertion=" + formEncode(assertion)
        let request = HTTPRequest(
            method: "POST", url: tokenURI,
            headers: [("content-type", "application/x-www-form-urlencoded"), ("accept", "application/json")],
            body: Array(body.utf8))
        let response: HTTPResponse
        do { response = try await http.send(request) } catch {
            return .failure(Failure(reason: "OAuth token request failed: \(error)", retryAfter: nil))
        }
        let parsed = try? JSONParser.parse(response.body)
        let object = parsed?.objectValue
        guard (200..<300).contains(response.status) else {
            var detail = ""
            if let e = object?["error"]?.stringValue { detail += " " + e }
            if let d = object?["error_description"]?.stringValue { detail += ": " + d }
            let hint = response.status >= 500 || response.status == 429 ? "" : " (check the service account key: it may be revoked or deleted, or this machine's clock may be wrong)"
            return .failure(Failure(
                reason: PushRedaction.clean("OAuth token endpoint \(HTTPTransportError.displayURL(tokenURI)) answered \(response.status)\(detail)\(hint)", hiding: [assertion], limit: 400),
                retryAfter: RetryAfter.delay(response.header("retry-after"), now: now())))
        }
        guard let value = object?["access_token"]?.stringValue, !value.isEmpty else {
            return .failure(Failure(reason: "OAuth token endpoint \(HTTPTransportError.displayURL(tokenURI)) answered \(response.status) without an access_token", retryAfter: nil))
        }
        let lifetime = TimeInterval(object?["expires_in"]?.intValue ?? Int64(object?["expires_in"]?.numberValue ?? 3600))
        let refreshAt = lifetime > 2 * refreshMargin ? issued.addingTimeInterval(lifetime - refreshMargin) : issued.addingTimeInterval(lifetime / 2)
        return .success(Cached(value: value, refreshAt: refreshAt))
    }

    /// `application/x-www-form-urlencoded` value encoding (unreserved characters kept).
    static func formEncode(_ s: String) -> String {
        var out = ""
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(b))
            default:
                out += "%" + String(b, radix: 16, uppercase: true).leftPadded(2)
            }
        }
        return out
    }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
