/// Who is looking at a page, for what it offers (docs/operations/monitoring.md#tokens-and-roles):
/// the forms appear only for a browser signed in with an `operate` token, each carrying the
/// session's CSRF token.
struct Viewer: Sendable {
    /// The session's CSRF token when the viewer may act from forms; nil: no forms.
    var csrf: String?
    /// Whether tokens are configured at all (else actions are impossible).
    var tokensConfigured: Bool
    /// Signed in (session or bearer), under this token name.
    var name: String?

    var canAct: Bool { csrf != nil }

    /// A form posting to `action`, its CSRF token hidden, with `fields` and a button.
    func form(_ action: String, fields: String = "", button: String) -> String {
        guard let csrf else { return "" }
        return "<form class=\"act\" method=\"post\" action=\"\(HTML.escape(action))\"><input type=\"hidden\" name=\"csrf\" value=\"\(HTML.escape(csrf))\">\(fields)<button type=\"submit\">\(HTML.escape(button))</button></form>"
    }

    /// What to say instead of the forms.
    var hint: String {
        if canAct { return "" }
        if !tokensConfigured { return "<p class=\"muted\">Actions need a token of role <code>operate</code> (<code>[[server.tokens]]</code>).</p>" }
        if name != nil { return "<p class=\"muted\">Signed in as \(HTML.escape(name ?? "")) (read only).</p>" }
        return "<p class=\"muted\"><a href=\"/login\">Sign in</a> with an <code>operate</code> token to act.</p>"
    }
}
