/// Suspends until the task is cancelled, then throws `CancellationError`: the body of a job
/// that would run forever, for the tests of what cancels it (a timeout, a shutdown).
public func untilCancelled() async throws {
    let (never, continuation) = AsyncStream<Never>.makeStream()
    // The stream yields nothing and is never finished: its iteration ends only with the task's
    // cancellation.
    for await _ in never {}
    withExtendedLifetime(continuation) {}
    throw CancellationError()
}
