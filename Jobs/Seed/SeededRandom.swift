import HearthKit

/// The demo data's generator: ``SplitMix64`` seeded from `--seed`, with the draws the seed
/// data needs.
typealias SeededRandom = SplitMix64

extension SplitMix64 {
    /// The generator for `hearth seed --seed N` (its state starts one step past `seed`).
    init(demoSeed seed: UInt64) { self.init(seed: seed &+ 0x9E37_79B9_7F4A_7C15) }

    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &self) }
    mutating func chance(_ p: Double) -> Bool { Double(next() >> 11) / Double(1 << 53) < p }
    mutating func pick<T>(_ items: [T]) -> T { items[int(0...(items.count - 1))] }
}
