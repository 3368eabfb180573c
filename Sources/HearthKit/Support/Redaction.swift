/// How a secret or a device token is shown in plans, logs and records: its last six
/// characters after an ellipsis (`…a1b2c3`), never the whole value.
public enum Redaction {
    public static func redact(_ secret: String) -> String {
        secret.count <= 6 ? "…" + secret : "…" + String(secret.suffix(6))
    }
}
