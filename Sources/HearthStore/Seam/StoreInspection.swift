/// What ``StorageBackend/inspect(collections:written:)`` found.
package struct StoreInspection: Sendable {
    /// The collections holding documents (or, in a data directory, a folder), sorted.
    package var collections: [String] = []
    package var documents = 0
    /// Files in the collections Hearth ignores (`users/notes.txt`).
    package var ignored: [String] = []
    /// Documents whose owner or group this process could not keep when rewriting them.
    package var unkeepable: [(file: String, owner: String)] = []

    package init() {}
}
