import HearthKit
package import HearthStore

extension OutboxEnvelope {
    /// The push this message carries (pushes only), addressed to `tokens`.
    package func push(tokens: [String]) -> PushNotification {
        let p = payload
        var data: [String: String] = [:]
        if let d = p["data"]?.objectValue {
            for (k, v) in d {
                switch v {
                case .string(let s): data[k] = s
                case .null: continue
                default: data[k] = JSONWriter.compact(v)
                }
            }
        }
        return PushNotification(
            messageID: id, userID: p["userId"]?.stringValue ?? recipient, tokens: tokens,
            title: p["title"]?.stringValue ?? title, body: p["body"]?.stringValue ?? "",
            data: data, badge: p["badge"]?.intValue.map { Int($0) })
    }
}
