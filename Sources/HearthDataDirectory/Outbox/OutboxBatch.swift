import Foundation
package import HearthKit
package import HearthStore

/// The messages one run committed, stored together: `pending/<job>-<runId>-b0001.jsonl`, one compact JSON
/// envelope per line (``OutboxEnvelope/queued(_:job:runID:createdAt:)``), written once by the
/// run's atomic commit and never modified; beside it, once delivery starts, the append-only
/// delivery log `pending/<…>.jsonl.log`, one record per line:
///
/// - `{"id": …, "outcome": "delivered"}`, `"dead"` or `"dropped"`: the message is finished (a
///   dead or dropped message has been written to `dead/` or `dropped/` first);
/// - `{"id": …, "outcome": "pending", "envelope": {…}}`: the message's new delivery state
///   (attempts, next attempt, targets), replacing the batch line's.
///
/// The last record for an id wins. When every message of the batch is finished, the batch file
/// is unlinked, then its log (a log without a batch is removed by the next pass).
///
/// Why: one file per message cost a create, an fsync'd replace and an unlink per message, which
/// capped delivery at a few thousand messages per second; a batch costs one file in the commit
/// and two unlinks when done. A crash can lose the log records written since the last flush
/// (their messages are then sent again: at-least-once, receivers dedupe on the stable id), never
/// a message.
package struct OutboxBatch: Sendable {
    package static let suffix = ".jsonl"
    /// A run's messages are split into batches of at most this many (`-b0001`, `-b0002`, …), so
    /// a batch file stays a few MiB and concurrent deliverers can share a big run.
    package static let maxMessages = 10_000
    package static let logSuffix = ".jsonl.log"

    /// What the log says about one message.
    package enum State: Sendable {
        case finished(String)
        case pending(OutboxEnvelope)
    }

    /// The batch's lines (without their newline), in order.
    package let lines: [ArraySlice<UInt8>]
    /// The latest log record per message id.
    package let states: [String: State]

    package init(batch: [UInt8], log: [UInt8]?) {
        lines = Self.split(batch)
        var states: [String: State] = [:]
        for line in Self.split(log ?? []) {
            // A record torn by a crash (the last line) does not parse and is ignored.
            guard case .object(let record)? = try? JSONParser.parse(line), let id = record["id"]?.stringValue,
                let outcome = record["outcome"]?.stringValue
            else { continue }
            if outcome == "pending" {
                guard let o = record["envelope"]?.objectValue else { continue }
                states[id] = .pending(OutboxEnvelope(object: o))
            } else {
                states[id] = .finished(outcome)
            }
        }
        self.states = states
    }

    /// What line `index` of the batch is now.
    package enum Entry: Sendable {
        /// A message not finished yet, with its latest state.
        case live(OutboxEnvelope)
        /// A message (or an invalid line) the log says is done.
        case finished
        /// A line that is not a message (a hand edit), not dealt with yet.
        case invalid
    }

    package func entry(at index: Int) -> Entry {
        guard let envelope = OutboxEnvelope(bytes: lines[index]), envelope.kind != nil else {
            if case .finished? = states[Self.invalidLineID(index)] { return .finished }
            return .invalid
        }
        switch states[envelope.id] {
        case .finished?: return .finished
        case .pending(let latest)?: return .live(latest)
        case nil: return .live(envelope)
        }
    }

    /// The log id of invalid line `index` (`line<N>`, counted from 1).
    package static func invalidLineID(_ index: Int) -> String { "line\(index + 1)" }

    /// The messages not finished yet, in batch order.
    package var liveMessages: [OutboxEnvelope] {
        lines.indices.compactMap { if case .live(let e) = entry(at: $0) { e } else { nil } }
    }

    /// Lines the log says are done.
    package var finishedCount: Int {
        states.values.count { if case .finished = $0 { true } else { false } }
    }

    /// Whether message `id` is in the batch and not finished.
    package func holds(_ id: String) -> Bool {
        if case .finished? = states[id] { return false }
        if case .pending? = states[id] { return true }
        return lines.contains { OutboxEnvelope(bytes: Array($0))?.id == id }
    }

    /// The bytes of a batch file holding `envelopes`.
    package static func encode(_ envelopes: [JSONObject]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(envelopes.count * 512)
        for e in envelopes {
            JSONWriter.writeCompact(.object(e), into: &out)
            out.append(0x0A)
        }
        return out
    }

    /// One log record.
    package static func record(id: String, outcome: String, envelope: OutboxEnvelope? = nil) -> [UInt8] {
        var o = JSONObject([("id", .string(id)), ("outcome", .string(outcome))])
        if let envelope { o["envelope"] = .object(envelope.object) }
        var bytes = JSONWriter.compactBytes(.object(o))
        bytes.append(0x0A)
        return bytes
    }

    /// The non-empty lines of `bytes`, without their newline (a plain loop: the generic
    /// `split(separator:)` called a closure per byte, some 1% of a push's CPU for a 6 MB batch).
    static func split(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        var ranges: [Range<Int>] = []
        bytes.withUnsafeBufferPointer { buf in
            var start = 0
            while start < buf.count {
                var stop = start
                while stop < buf.count, buf[stop] != 0x0A { stop += 1 }
                if stop > start { ranges.append(start..<stop) }
                start = stop + 1
            }
        }
        return ranges.map { bytes[$0] }
    }
}
