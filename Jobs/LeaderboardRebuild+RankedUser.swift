import HearthKit

extension LeaderboardRebuild {
    /// What the rebuild keeps of a user while it ranks them: the fields of ``CampusUser`` and
    /// which of the fields it writes are missing or null — not the document's content, which
    /// it reads again only for the users whose rank or generosity changed. A steady run (no
    /// user changes) so holds no user document at all; before, every document was held whole
    /// until the end of the run (docs/performance.md#reads-at-the-floor-writes-at-the-disks-pace-issue-17).
    struct RankedUser: Sendable {
        struct Fields: OptionSet, Sendable {
            let rawValue: UInt8
            static let rank = Fields(rawValue: 1)
            static let generosityLevel = Fields(rawValue: 2)
            static let generosityScore = Fields(rawValue: 4)
        }

        /// The user, its ``CampusUser/document`` emptied: only its path and version are kept.
        var user: CampusUser
        /// The written fields that are missing or null in the document.
        var lacks: Fields

        init(_ d: Document) throws(FieldError) {
            user = try CampusUser(d)
            lacks = []
            if d["rank"]?.isNull ?? true { lacks.insert(.rank) }
            if d["generosityLevel"]?.isNull ?? true { lacks.insert(.generosityLevel) }
            if d["generosityScore"]?.isNull ?? true { lacks.insert(.generosityScore) }
            user.document.object = JSONObject()
        }

        /// The documents of `kept` (emptied by ``init(_:)``) read again, each with the version
        /// of the first read: if another writer changed one in between, the commit's version
        /// check sees it and the run starts again, as when the document had been kept. Nil for
        /// a document that is no longer a readable JSON object (then it is not written; the
        /// next run reports it).
        static func reread(_ kept: [Document], store: any DocumentStore) async throws -> [Document?] {
            let paths = kept.map(\.path)
            let reads = await BlockingIO.run { concurrentChunks(count: paths.count, chunkSize: 256) { range in store.read(paths[range]) } }
            return zip(kept, reads).map { k, read in
                guard case .document(let d) = read else { return nil }
                return Document(path: k.path, object: d.object, version: k.version)
            }
        }
    }
}
