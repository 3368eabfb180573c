import Foundation
public import HearthKit

/// The seed of a test's random choices, so that a failure can be replayed.
///
/// It is `HEARTH_TEST_SEED` when that is set (to replay a failure, or to try another seed),
/// else `fixed` when the test names one, else a fresh seed from the system generator. Creating
/// it prints the seed with the test's name; interpolate it (`"\(seed)"` reads
/// `HEARTH_TEST_SEED=N`) into the messages of the expectations that depend on its draws, so the
/// failure itself says how to replay it. Draw every random choice from ``generator()``.
public struct TestSeed: Sendable, CustomStringConvertible {
    public static let variable = "HEARTH_TEST_SEED"

    public let value: UInt64

    /// Throws when `HEARTH_TEST_SEED` is set but is not an unsigned 64-bit integer.
    /// `environment`: the process's when nil.
    public init(fixed: UInt64? = nil, test: String = #function, environment: [String: String]? = nil) throws {
        if let text = (environment ?? ProcessInfo.processInfo.environment)[Self.variable] {
            guard let value = UInt64(text.trimmingCharacters(in: .whitespaces)) else {
                throw TestSeedError(text: text)
            }
            self.value = value
        } else {
            self.value = fixed ?? UInt64.random(in: 0...UInt64.max)
        }
        print("\(test): random choices from \(self) (set it to replay them)")
    }

    public var description: String { "\(Self.variable)=\(value)" }

    /// A generator that draws the same sequence for the same seed.
    public func generator() -> SplitMix64 { SplitMix64(seed: value) }
}

/// `HEARTH_TEST_SEED` is not a seed.
public struct TestSeedError: Error, CustomStringConvertible {
    public let text: String
    public var description: String {
        "environment variable \(TestSeed.variable): \"\(text)\" is not a seed; set it to an unsigned 64-bit integer (the one a failed test printed) or unset it"
    }
}
