package import HearthKit

extension DataDirectory {
    package func rejectMemo(job: String, collection: String, name: String) -> (any RejectMemo)? {
        DirectoryRejectMemo(data: self, job: job, collection: collection, name: name, now: DirectoryRejectMemo.wallClockNanoseconds())
    }
}
