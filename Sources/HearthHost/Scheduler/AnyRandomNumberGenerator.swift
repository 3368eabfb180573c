public import HearthKit
public import HearthStore
public import HearthHTTP
public import HearthSchedule
public import HearthOutbound
/// A type-erased, sendable random number generator, so the daemon's randomness (jitter,
/// backoff) can be injected: the system generator in production, a seeded one in tests.
public struct AnyRandomNumberGenerator: RandomNumberGenerator, Sendable {
    private var base: any RandomNumberGenerator & Sendable

    public init(_ base: any RandomNumberGenerator & Sendable) {
        self.base = base
    }

    public mutating func next() -> UInt64 {
        base.next()
    }
}
