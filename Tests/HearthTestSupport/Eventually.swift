public import Testing

/// The tests' one way to wait for something that happens elsewhere (another thread, another
/// process, a server): check a condition until it holds, and fail once a deadline passes.
///
/// Between checks it waits for a sign that something changed — a ``ChangeNotifier``'s
/// `notify()` (`wakingOn:`: a line on a child's stderr, a datagram, a daemon's event) — or, where
/// nothing tells (a file another process writes, a server's view of its connections), for
/// `pollEvery`. It never sleeps past the deadline, and checks once more at it.
///
///     let port = try await eventually("the daemon's port on stderr", timeout: .seconds(10), wakingOn: stderr.changes) {
///         portNumber(in: stderr.text)
///     }
///     try await eventually("four recorded slots", timeout: .seconds(60), pollEvery: .milliseconds(500)) {
///         try await slots().count >= 4
///     }
///
/// `what` is evaluated only when the wait times out, so it can show the state at that moment
/// (`"… ; stderr: \(stderr.text)"`). `check` runs in the caller's isolation, so it may use
/// whatever the caller may (no `Sendable` needed). A cancelled task ends the wait with
/// `CancellationError`.
///
/// - Returns: the first value `check` returns that is not nil.
/// - Throws: ``TimedOut`` (naming `what` and `timeout`) when `check` still returns nil at
///   the deadline; whatever `check` throws.
@discardableResult
public func eventually<T>(
    _ what: @autoclosure () -> String,
    timeout: Duration,
    pollEvery interval: Duration = .milliseconds(20),
    isolation: isolated (any Actor)? = #isolation,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ check: () async throws -> T?
) async throws -> T {
    precondition(interval > .zero, "eventually: pollEvery must be positive")
    return try await wait(what, timeout: timeout, wake: .every(interval), isolation: isolation, sourceLocation: sourceLocation, check)
}

/// Waits until `condition` holds, checking it every `pollEvery` (the first `eventually`, for a
/// condition).
public func eventually(
    _ what: @autoclosure () -> String,
    timeout: Duration,
    pollEvery interval: Duration = .milliseconds(20),
    isolation: isolated (any Actor)? = #isolation,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ condition: () async throws -> Bool
) async throws {
    precondition(interval > .zero, "eventually: pollEvery must be positive")
    try await wait(what, timeout: timeout, wake: .every(interval), isolation: isolation, sourceLocation: sourceLocation) {
        try await condition() ? () : nil
    }
}

/// Waits until `check` returns a value, checking it now and after each `notify()` of `changes`
/// (no timer: the source tells when to look again); otherwise as the first `eventually`.
@discardableResult
public func eventually<T>(
    _ what: @autoclosure () -> String,
    timeout: Duration,
    wakingOn changes: ChangeNotifier,
    isolation: isolated (any Actor)? = #isolation,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ check: () async throws -> T?
) async throws -> T {
    try await wait(what, timeout: timeout, wake: .on(changes), isolation: isolation, sourceLocation: sourceLocation, check)
}

/// Waits until `condition` holds, checking it now and after each `notify()` of `changes`;
/// otherwise as the first `eventually`.
public func eventually(
    _ what: @autoclosure () -> String,
    timeout: Duration,
    wakingOn changes: ChangeNotifier,
    isolation: isolated (any Actor)? = #isolation,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ condition: () async throws -> Bool
) async throws {
    try await wait(what, timeout: timeout, wake: .on(changes), isolation: isolation, sourceLocation: sourceLocation) {
        try await condition() ? () : nil
    }
}

/// What an `eventually` waited for in vain: the test fails with this, naming the wait and where it was.
public struct TimedOut: Error, CustomStringConvertible {
    /// What was waited for, as the caller said (with the state at the deadline).
    public var what: String
    public var timeout: Duration
    /// The `eventually` call.
    public var sourceLocation: SourceLocation

    public var description: String {
        "timed out after \(timeout) waiting for \(what) (\(sourceLocation.fileName):\(sourceLocation.line))"
    }
}

/// When ``wait(_:timeout:wake:isolation:sourceLocation:_:)`` looks again.
private enum Wake {
    case every(Duration)
    case on(ChangeNotifier)
}

/// The one deadline loop behind every `eventually`.
private func wait<T>(
    _ what: () -> String,
    timeout: Duration,
    wake: Wake,
    isolation: isolated (any Actor)?,
    sourceLocation: SourceLocation,
    _ check: () async throws -> T?
) async throws -> T {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while true {
        // Read before the check: a change during the check wakes the wait below at once.
        let generation = if case .on(let changes) = wake { changes.generation } else { 0 }
        if let value = try await check() { return value }
        try Task.checkCancellation()
        let now = clock.now
        if now >= deadline { throw TimedOut(what: what(), timeout: timeout, sourceLocation: sourceLocation) }
        switch wake {
        case .every(let interval):
            try await Task.sleep(until: min(now + interval, deadline), clock: clock)
        case .on(let changes):
            await changes.changed(since: generation, deadline: deadline)
        }
    }
}
