import Foundation
import HearthKit
import HearthStore
import HearthHost

/// Server-rendered HTML for the status page (docs/operations/monitoring.md#the-status-page): every
/// text goes through ``escape(_:)``; no script, no external asset.
enum HTML {
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for c in text.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// A job's state cell: `paused` (as the page words it), disabled, running or scheduled.
    static func jobState(_ job: DaemonStatus.Job, paused: (JobPause) -> String) -> String {
        if let pause = job.pause { return paused(pause) }
        if !job.enabled { return "<span class=\"muted\">disabled</span>" }
        if job.running { return "<span class=\"ok\">running</span>" }
        return "scheduled"
    }

    /// A whole page: phone-sized viewport, inline CSS, an optional meta refresh.
    static func page(title: String, refresh: Int?, body: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        \(refresh.map { "<meta http-equiv=\"refresh\" content=\"\($0)\">" } ?? "")
        <title>\(escape(title))</title>
        <style>
        body{font-family:system-ui,sans-serif;margin:0 auto;max-width:72rem;padding:.75rem;color:#1d1d1f;background:#fafafa;line-height:1.35}
        h1{font-size:1.3rem;margin:.2rem 0 .6rem}h2{font-size:1.05rem;margin:1.2rem 0 .4rem}
        .scroll{overflow-x:auto}table{border-collapse:collapse;width:100%;font-size:.85rem;background:#fff}
        th,td{text-align:left;padding:.25rem .4rem;border-bottom:1px solid #e3e3e3;vertical-align:top;white-space:nowrap}
        td.wrap{white-space:normal;min-width:9rem}
        th{background:#f0f0f0;font-weight:600}code,pre{font-family:ui-monospace,monospace;font-size:.8rem}
        pre{background:#fff;border:1px solid #e3e3e3;padding:.5rem;overflow-x:auto;white-space:pre-wrap}
        .ok{color:#137333}.bad{color:#b3261e}.warn{color:#8a5300}.muted{color:#666}
        .tag{display:inline-block;padding:0 .35rem;border-radius:.25rem;background:#fde7c8;color:#6b3d00;font-size:.75rem}
        a{color:#0b57d0}form.act{display:inline-block;margin:.15rem .3rem .15rem 0}button{font-size:.8rem}
        </style>
        </head>
        <body>
        \(body)
        </body>
        </html>

        """
    }

    /// A status in colour: succeeded green, failed/cancelled/conflict red, skipped amber.
    static func status(_ status: String) -> String {
        let cls: String
        switch status {
        case "succeeded": cls = "ok"
        case "failed", "cancelled", "conflict": cls = "bad"
        default: cls = "warn"
        }
        return "<span class=\"\(cls)\">\(escape(status))</span>"
    }

    /// `2026-11-24 08:18:55Z` (the full ISO-8601 time in the `datetime` attribute).
    static func time(_ date: Date?) -> String {
        guard let date else { return "<span class=\"muted\">—</span>" }
        let iso = Timestamp.format(date)
        let short = iso.replacingOccurrences(of: "T", with: " ").split(separator: ".").first.map { $0 + "Z" } ?? Substring(iso)
        return "<time datetime=\"\(escape(iso))\">\(escape(String(short)))</time>"
    }


    /// A table of HTML cells; the cells of `wrapping` columns (notes, errors) may wrap, the
    /// others stay on one line (the table scrolls sideways on a phone).
    static func table(_ header: [String], _ rows: [[String]], wrapping: Set<Int> = [], empty: String) -> String {
        if rows.isEmpty { return "<p class=\"muted\">\(escape(empty))</p>" }
        var s = "<div class=\"scroll\"><table><thead><tr>"
        for h in header { s += "<th>\(escape(h))</th>" }
        s += "</tr></thead><tbody>"
        for row in rows {
            s += "<tr>" + row.enumerated().map { i, cell in wrapping.contains(i) ? "<td class=\"wrap\">\(cell)</td>" : "<td>\(cell)</td>" }.joined() + "</tr>"
        }
        return s + "</tbody></table></div>"
    }
}
