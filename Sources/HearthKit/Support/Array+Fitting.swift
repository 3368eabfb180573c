extension Array where Element == UInt8 {
    /// A copy of `bytes` in a buffer of their size. An array grown by appending can have twice
    /// the capacity it uses; bytes kept for the rest of a run (a changeset's documents and queued
    /// messages' payloads) are copied into one that fits
    /// (docs/performance.md#peak-memory).
    package init(fitting bytes: [UInt8]) {
        self.init(unsafeUninitializedCapacity: bytes.count) { buffer, count in
            bytes.withUnsafeBufferPointer { source in
                if let from = source.baseAddress, let to = buffer.baseAddress { to.initialize(from: from, count: source.count) }
            }
            count = bytes.count
        }
    }
}
