package import HearthKit

extension JobConfig {
    /// Why a call to this job is refused before it runs, or nil: the job is not callable
    /// (`NOT_FOUND`, as for a job that does not exist) or needs a token the call came without
    /// (`UNAUTHENTICATED`). A bad token is refused before this, where tokens are checked.
    package func refusal(of call: Call) -> CallError? {
        guard callable else { return CallError(.notFound, "no callable function named \(name)") }
        if callAuth == .required, call.uid == nil { return CallError(.unauthenticated, "this function needs a signed-in user: send the user's ID token as Authorization: Bearer") }
        return nil
    }
}
