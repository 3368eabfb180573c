import HearthKit
package import HearthStore

extension OutboxEnvelope {
    /// The user a push is for: the payload's `userId`, else the recipient.
    package var userID: String { payload["userId"]?.stringValue ?? recipient }

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
            messageID: id, userID: userID, tokens: tokens,
            title: p["title"]?.stringValue ?? title, body: p["body"]?.stringValue ?? "",
            data: data, badge: p["badge"]?.intValue.map { Int($0) })
    }
}
