import Foundation
import HearthKit
import HearthStore
import HearthHost

/// The job page's chart of run durations (docs/operations/monitoring.md#the-job-page): inline
/// SVG, one bar per run, oldest on the left, coloured by outcome; each bar's `<title>` is its
/// run, status and duration (a tooltip, no script).
struct DurationChart {
    var runs: [RunRecord]
    var width = 640
    var height = 140

    static func seconds(_ r: RunRecord) -> Double { max(0, r.end.timeIntervalSince(r.start)) }

    func render() -> String {
        let bars = runs.filter { !$0.status.rawValue.hasPrefix("skipped") }.sorted { ($0.end, $0.runID) < ($1.end, $1.runID) }
        guard !bars.isEmpty else { return "<p class=\"muted\">No runs to chart yet.</p>" }
        let top = max(bars.map(Self.seconds).max() ?? 0, 0.001)
        let plotHeight = Double(height - 20)
        let step = Double(width - 50) / Double(bars.count)
        let barWidth = max(1, step * 0.8)
        var svg = "<svg class=\"chart\" role=\"img\" aria-label=\"Run durations\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(width) \(height)\" width=\"100%\" style=\"max-width:\(width)px;background:#fff;border:1px solid #e3e3e3\">"
        svg += "<text x=\"4\" y=\"12\" font-size=\"10\" fill=\"#666\">\(HTML.escape(DurationFormat.format(.milliseconds(Int64(top * 1000)))))</text>"
        svg += "<text x=\"4\" y=\"\(height - 6)\" font-size=\"10\" fill=\"#666\">0</text>"
        svg += "<line x1=\"46\" y1=\"4\" x2=\"46\" y2=\"\(height - 16)\" stroke=\"#ccc\"/>"
        for (i, r) in bars.enumerated() {
            let s = Self.seconds(r)
            let h = max(1, plotHeight * s / top)
            let x = 48 + Double(i) * step
            let y = Double(height - 16) - h
            let colour = r.status.isFailure ? "#b3261e" : r.status == .succeededWithWarnings ? "#8a5300" : "#137333"
            let label = "\(r.runID) · \(r.status.rawValue)\(r.dryRun ? " (dry run)" : "") · \(DurationFormat.format(.milliseconds(Int64(s * 1000))))"
            svg += "<a href=\"/runs/\(HTML.escape(r.runID))\"><rect x=\"\(Self.fixed(x))\" y=\"\(Self.fixed(y))\" width=\"\(Self.fixed(barWidth))\" height=\"\(Self.fixed(h))\" fill=\"\(colour)\"\(r.dryRun ? " fill-opacity=\"0.4\"" : "")><title>\(HTML.escape(label))</title></rect></a>"
        }
        return svg + "</svg>"
    }

    static func fixed(_ v: Double) -> String { String(format: "%.1f", v) }
}
