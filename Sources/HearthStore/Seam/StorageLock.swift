/// A held backend lock; released by `release()` or when the holder goes away.
package protocol StorageLock: Sendable {
    func release()
}
