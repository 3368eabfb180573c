import Foundation

/// Any request to the daemon's endpoint through Python's urllib, redirects not followed: the
/// status, the body, and the headers an action's answer carries (`Location`, `Set-Cookie`,
/// `Content-Type`).
enum HTTPSend {
    struct Response: Decodable {
        var status: Int
        var body: String
        var contentType: String
        var location: String
        var setCookie: String

        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]) ?? [:] }
    }

    static let script = """
        import json, sys, urllib.request, urllib.error
        spec = json.loads(sys.stdin.read())
        class NoRedirect(urllib.request.HTTPRedirectHandler):
            def redirect_request(self, *args, **kwargs):
                return None
        opener = urllib.request.build_opener(NoRedirect)
        data = spec["body"].encode() if spec["body"] is not None else None
        req = urllib.request.Request(spec["url"], data=data, method=spec["method"])
        for k, v in spec["headers"].items():
            req.add_header(k, v)
        try:
            r = opener.open(req, timeout=60)
            status, body, h = r.status, r.read(), r.headers
        except urllib.error.HTTPError as e:
            status, body, h = e.code, e.read(), e.headers
        print(json.dumps({"status": status, "body": body.decode("utf-8", "replace"), "contentType": h.get("Content-Type", ""),
                          "location": h.get("Location", ""), "setCookie": h.get("Set-Cookie", "")}))
        """

    static func send(
        _ method: String, _ url: String, token: String? = nil, json: String? = nil, form: String? = nil, cookie: String? = nil,
        headers extra: [String: String] = [:]
    ) async throws -> Response {
        var headers = extra
        if let token { headers["Authorization"] = "Bearer " + token }
        if let cookie { headers["Cookie"] = cookie }
        var body: String?
        if let json {
            headers["Content-Type"] = "application/json"
            body = json
        } else if let form {
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            body = form
        } else if method == "POST" {
            body = ""
        }
        var spec: [String: Any] = ["method": method, "url": url, "headers": headers]
        spec["body"] = body ?? NSNull()
        let input = String(decoding: try JSONSerialization.data(withJSONObject: spec), as: UTF8.self)
        let r = try await ExternalTool.python(script, stdin: input)
        guard r.status == 0 else { throw HTTPProbe.ProbeFailed(message: "\(method) \(url): \(r.stderr)") }
        return try JSONDecoder().decode(Response.self, from: Data(r.stdout.utf8))
    }
}

extension HTTPSend {
    /// A request sent exactly as written: only the headers given (and `Host`, `Content-Length`).
    struct Exchange: Encodable {
        var method: String
        var url: String
        var headers: [String: String]
        var body: String?
    }

    /// What came back: the status, the headers (names in lower case), the body, and the body
    /// as canonical JSON (keys sorted, no spaces; nil when it is not JSON) so that two answers
    /// compare as JSON values.
    struct Answered: Decodable, Sendable {
        var status: Int
        var headers: [String: String]
        var body: String
        var json: String?
    }

    /// Sends the requests of stdin's `requests`, `concurrency` at a time; with `together`, one
    /// thread each, every connection opened before any request is sent.
    static let exchangeScript = """
        import http.client, json, sys, threading, urllib.parse
        from concurrent.futures import ThreadPoolExecutor
        spec = json.loads(sys.stdin.read())
        requests = spec["requests"]
        together = spec["together"]
        barrier = threading.Barrier(len(requests)) if together and requests else None
        def send(r):
            u = urllib.parse.urlsplit(r["url"])
            c = http.client.HTTPConnection(u.hostname, u.port, timeout=120)
            if barrier:
                c.connect()
                barrier.wait()
            body = r["body"].encode() if r.get("body") is not None else None
            c.request(r["method"], u.path + ("?" + u.query if u.query else ""), body=body, headers=r["headers"])
            response = c.getresponse()
            raw = response.read().decode("utf-8", "replace")
            c.close()
            try:
                canonical = json.dumps(json.loads(raw), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
            except ValueError:
                canonical = None
            return {"status": response.status, "headers": {k.lower(): v for k, v in response.getheaders()}, "body": raw, "json": canonical}
        with ThreadPoolExecutor(max(1, len(requests)) if together else spec["concurrency"]) as pool:
            print(json.dumps(list(pool.map(send, requests))))
        """

    struct Batch: Encodable {
        var requests: [Exchange]
        var concurrency: Int
        var together: Bool
    }

    /// Sends `requests` through Python's `http.client` (urllib adds a `Content-Type` of its
    /// own), `concurrency` at a time (with `together`: all at once, each on a connection opened
    /// before the first is sent), and returns the answers in the same order.
    static func exchange(_ requests: [Exchange], concurrency: Int = 4, together: Bool = false) async throws -> [Answered] {
        let input = String(decoding: try JSONEncoder().encode(Batch(requests: requests, concurrency: max(1, concurrency), together: together)), as: UTF8.self)
        let r = try await ExternalTool.python(exchangeScript, stdin: input)
        guard r.status == 0 else { throw HTTPProbe.ProbeFailed(message: "\(requests.count) requests: \(r.stderr)") }
        return try JSONDecoder().decode([Answered].self, from: Data(r.stdout.utf8))
    }
}
