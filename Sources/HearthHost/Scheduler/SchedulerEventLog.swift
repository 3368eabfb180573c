/// Where the daemon tells what it does (``SchedulerEvent``): read by tests and anyone watching;
/// `hearth daemon` reads none, so only the newest ``unreadKept`` are kept, not one per write
/// since the start.
struct SchedulerEventLog: Sendable {
    static let unreadKept = 4096

    let stream: AsyncStream<SchedulerEvent>
    private let sink: AsyncStream<SchedulerEvent>.Continuation

    init() {
        (stream, sink) = AsyncStream.makeStream(of: SchedulerEvent.self, bufferingPolicy: .bufferingNewest(Self.unreadKept))
    }

    func emit(_ event: SchedulerEvent) {
        sink.yield(event)
    }

    func finish() {
        sink.finish()
    }
}
