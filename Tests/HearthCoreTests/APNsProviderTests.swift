import Foundation
import HearthKit
import HearthOutbound
import HearthHost
import Testing

/// APNs (docs/push.md) against `Tests/Servers/fake_apns.py`, which verifies the ES256 provider token
/// with the key's public half, checks every `apns-*` header and the body, then answers as the
/// device token says. HTTP/2 over TLS as `api.push.apple.com` through CURLOPT_CONNECT_TO.
@Suite("APNs provider", .enabled(if: FakePushService.pythonReady, "needs PyPI h2 and cryptography (scripts/install-deps)"))
struct APNsProviderTests {
    static let push = PushNotification(
        messageID: "push-n1", userID: "u1", tokens: [], title: "Gift received", body: "Maya sent you 50 points",
        data: ["notificationId": "n1", "type": "gift_received", "actionUrl": "/gifts/t1"], badge: 3)

    func withAPNs(now: @escaping @Sendable () -> Date = { Date() }, _ body: (APNsProvider, FakePushService) async throws -> Void) async throws {
        let service = try await FakePushService.apns()
        defer { service.stop() }
        let pem = try String(contentsOfFile: service.credentials.apnsKeyFile, encoding: .utf8)
        let provider = try APNsProvider(
            keyPEM: pem, source: service.credentials.apnsKeyFile, keyID: PushCredentials.apnsKeyID, teamID: PushCredentials.apnsTeamID,
            topic: PushCredentials.apnsTopic, http: service.client, now: now)
        try await body(provider, service)
    }

    @Test func deliversWithAVerifiedProviderTokenAndTheDocumentedHeadersAndBody() async throws {
        let clock = TestClock()
        try await withAPNs(now: { clock.now() }) { provider, service in
            let token = "a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90"
            #expect(await provider.send(Self.push, to: token) == .delivered)
            let stats = try await service.stats(host: "api.push.apple.com")
            #expect(stats["rejected"] == .array([]))
            let expiration = Int64(clock.now().timeIntervalSince1970) + 86_400
            #expect(stats["accepted"] == .array([.object(JSONObject([
                ("token", .string(token)),
                ("headers", .object(JSONObject([
                    ("apns-topic", "com.example.campus"), ("apns-push-type", "alert"), ("apns-priority", "10"),
                    ("apns-expiration", .string(String(expiration))),
                    ("apns-id", .string(APNsProvider.apnsID(messageID: "push-n1", token: token))),
                ]))),
                ("body", try JSONParser.parse(#"""
                    {"aps": {"alert": {"title": "Gift received", "body": "Maya sent you 50 points"}, "badge": 3},
                     "actionUrl": "/gifts/t1", "notificationId": "n1", "type": "gift_received"}
                    """#)),
            ]))]))
        }
    }

    @Test func theProviderTokenIsReusedAndReSignedAfterFiftyMinutes() async throws {
        let clock = TestClock()
        try await withAPNs(now: { clock.now() }) { provider, service in
            for i in 0..<20 { #expect(await provider.send(Self.push, to: "device-ok-\(i)") == .delivered) }
            clock.advance(49 * 60)
            #expect(await provider.send(Self.push, to: "device-ok-20") == .delivered)
            let value1 = try await service.stats(host: "api.push.apple.com")["providerTokens"]
            #expect(value1 == .int(1))
            clock.advance(60)
            #expect(await provider.send(Self.push, to: "device-ok-21") == .delivered)
            let value2 = try await service.stats(host: "api.push.apple.com")["providerTokens"]
            #expect(value2 == .int(2))
            #expect(provider.providerToken.mintCount == 2)
        }
    }

    @Test func unregisteredAndBadDeviceTokenRemoveTheToken() async throws {
        try await withAPNs { provider, _ in
            #expect(await provider.send(Self.push, to: "device-unregistered-1") == .removeToken(reason: "APNs 410 Unregistered"))
            #expect(await provider.send(Self.push, to: "device-bad-device-1") == .removeToken(reason: "APNs 400 BadDeviceToken"))
        }
    }

    @Test func tooManyRequestsAndServerErrorsAreRetried() async throws {
        try await withAPNs { provider, _ in
            #expect(await provider.send(Self.push, to: "device-too-many-1") == .retry(after: .seconds(5), reason: "APNs 429 TooManyRequests"))
            #expect(await provider.send(Self.push, to: "device-internal-1") == .retry(after: nil, reason: "APNs 500 InternalServerError"))
            #expect(await provider.send(Self.push, to: "device-unavailable-1") == .retry(after: nil, reason: "APNs 503 ServiceUnavailable"))
        }
    }

    @Test func anExpiredProviderTokenIsReSignedOnceAndDelivers() async throws {
        try await withAPNs { provider, _ in
            #expect(await provider.send(Self.push, to: "device-expired-once-1") == .delivered)
            #expect(provider.providerToken.mintCount == 2)
        }
    }

    @Test func aTokenForAnotherTopicIsAPermanentFailureThatKeepsTheToken() async throws {
        try await withAPNs { provider, _ in
            #expect(await provider.send(Self.push, to: "device-not-for-topic-1")
                == .permanentFailure(reason: "APNs 400 DeviceTokenNotForTopic (check [push.apns] topic: it must be the app's bundle id)"))
        }
    }

    @Test func aWrongKeyIDIsRefusedAndRetriedLater() async throws {
        let service = try await FakePushService.apns()
        defer { service.stop() }
        let provider = try APNsProvider(
            keyPEM: try String(contentsOfFile: service.credentials.apnsKeyFile, encoding: .utf8), source: service.credentials.apnsKeyFile,
            keyID: "WRONGKEY00", teamID: PushCredentials.apnsTeamID, topic: PushCredentials.apnsTopic, http: service.client)
        #expect(await provider.send(Self.push, to: "device-ok-1") == .retry(
            after: nil, reason: "APNs 403 InvalidProviderToken (a freshly signed provider token was refused; check [push.apns] keyId, teamId and the .p8 key)"))
        #expect(provider.providerToken.mintCount == 2)
    }

    @Test func theApnsIDIsAStableUUIDPerMessageAndDevice() {
        let a = APNsProvider.apnsID(messageID: "push-n1", token: "aa")
        #expect(a == APNsProvider.apnsID(messageID: "push-n1", token: "aa"))
        #expect(a != APNsProvider.apnsID(messageID: "push-n1", token: "ab"))
        #expect(a != APNsProvider.apnsID(messageID: "push-n2", token: "aa"))
        #expect(a.wholeMatch(of: /[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}/) != nil)
    }
}
