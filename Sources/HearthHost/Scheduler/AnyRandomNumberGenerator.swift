/// A type-erased, sendable random number generator, so the daemon's randomness (jitter,
/// backoff) can be injected: the system generator in production, a seeded one in tests.
package struct AnyRandomNumberGenerator: RandomNumberGenerator, Sendable {
    private var base: any RandomNumberGenerator & Sendable

    package init(_ base: any RandomNumberGenerator & Sendable) {
        self.base = base
    }

    package mutating func next() -> UInt64 {
        base.next()
    }
}
