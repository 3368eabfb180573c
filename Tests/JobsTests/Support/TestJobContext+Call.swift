import HearthKit
import HearthTesting

extension TestJobContext {
    /// Runs a callable job once (``run()``): nil when it answered (``result``), the
    /// ``CallError`` when it refused the call.
    func runCall() async throws -> CallError? {
        do {
            try await run()
            return nil
        } catch let error as CallError {
            return error
        }
    }
}
