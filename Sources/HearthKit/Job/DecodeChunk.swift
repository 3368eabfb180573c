/// One chunk's results in ``JobContext/decode(_:_:)``: the values in order, and the documents
/// that are invalid input (in order too; reported before the chunk's values are kept).
struct DecodeChunk<T: Sendable>: Sendable {
    var values: [T] = []
    var invalid: [(DocumentPath, DocumentIssue)] = []
    /// With a memo: what the chunk turned down, and how many documents it read.
    var rejected: [FileFingerprint] = []
    var read = 0

    /// One read: a document's value, or its issue; with `fingerprint`, a document the
    /// transform turns down is remembered.
    mutating func take(_ read: DocumentRead, fingerprint: FileFingerprint?, _ transform: (Document) throws(FieldError) -> T?) {
        switch read {
        case .document(let doc):
            self.read += 1
            do throws(FieldError) {
                if let t = try transform(doc) { values.append(t) } else if let fingerprint { rejected.append(fingerprint) }
            } catch {
                invalid.append((doc.path, error.issue(in: doc.path)))
            }
        case .invalid(let p, let issue):
            self.read += 1
            invalid.append((p, issue))
        case .missing: break
        }
    }
}
