import ArgumentParser
import Foundation
import HearthStore
import HearthOutbound
import HearthHTTP

extension HearthBench {
    /// `hearth bench-push`: the provider-level push benchmark — N pushes straight through
    /// ``FCMProvider`` (OAuth mint, `messages:send` over the libcurl client), no outbox. Hidden:
    /// it exists for `scripts/bench.py push`, next to the full-path figure (`outbox deliver`).
    struct BenchPush: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "bench-push", abstract: "Benchmark: N pushes through the FCM provider, without the outbox.")

        @Option(help: "The service account JSON file.")
        var serviceAccount: String

        @Option(help: "FCM API base URL.")
        var endpoint: String

        @Option(help: "OAuth token URL (default: the service account's token_uri).")
        var tokenURI: String?

        @Option(help: "CA certificates (PEM) to trust.")
        var caFile: String?

        @Option(help: "Number of pushes.")
        var count: Int = 50_000

        @Option(help: "Pushes in flight at once.")
        var concurrency: Int = 100

        func run() async throws {
            let bytes = try FileIO.readSmallFile(serviceAccount) ?? []
            let account = try ServiceAccount.parse(bytes, source: serviceAccount)
            let client = try CurlHTTPClient(options: HTTPClientOptions(caFile: caFile))
            defer { client.shutdown() }
            let provider = FCMProvider(account: account, endpoint: endpoint, tokenURI: tokenURI, http: client)
            let total = count
            let lanes = max(1, concurrency)
            let clock = ContinuousClock()
            let started = clock.now
            let failures = await withTaskGroup(of: Int.self) { group in
                for lane in 0..<lanes {
                    group.addTask {
                        var failed = 0
                        // Lane k sends pushes k, k + lanes, k + 2·lanes, …: `lanes` in flight.
                        for i in stride(from: lane, to: total, by: lanes) {
                            let push = PushNotification(
                                messageID: "push-bench-\(i)", userID: "u\(i)", tokens: [], title: "Gift received",
                                body: "Someone sent you \(i % 100 + 1) points", data: ["notificationId": "bench-\(i)", "type": "gift_received", "actionUrl": "/gifts/\(i)"],
                                badge: i % 10)
                            if await provider.send(push, to: "bench-fcm-token-\(i)") != .delivered { failed += 1 }
                        }
                        return failed
                    }
                }
                return await group.reduce(0, +)
            }
            let elapsed = clock.now - started
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            var usage = rusage()
            getrusage(RUSAGE_SELF.rawValue, &usage)
            print(String(format: "provider: %d pushes in %.2f s, %.0f pushes/s, %d failed, peak RSS %.1f MiB",
                         total, seconds, Double(total) / seconds, failures, Double(usage.ru_maxrss) / 1024))
            if failures > 0 { throw ExitCode(1) }
        }
    }
}
