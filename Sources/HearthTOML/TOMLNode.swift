/// A value together with the line it was defined on. Equality compares the lines as well;
/// compare ``value`` alone to ignore where things were written.
package struct TOMLNode: Sendable, Equatable {
    package var value: TOMLValue
    /// 1-based line of the key that defined the value, of the array element, or of the
    /// `[header]` / `[[header]]` for tables defined that way. A table that was only created
    /// implicitly (the `a` in `[a.b]`) has the line of the header that created it.
    package var line: Int

    package init(value: TOMLValue, line: Int) {
        self.value = value
        self.line = line
    }
}
