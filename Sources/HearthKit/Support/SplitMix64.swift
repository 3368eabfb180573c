/// SplitMix64: a small, seedable, deterministic generator (Swift's default generator is not
/// seedable). `hearth seed --seed N` uses it so the demo data is byte-identical on every
/// machine; tests use it for repeatable jitter and fuzzing.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// Starts from `state` as given (the first output mixes `state + 0x9E3779B97F4A7C15`).
    public init(seed state: UInt64) { self.state = state }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
