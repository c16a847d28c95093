import HapticCore

/// `render --format svg`: a plot a person reads at a glance, in the spirit of the Quick Look preview
/// macOS gives AHAP files. Three panels share one time axis:
/// 1. the events as written: continuous events as bars, transients as spikes, both as tall as their
///    intensity and coloured by sharpness (blue dull … orange sharp), dynamic parameters as markers;
/// 2. the rendered signal: intensity (filled) and sharpness (dashed);
/// 3. the two motors: strong and weak, 0…65535.
public enum SVGPlot {
    static let width = 960.0
    static let left = 70.0
    static let right = 20.0
    static let panelHeight = 130.0
    static let gap = 38.0
    static let top = 48.0

    public static func render(_ compiled: CompiledPattern, step: Double, title: String) -> String {
        let times = Offline.sampleTimes(compiled, step: step)
        let end = max(times.last ?? 0, step)
        let plotWidth = width - left - right
        func x(_ t: Double) -> Double { left + t / end * plotWidth }
        let panels = (0..<3).map { top + Double($0) * (panelHeight + gap) }
        let height = panels[2] + panelHeight + 44

        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(n(width))" height="\(n(height))" viewBox="0 0 \(n(width)) \(n(height))" font-family="sans-serif" font-size="12">
            <rect width="100%" height="100%" fill="#ffffff"/>
            <text x="\(n(left))" y="24" font-size="16" font-weight="bold">\(escape(title))</text>
            <text x="\(n(width - right))" y="24" text-anchor="end" fill="#555">profile \(escape(compiled.profile.name)) · duration \(Format.fixed(compiled.duration, 3)) s</text>

            """
        let names = ["Events", "Signal", "Motors"]
        for (i, y0) in panels.enumerated() {
            svg += "<rect x=\"\(n(left))\" y=\"\(n(y0))\" width=\"\(n(plotWidth))\" height=\"\(n(panelHeight))\" fill=\"#f7f7f9\" stroke=\"#ccc\"/>\n"
            svg += "<text x=\"\(n(left - 8))\" y=\"\(n(y0 + 14))\" text-anchor=\"end\" font-weight=\"bold\">\(names[i])</text>\n"
            for frac in [0.0, 0.5, 1.0] {
                let y = y0 + panelHeight * (1 - frac)
                svg += "<line x1=\"\(n(left))\" x2=\"\(n(left + plotWidth))\" y1=\"\(n(y))\" y2=\"\(n(y))\" stroke=\"#e2e2e6\"/>\n"
                let label = i == 2 ? String(Int(frac * 65535)) : Format.fixed(frac, 1)
                svg += "<text x=\"\(n(left - 8))\" y=\"\(n(y + 4))\" text-anchor=\"end\" fill=\"#777\" font-size=\"10\">\(label)</text>\n"
            }
        }
        // Time axis with round ticks.
        let tick = niceStep(end / 8)
        var t = 0.0
        while t <= end + 1e-9 {
            let xt = x(t)
            svg += "<line x1=\"\(n(xt))\" x2=\"\(n(xt))\" y1=\"\(n(panels[0]))\" y2=\"\(n(panels[2] + panelHeight + 4))\" stroke=\"#e2e2e6\"/>\n"
            svg += "<text x=\"\(n(xt))\" y=\"\(n(panels[2] + panelHeight + 18))\" text-anchor=\"middle\" fill=\"#555\">\(Format.fixed(t, tick < 0.1 ? 2 : 1)) s</text>\n"
            t += tick
        }

        // Panel 1: events.
        let p1 = panels[0]
        for e in compiled.events {
            let color = sharpnessColor(e.sharpness)
            let h = max(e.intensity * panelHeight, 1)
            if e.isTransient {
                svg += "<line x1=\"\(n(x(e.start)))\" x2=\"\(n(x(e.start)))\" y1=\"\(n(p1 + panelHeight))\" y2=\"\(n(p1 + panelHeight - h))\" stroke=\"\(color)\" stroke-width=\"3\"><title>transient at \(Format.fixed(e.start, 3)) s, intensity \(Format.fixed(e.intensity, 2)), sharpness \(Format.fixed(e.sharpness, 2))</title></line>\n"
                svg += "<circle cx=\"\(n(x(e.start)))\" cy=\"\(n(p1 + panelHeight - h))\" r=\"3\" fill=\"\(color)\"/>\n"
            } else {
                let w = max(x(e.start + e.duration) - x(e.start), 1)
                svg += "<rect x=\"\(n(x(e.start)))\" y=\"\(n(p1 + panelHeight - h))\" width=\"\(n(w))\" height=\"\(n(h))\" fill=\"\(color)\" fill-opacity=\"0.55\" stroke=\"\(color)\"><title>continuous \(Format.fixed(e.start, 3))–\(Format.fixed(e.start + e.duration, 3)) s, intensity \(Format.fixed(e.intensity, 2)), sharpness \(Format.fixed(e.sharpness, 2))</title></rect>\n"
            }
        }
        for p in compiled.pattern.parameters where !p.id.isAudio {
            svg += "<path d=\"M\(n(x(p.time))) \(n(p1 + 2)) l-4 -6 h8 z\" fill=\"#444\"><title>\(p.id.rawValue) = \(Format.fixed(p.value, 2)) at \(Format.fixed(p.time, 3)) s</title></path>\n"
        }
        for c in compiled.pattern.curves where !c.id.isAudio {
            let pts = c.controlPoints.map { "\(n(x(c.time + $0.time))),\(n(p1 + 4))" }.joined(separator: " ")
            svg += "<polyline points=\"\(pts)\" fill=\"none\" stroke=\"#444\" stroke-width=\"2\" stroke-dasharray=\"1 3\"><title>\(c.id.rawValue) curve</title></polyline>\n"
        }

        // Panels 2 and 3: sampled outputs.
        let p2 = panels[1]
        let p3 = panels[2]
        var intensity: [String] = []
        var sharpness: [[String]] = [[]]  // broken where the signal is silent
        var strong: [String] = []
        var weak: [String] = []
        for t in times {
            let s = compiled.frame(at: t)
            let m = MotorMapping.magnitudes(for: s, profile: compiled.profile)
            intensity.append("\(n(x(t))),\(n(p2 + panelHeight * (1 - s.intensity)))")
            if s.intensity > 0 {
                sharpness[sharpness.count - 1].append("\(n(x(t))),\(n(p2 + panelHeight * (1 - s.sharpness)))")
            } else if !sharpness[sharpness.count - 1].isEmpty {
                sharpness.append([])
            }
            strong.append("\(n(x(t))),\(n(p3 + panelHeight * (1 - Double(m.strong) / 65535)))")
            weak.append("\(n(x(t))),\(n(p3 + panelHeight * (1 - Double(m.weak) / 65535)))")
        }
        let base2 = "\(n(x(times.last ?? 0))),\(n(p2 + panelHeight)) \(n(left)),\(n(p2 + panelHeight))"
        svg += "<polygon points=\"\(intensity.joined(separator: " ")) \(base2)\" fill=\"#3b7dd8\" fill-opacity=\"0.35\" stroke=\"#3b7dd8\"/>\n"
        for run in sharpness where !run.isEmpty {
            svg += "<polyline points=\"\(run.joined(separator: " "))\" fill=\"none\" stroke=\"#e8731a\" stroke-width=\"1.5\" stroke-dasharray=\"4 3\"/>\n"
        }
        let base3 = "\(n(x(times.last ?? 0))),\(n(p3 + panelHeight)) \(n(left)),\(n(p3 + panelHeight))"
        svg += "<polygon points=\"\(strong.joined(separator: " ")) \(base3)\" fill=\"#5b3fa8\" fill-opacity=\"0.35\" stroke=\"#5b3fa8\"/>\n"
        svg += "<polyline points=\"\(weak.joined(separator: " "))\" fill=\"none\" stroke=\"#1a9e5c\" stroke-width=\"1.5\"/>\n"

        // Legends.
        // Legends sit above the top-right corner of their panel.
        let legendRight = left + plotWidth
        svg += legend(right: legendRight, y: p1 - 6, [(sharpnessColor(0), "dull"), (sharpnessColor(1), "sharp")])
        svg += legend(right: legendRight, y: p2 - 6, [("#3b7dd8", "intensity"), ("#e8731a", "sharpness")])
        svg += legend(right: legendRight, y: p3 - 6, [("#5b3fa8", "strong (low-frequency)"), ("#1a9e5c", "weak (high-frequency)")])
        svg += "</svg>\n"
        return svg
    }

    static func legend(right: Double, y: Double, _ items: [(String, String)]) -> String {
        func itemWidth(_ label: String) -> Double { 24 + Double(label.count) * 6.5 }
        let x = right - items.map { itemWidth($0.1) }.reduce(0, +)
        var s = ""
        var dx = 0.0
        for (color, label) in items {
            s += "<rect x=\"\(n(x + dx))\" y=\"\(n(y - 9))\" width=\"12\" height=\"10\" fill=\"\(color)\"/>"
            s += "<text x=\"\(n(x + dx + 16))\" y=\"\(n(y))\">\(escape(label))</text>\n"
            dx += itemWidth(label)
        }
        return s
    }

    /// Blue (sharpness 0) through violet to orange (sharpness 1).
    static func sharpnessColor(_ s: Double) -> String {
        let v = min(max(s, 0), 1)
        let r = Int(59 + (232 - 59) * v)
        let g = Int(125 + (115 - 125) * v)
        let b = Int(216 + (26 - 216) * v)
        return "rgb(\(r),\(g),\(b))"
    }

    static func niceStep(_ raw: Double) -> Double {
        guard raw > 0 else { return 1 }
        var magnitude = 1.0
        while magnitude > raw { magnitude /= 10 }
        while magnitude * 10 <= raw { magnitude *= 10 }
        for m in [1.0, 2.0, 5.0, 10.0] where magnitude * m >= raw { return magnitude * m }
        return magnitude * 10
    }

    static func n(_ x: Double) -> String { Format.fixed(x, 1) }

    static func escape(_ s: String) -> String {
        var out = ""
        for ch in s {
            switch ch {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(ch)
            }
        }
        return out
    }
}
