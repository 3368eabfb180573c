import Foundation
import HearthKit
package import HearthStore

/// Webhook endpoints disabled by a 410, in the `disabled_endpoints` table (schema version 2),
/// so that every deliverer on the database skips them (docs/storage/postgres.md#outbox).
extension PostgresBackend {
    package func disabledEndpoints() throws -> [String: DisabledEndpoint] {
        let rows = try connection.query("SELECT name, config_hash, extract(epoch FROM disabled_at)::float8, reason FROM disabled_endpoints")
        var out: [String: DisabledEndpoint] = [:]
        for r in rows.rows {
            guard let name = r[0], let hash = r[1] else { continue }
            out[name] = DisabledEndpoint(
                configHash: hash, disabledAt: Date(timeIntervalSince1970: r[2].flatMap(Double.init) ?? 0), reason: r[3] ?? "")
        }
        return out
    }

    package func disableEndpoint(_ name: String, _ entry: DisabledEndpoint) throws {
        try connection.query(
            """
            INSERT INTO disabled_endpoints (name, config_hash, disabled_at, reason) VALUES ($1, $2, $3, $4)
            ON CONFLICT (name) DO UPDATE SET config_hash = excluded.config_hash, disabled_at = excluded.disabled_at, reason = excluded.reason
            """,
            [name, entry.configHash, Timestamp.format(entry.disabledAt), entry.reason])
    }
}
