import Foundation

/// GET requests to the daemon's endpoint through Python's urllib (the test target has no HTTP
/// client of its own): the status, the body and the content type, whatever the status.
enum HTTPProbe {
    struct Response: Decodable {
        var status: Int
        var body: String
        var contentType: String
    }

    static let script = """
        import json, sys, urllib.request, urllib.error
        url, token = sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else ""
        req = urllib.request.Request(url)
        if token:
            req.add_header("Authorization", "Bearer " + token)
        try:
            r = urllib.request.urlopen(req, timeout=10)
            status, body, ctype = r.status, r.read(), r.headers.get("Content-Type", "")
        except urllib.error.HTTPError as e:
            status, body, ctype = e.code, e.read(), e.headers.get("Content-Type", "")
        print(json.dumps({"status": status, "body": body.decode("utf-8", "replace"), "contentType": ctype}))
        """

    static func get(_ url: String, token: String? = nil) async throws -> Response {
        guard let python = ExternalTool.find(["python3"]) else { throw ExternalTool.Missing(what: "python3") }
        let r = try await ExternalTool.run(python, ["-c", script, url] + (token.map { [$0] } ?? []))
        guard r.status == 0 else { throw ProbeFailed(message: "GET \(url): \(r.stderr)") }
        return try JSONDecoder().decode(Response.self, from: Data(r.stdout.utf8))
    }

    struct ProbeFailed: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }
}
