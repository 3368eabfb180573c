import HearthKit

/// A document a run must write was valid when first read and is no longer a readable JSON
/// object when read again to be written (``JobContext/reread(_:chunkSize:_:)``): another
/// program is rewriting it. A job whose writes belong together (`gift-settle`: a gift's
/// transaction and the balances it moves) fails the run instead of committing the rest
/// without it; nothing is committed, and the next run reads the document afresh.
struct DocumentChangedError: Error, Sendable, CustomStringConvertible {
    var path: DocumentPath

    var description: String {
        "\(path.relativeFile) changed while the job ran and is no longer a readable document, so nothing was committed; "
            + "the next run reads it again (`hearth check` says what is wrong with it if it stays so)"
    }
}
