package import Logging
package import HearthKit

/// Run monitoring (healthchecks.io / Cronitor style): a job with `pingUrl` gets
/// `GET {pingUrl}/start` when an attempt starts, `GET {pingUrl}` when it succeeds and
/// `GET {pingUrl}/fail` when it fails (or is cancelled, or conflicts).
///
/// Best effort: a ping that fails or times out is logged at `info` and otherwise ignored; it
/// never changes the run's outcome. Each ping waits at most `timeout`.
package struct RunPinger: Sendable {
    package enum Event: String, Sendable {
        case start, success, fail
    }

    package let transport: any HTTPTransport
    package let timeout: Duration
    package let logger: Logger

    package init(transport: any HTTPTransport, timeout: Duration = .seconds(10), logger: Logger = Logger(label: "hearth")) {
        self.transport = transport
        self.timeout = timeout
        self.logger = logger
    }

    /// The URL pinged for `event`: `{pingUrl}/start`, `{pingUrl}`, `{pingUrl}/fail` (a trailing
    /// `/` on `pingUrl` is not doubled).
    package static func url(_ pingURL: String, _ event: Event) -> String {
        var base = pingURL
        while base.hasSuffix("/") { base.removeLast() }
        switch event {
        case .start: return base + "/start"
        case .success: return base
        case .fail: return base + "/fail"
        }
    }

    /// Sends the ping; never throws.
    package func ping(_ pingURL: String, _ event: Event, job: String) async {
        let url = Self.url(pingURL, event)
        do {
            let response = try await transport.send(HTTPRequest(method: "GET", url: url, timeout: timeout, connectTimeout: min(timeout, .seconds(5))))
            if !(200..<300).contains(response.status) {
                logger.info("run monitoring ping answered HTTP \(response.status)", metadata: ["job": "\(job)", "ping": "\(event.rawValue)", "host": "\(HTTPTransportError.displayURL(url))"])
            }
        } catch {
            logger.info("run monitoring ping failed: \(error)", metadata: ["job": "\(job)", "ping": "\(event.rawValue)"])
        }
    }
}
