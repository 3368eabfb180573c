/// Plain aligned columns for text listings.
enum Table {
    static func render(header: [String], rows: [[String]]) -> String {
        var widths = header.map(\.count)
        for r in rows { for (i, c) in r.enumerated() where i < widths.count { widths[i] = max(widths[i], c.count) } }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { i, c in
                i == cells.count - 1 ? c : c + String(repeating: " ", count: widths[i] - c.count)
            }.joined(separator: "  ") + "\n"
        }
        return ([header] + rows).map(line).joined()
    }
}
