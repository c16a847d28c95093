import HapticCore

/// `render --format svg`: a plot a person reads at a glance, for a 50 ms click and for a two-minute
/// export with thousands of transients alike. Lanes share one time axis (`--from/--to` window it):
/// 1. Events as written: transients as ticks and continuous events (and `.haptic` envelopes) as bars,
///    as tall as their intensity and coloured by sharpness on the scale shown in the legend;
/// 2. Controls (when the pattern has dynamic parameters or curves): each control's value over time on
///    a −1…1 axis, with the values written where parameters and curves begin;
/// 3. Signal: the rendered intensity as a per-pixel min/max band (dense patterns stay honest rather
///    than turning into a smear of overdrawn lines) and the sharpness on its own scale;
/// 4. Motors: the strong and weak motors as per-pixel min/max bands, in percent of full scale.
/// The header says the profile, duration and window, and notes warnings and audio events not played.
///
/// The SVG is built in four groups — `title`, `labels`, `frame`, `data` — laid out so that none covers
/// another; the tests render each group alone to PNG and check that their inks never meet.
public enum SVGPlot {
    public struct Options: Sendable {
        public var title: String
        public var window: Offline.Window
        public var width: Double
        /// Lines to note under the title (the loader's warnings, say).
        public var notes: [String]

        public init(title: String, window: Offline.Window, width: Double = 960, notes: [String] = []) {
            self.title = title
            self.window = window
            self.width = min(max(width, 480), 8000)
            self.notes = notes
        }
    }

    public struct Box: Equatable, Sendable {
        public var x, y, width, height: Double
        public init(_ x: Double, _ y: Double, _ width: Double, _ height: Double) {
            self.x = x
            self.y = y
            self.width = width
            self.height = height
        }
        public var maxX: Double { x + width }
        public var maxY: Double { y + height }
    }

    public enum LaneKind: String, Sendable {
        case events = "Events", controls = "Controls", signal = "Signal", motors = "Motors"
        /// HD rumble (a profile with `actuators = hd-rumble`): each band's amplitude, and its frequency.
        case bands = "HD rumble: band amplitude (both actuators, default locality)", frequency = "HD rumble: band frequency"
    }

    public struct Lane: Sendable {
        public var kind: LaneKind
        /// The plotting area.
        public var plot: Box
        /// The header row above it: the lane's name on the left, its legend on the right.
        public var header: Box
    }

    public struct Layout: Sendable {
        public var width: Double
        public var height: Double
        public var left: Double
        public var plotWidth: Double
        public var title: Box
        public var lanes: [Lane]
        public var titleLines: [String]
    }

    static let left = 64.0
    static let right = 48.0
    static let titleSize = 16.0
    static let textSize = 12.0
    static let laneHeights: [LaneKind: Double] = [.events: 100, .controls: 80, .signal: 110, .motors: 110, .bands: 110, .frequency: 110]
    /// The frequency lane's scale: log2, from below the low band's bottom to above the high band's top.
    static let frequencyRange = 40.0...1300.0

    /// A conservative width of `s` in a sans-serif font (DejaVu Sans runs about 0.55 em a character).
    static func textWidth(_ s: String, size: Double, bold: Bool = false) -> Double {
        Double(s.count) * size * (bold ? 0.66 : 0.6)
    }

    /// `s` cut with an ellipsis to fit `width`.
    static func fit(_ s: String, width: Double, size: Double, bold: Bool = false) -> String {
        let per = size * (bold ? 0.66 : 0.6)
        let room = Int(width / per)
        guard s.count > room, room > 1 else { return s }
        return String(s.prefix(room - 1)) + "…"
    }

    public static func layout(_ compiled: CompiledPattern, _ options: Options) -> Layout {
        let width = options.width
        let plotWidth = (width - left - right).rounded(.down)
        var lines = [fit(options.title, width: width - 20, size: titleSize, bold: true)]
        let end = options.window.end(compiled)
        lines.append(fit("profile \(compiled.profile.name) · duration \(Format.fixed(compiled.duration, 3)) s · shown \(Format.fixed(options.window.from, 3))–\(Format.fixed(end, 3)) s", width: width - 20, size: textSize))
        let audio = compiled.pattern.events.filter { !$0.type.isHaptic }.count
        var notes = options.notes
        if audio > 0 { notes.insert("\(audio) audio event(s) not played: a rumble pad plays no audio", at: 0) }
        if notes.count > 4 { notes = Array(notes.prefix(3)) + ["… and \(notes.count - 3) more (hapticctl validate lists them)"] }
        lines += notes.map { fit($0, width: width - 20, size: textSize) }
        let titleHeight = 10 + titleSize + 6 + Double(lines.count - 1) * (textSize + 5)
        var y = titleHeight + 10
        var lanes: [Lane] = []
        var kinds: [LaneKind] = [.events]
        if !compiled.controls.isEmpty { kinds.append(.controls) }
        kinds += compiled.profile.actuators.isHDRumble ? [.signal, .bands, .frequency] : [.signal, .motors]
        for kind in kinds {
            let header = Box(left, y, plotWidth, 20)
            y += 22
            let h = laneHeights[kind]!
            lanes.append(Lane(kind: kind, plot: Box(left, y, plotWidth, h), header: header))
            y += h + 8
        }
        return Layout(
            width: width, height: y + 26, left: left, plotWidth: plotWidth,
            title: Box(10, 8, width - 20, titleHeight - 6), lanes: lanes, titleLines: lines)
    }

    /// Per-pixel-column extremes of everything sampled.
    struct Column {
        var count = 0
        var intensityMin = Double.infinity, intensityMax = -Double.infinity
        var sharpnessSum = 0.0, sharpnessCount = 0
        var strongMin = Double.infinity, strongMax = -Double.infinity
        var weakMin = Double.infinity, weakMax = -Double.infinity
        var lowMin = Double.infinity, lowMax = -Double.infinity, highMin = Double.infinity, highMax = -Double.infinity
        var lowFrequencySum = 0.0, lowFrequencyCount = 0, highFrequencySum = 0.0, highFrequencyCount = 0
        var controlMin = [Double](repeating: .infinity, count: 5)
        var controlMax = [Double](repeating: -.infinity, count: 5)
    }

    static let controlIDs: [DynamicParameterID] = [
        .hapticIntensityControl, .hapticSharpnessControl, .hapticAttackTimeControl, .hapticDecayTimeControl, .hapticReleaseTimeControl,
    ]
    static let controlColors = ["#3b7dd8", "#e8731a", "#2a9d8f", "#b5179e", "#6c757d"]
    static let controlNames = ["intensity (×)", "sharpness (+)", "attack (+)", "decay (+)", "release (+)"]

    public static func render(_ compiled: CompiledPattern, _ options: Options) throws(Offline.RenderError) -> String {
        let layout = layout(compiled, options)
        let from = options.window.from
        let end = options.window.end(compiled)
        let span = max(end - from, 1e-9)
        let columns = Int(layout.plotWidth)
        func x(_ t: Double) -> Double { layout.left + (t - from) / span * layout.plotWidth }
        func column(_ t: Double) -> Int {
            let c = ((t - from) / span * Double(columns)).rounded(.down)
            return c.isFinite ? Int(min(max(c, 0), Double(columns - 1))) : 0  // saturating, never trapping
        }

        // Sample at least twice per pixel column so that no column is empty.
        var window = options.window
        window.step = min(window.step, span / Double(2 * columns))
        window.to = end
        let hasControls = !compiled.controls.isEmpty
        let hd = compiled.profile.actuators.isHDRumble
        let route = Locality.default.route(for: compiled.profile.actuators) ?? .both
        var cols = [Column](repeating: Column(), count: columns)
        try Offline.forEachSampleTime(compiled, window) { t in
            let s = compiled.frame(at: t)
            let m = MotorMapping.magnitudes(for: s, profile: compiled.profile, route: route)
            let i = column(t)
            cols[i].count += 1
            cols[i].intensityMin = min(cols[i].intensityMin, s.intensity)
            cols[i].intensityMax = max(cols[i].intensityMax, s.intensity)
            if s.intensity > 0 {
                cols[i].sharpnessSum += s.sharpness
                cols[i].sharpnessCount += 1
            }
            let strong = Double(m.strong) / 65535, weak = Double(m.weak) / 65535
            cols[i].strongMin = min(cols[i].strongMin, strong)
            cols[i].strongMax = max(cols[i].strongMax, strong)
            cols[i].weakMin = min(cols[i].weakMin, weak)
            cols[i].weakMax = max(cols[i].weakMax, weak)
            if hd {
                // What each actuator plays at the default locality (both alike): SwitchHDRumble's bands.
                let a = SwitchHDRumble.actuator(intensity: s.intensity, sharpness: s.sharpness)
                cols[i].lowMin = min(cols[i].lowMin, a.low.amplitude)
                cols[i].lowMax = max(cols[i].lowMax, a.low.amplitude)
                cols[i].highMin = min(cols[i].highMin, a.high.amplitude)
                cols[i].highMax = max(cols[i].highMax, a.high.amplitude)
                if SwitchHDRumble.level(a.low.amplitude) > 0 {
                    cols[i].lowFrequencySum += a.low.frequency
                    cols[i].lowFrequencyCount += 1
                }
                if SwitchHDRumble.level(a.high.amplitude) > 0 {
                    cols[i].highFrequencySum += a.high.frequency
                    cols[i].highFrequencyCount += 1
                }
            }
            if hasControls {
                let c = compiled.controls.values(at: t)
                for (k, id) in controlIDs.enumerated() {
                    let v = c[id]
                    cols[i].controlMin[k] = min(cols[i].controlMin[k], v)
                    cols[i].controlMax[k] = max(cols[i].controlMax[k], v)
                }
            }
        }

        var title = ""
        var labels = ""
        var frame = ""
        var data = ""
        // Header.
        for (k, line) in layout.titleLines.enumerated() {
            if k == 0 {
                title += "<text x=\"\(n(10))\" y=\"\(n(8 + titleSize))\" font-size=\"\(n(titleSize))\" font-weight=\"bold\">\(escape(line))</text>\n"
            } else {
                let y = 8 + titleSize + 6 + Double(k) * (textSize + 5) - 2
                let color = k == 1 ? "#555" : "#a33"
                title += "<text x=\"\(n(10))\" y=\"\(n(y))\" fill=\"\(color)\">\(escape(line))</text>\n"
            }
        }

        for lane in layout.lanes {
            let p = lane.plot
            frame += "<rect x=\"\(n(p.x))\" y=\"\(n(p.y))\" width=\"\(n(p.width))\" height=\"\(n(p.height))\" fill=\"#f7f7f9\" stroke=\"#cccccc\" shape-rendering=\"crispEdges\"/>\n"
            labels += "<text x=\"\(n(p.x))\" y=\"\(n(lane.header.y + 14))\" font-weight=\"bold\">\(lane.kind.rawValue)</text>\n"
            // Horizontal grid and left-axis labels.
            let ticks: [(Double, String)]
            switch lane.kind {
            case .events: ticks = [(0, "0"), (0.5, "0.5"), (1, "1")]
            case .controls: ticks = [(0, "−1"), (0.5, "0"), (1, "1")]
            case .signal: ticks = [(0, "0"), (0.5, "0.5"), (1, "1")]
            case .motors, .bands: ticks = [(0, "0%"), (0.5, "50%"), (1, "100%")]
            case .frequency: ticks = [80.0, 160, 320, 640, 1280].map { (frequencyFraction($0), "\(Int($0)) Hz") }
            }
            for (frac, label) in ticks {
                let y = p.maxY - p.height * frac
                if frac > 0 && frac < 1 { frame += "<line x1=\"\(n(p.x))\" x2=\"\(n(p.maxX))\" y1=\"\(n(y))\" y2=\"\(n(y))\" stroke=\"#e2e2e6\"/>\n" }
                let ty = frac == 1 ? y + 9 : frac == 0 ? y - 1 : y + 4
                labels += "<text x=\"\(n(p.x - 6))\" y=\"\(n(ty))\" text-anchor=\"end\" fill=\"#666\" font-size=\"10\">\(label)</text>\n"
            }
            switch lane.kind {
            case .events:
                labels += legend(lane.header, [(gradient: true, color: "", label: "sharpness 0 … 1"), (false, "tick", "transient"), (false, "#9a9aa6", "continuous")])
                data += eventsLane(compiled, p, from: from, end: end, columns: columns, column: column, x: x)
            case .controls:
                let present = controlIDs.enumerated().filter { !timeline(compiled.controls, $0.element).isEmpty }
                labels += legend(lane.header, present.map { (false, controlColors[$0.offset], controlNames[$0.offset]) })
                data += controlsLane(compiled, p, cols, from: from, end: end, x: x)
            case .signal:
                labels += legend(lane.header, [(false, "#3b7dd8", "intensity (min–max per pixel)"), (false, "#e8731a", "sharpness (right scale)")])
                for (frac, label) in [(0.0, "0"), (0.5, "0.5"), (1.0, "1")] {
                    let y = p.maxY - p.height * frac
                    let ty = frac == 1 ? y + 9 : frac == 0 ? y - 1 : y + 4
                    labels += "<text x=\"\(n(p.maxX + 6))\" y=\"\(n(ty))\" fill=\"#e8731a\" font-size=\"10\">\(label)</text>\n"
                }
                data += band(p, cols, color: "#3b7dd8") { ($0.intensityMin, $0.intensityMax) }
                data += line(p, cols, color: "#e8731a") { $0.sharpnessCount > 0 ? $0.sharpnessSum / Double($0.sharpnessCount) : nil }
            case .motors:
                labels += legend(lane.header, [(false, "#5b3fa8", "strong (low-frequency)"), (false, "#1a9e5c", "weak (high-frequency)")])
                data += band(p, cols, color: "#5b3fa8") { ($0.strongMin, $0.strongMax) }
                data += band(p, cols, color: "#1a9e5c") { ($0.weakMin, $0.weakMax) }
            case .bands:
                labels += legend(lane.header, [(false, "#5b3fa8", "low band"), (false, "#1a9e5c", "high band")])
                data += band(p, cols, color: "#5b3fa8") { ($0.lowMin, $0.lowMax) }
                data += band(p, cols, color: "#1a9e5c") { ($0.highMin, $0.highMax) }
            case .frequency:
                labels += legend(lane.header, [(false, "#5b3fa8", "low band (where it sounds)"), (false, "#1a9e5c", "high band")])
                data += line(p, cols, color: "#5b3fa8") { $0.lowFrequencyCount > 0 ? frequencyFraction($0.lowFrequencySum / Double($0.lowFrequencyCount)) : nil }
                data += line(p, cols, color: "#1a9e5c") { $0.highFrequencyCount > 0 ? frequencyFraction($0.highFrequencySum / Double($0.highFrequencyCount)) : nil }
            }
        }

        // Time axis with round ticks: grid lines inside each lane (never across the header rows), tick
        // marks and labels under the last one.
        if let last = layout.lanes.last {
            let tick = niceStep(span / 8)
            var t = (from / tick).rounded(.up) * tick
            var drawn = 0
            while t <= end + tick * 1e-9, drawn < 100 {
                let xt = x(t)
                for lane in layout.lanes {
                    frame += "<line x1=\"\(n(xt))\" x2=\"\(n(xt))\" y1=\"\(n(lane.plot.y))\" y2=\"\(n(lane.plot.maxY))\" stroke=\"#e2e2e6\"/>\n"
                }
                frame += "<line x1=\"\(n(xt))\" x2=\"\(n(xt))\" y1=\"\(n(last.plot.maxY))\" y2=\"\(n(last.plot.maxY + 4))\" stroke=\"#999\"/>\n"
                labels += "<text x=\"\(n(xt))\" y=\"\(n(last.plot.maxY + 17))\" text-anchor=\"middle\" fill=\"#555\" font-size=\"11\">\(Format.fixed(t, decimals(tick))) s</text>\n"
                t += tick
                drawn += 1
            }
        }

        return """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(n(layout.width))" height="\(n(layout.height))" viewBox="0 0 \(n(layout.width)) \(n(layout.height))" font-family="DejaVu Sans, sans-serif" font-size="\(n(textSize))">
            <defs><linearGradient id="sharpness"><stop offset="0" stop-color="\(sharpnessColor(0))"/><stop offset="1" stop-color="\(sharpnessColor(1))"/></linearGradient></defs>
            <rect width="100%" height="100%" fill="#ffffff"/>
            <g id="frame">
            \(frame)</g>
            <g id="data">
            \(data)</g>
            <g id="labels">
            \(labels)</g>
            <g id="title">
            \(title)</g>
            </svg>

            """
    }

    /// Where a frequency sits on the frequency lane (0 bottom … 1 top, log2 scale).
    public static func frequencyFraction(_ f: Double) -> Double {
        let lo = Double.log2(frequencyRange.lowerBound), hi = Double.log2(frequencyRange.upperBound)
        guard f.isFinite, f > 0 else { return 0 }
        return min(max((Double.log2(f) - lo) / (hi - lo), 0), 1)
    }

    static func timeline(_ c: ControlTimelines, _ id: DynamicParameterID) -> ControlTimeline {
        switch id {
        case .hapticIntensityControl: c.intensity
        case .hapticSharpnessControl: c.sharpness
        case .hapticAttackTimeControl: c.attack
        case .hapticDecayTimeControl: c.decay
        default: c.release
        }
    }

    /// Events as written, aggregated per pixel column so that the output stays small for any count.
    static func eventsLane(
        _ compiled: CompiledPattern, _ p: Box, from: Double, end: Double, columns: Int,
        column: (Double) -> Int, x: (Double) -> Double
    ) -> String {
        var out = ""
        // Continuous events (and envelopes): per column, the strongest one and its sharpness.
        var level = [Double](repeating: 0, count: columns)
        var sharp = [Double](repeating: 0, count: columns)
        let span = end - from
        for e in compiled.events where !e.isTransient {
            let s = e.start, t = e.start + e.duration
            guard t > from, s < end else { continue }
            let first = column(max(s, from)), last = column(min(t, end))
            let envelope = compiled.envelope(of: e)
            for i in first...last {
                let mid = from + (Double(i) + 0.5) / Double(columns) * span
                var v = e.intensity
                var sh = e.sharpness
                if let envelope {
                    let u = min(max(mid, s), t) - s
                    v = envelope.intensity(atOffset: u)
                    sh = envelope.sharpness(atOffset: u, fallback: sh)
                }
                if v > level[i] {
                    level[i] = v
                    sharp[i] = sh
                }
            }
        }
        var i = 0
        while i < columns {
            guard level[i] > 0 else { i += 1; continue }
            var j = i + 1
            let h = (level[i] * (p.height - 2)).rounded()
            let color = sharpnessColor((sharp[i] * 8).rounded() / 8)
            while j < columns, (level[j] * (p.height - 2)).rounded() == h, sharpnessColor((sharp[j] * 8).rounded() / 8) == color { j += 1 }
            out += "<rect x=\"\(n(p.x + Double(i)))\" y=\"\(n(p.maxY - max(h, 1)))\" width=\"\(n(Double(j - i)))\" height=\"\(n(max(h, 1)))\" fill=\"\(color)\" fill-opacity=\"0.5\"/>\n"
            i = j
        }
        // Transients: one tick per column holding any, as tall as the strongest there.
        var tick = [Double](repeating: -1, count: columns)
        var tickSharp = [Double](repeating: 0, count: columns)
        var count = 0
        for e in compiled.events where e.isTransient && e.start >= from && e.start <= end {
            let c = column(e.start)
            count += 1
            if e.intensity > tick[c] {
                tick[c] = e.intensity
                tickSharp[c] = e.sharpness
            }
        }
        for c in 0..<columns where tick[c] >= 0 {
            let xc = p.x + Double(c) + 0.5
            let h = max(tick[c] * (p.height - 2), 2)
            out += "<line x1=\"\(n(xc))\" x2=\"\(n(xc))\" y1=\"\(n(p.maxY))\" y2=\"\(n(p.maxY - h))\" stroke=\"\(sharpnessColor(tickSharp[c]))\" stroke-width=\"1\"/>\n"
        }
        if count > 0 && count <= 200 {
            // Few enough to name each one on hover.
            for e in compiled.events where e.isTransient && e.start >= from && e.start <= end {
                out += "<circle cx=\"\(n(x(e.start)))\" cy=\"\(n(p.maxY - max(e.intensity * (p.height - 2), 2)))\" r=\"2\" fill=\"\(sharpnessColor(e.sharpness))\"><title>transient at \(Format.fixed(e.start, 3)) s, intensity \(Format.fixed(e.intensity, 2)), sharpness \(Format.fixed(e.sharpness, 2))</title></circle>\n"
            }
        }
        return out
    }

    /// Each control's value over time (per-column extremes), with the values written where parameters
    /// and curves begin.
    static func controlsLane(_ compiled: CompiledPattern, _ p: Box, _ cols: [Column], from: Double, end: Double, x: (Double) -> Double) -> String {
        var out = ""
        func y(_ v: Double) -> Double { p.maxY - (min(max(v, -1), 1) + 1) / 2 * (p.height - 2) - 1 }
        for (k, id) in controlIDs.enumerated() {
            let tl = timeline(compiled.controls, id)
            guard !tl.isEmpty else { continue }
            var top: [String] = []
            var bottom: [String] = []
            for (i, c) in cols.enumerated() where c.count > 0 {
                let xc = p.x + Double(i) + 0.5
                top.append("\(n(xc)),\(n(y(c.controlMax[k])))")
                bottom.append("\(n(xc)),\(n(y(c.controlMin[k])))")
            }
            out += "<polygon points=\"\(top.joined(separator: " ")) \(bottom.reversed().joined(separator: " "))\" fill=\"\(controlColors[k])\" fill-opacity=\"0.3\" stroke=\"\(controlColors[k])\" stroke-width=\"1.2\" stroke-linejoin=\"round\"/>\n"
            // The value where the window begins, and where entries begin, skipping labels that would
            // crowd the previous one.
            var lastX = -Double.infinity
            var written = 0
            let firstInside = tl.starts.first { $0 >= from && $0 <= end }.map(x)
            if firstInside.map({ $0 - x(from) >= 36 }) ?? true {
                let v = tl.value(at: from)
                let text = id == .hapticIntensityControl ? "×\(Format.fixed(v, 2))" : "\(v >= 0 ? "+" : "−")\(Format.fixed(abs(v), 2))"
                let ty = v > 0 ? y(v) + 12 : y(v) - 4
                out += "<text x=\"\(n(p.x + 2))\" y=\"\(n(min(max(ty, p.y + 10), p.maxY - 2)))\" font-size=\"9\" fill=\"\(controlColors[k])\">\(text)</text>\n"
                lastX = x(from)
            }
            for (start, entry) in zip(tl.starts, tl.entries) where start >= from && start <= end {
                let xs = x(start)
                guard xs - lastX >= 36, written < 80 else { continue }
                let v: Double
                switch entry {
                case .value(let value): v = value
                case .curve(let c): v = c.controlPoints.first?.value ?? id.defaultValue
                }
                let text = id == .hapticIntensityControl ? "×\(Format.fixed(v, 2))" : "\(v >= 0 ? "+" : "−")\(Format.fixed(abs(v), 2))"
                let ty = v > 0 ? y(v) + 12 : y(v) - 4
                out += "<text x=\"\(n(xs + 2))\" y=\"\(n(min(max(ty, p.y + 10), p.maxY - 2)))\" font-size=\"9\" fill=\"\(controlColors[k])\">\(text)</text>\n"
                lastX = xs
                written += 1
            }
        }
        return out
    }

    static func band(_ p: Box, _ cols: [Column], color: String, _ value: (Column) -> (Double, Double)) -> String {
        var top: [String] = []
        var bottom: [String] = []
        for (i, c) in cols.enumerated() where c.count > 0 {
            let (lo, hi) = value(c)
            let xc = p.x + Double(i) + 0.5
            top.append("\(n(xc)),\(n(p.maxY - min(max(hi, 0), 1) * (p.height - 1)))")
            bottom.append("\(n(xc)),\(n(p.maxY - min(max(lo, 0), 1) * (p.height - 1)))")
        }
        guard !top.isEmpty else { return "" }
        return "<polygon points=\"\(top.joined(separator: " ")) \(bottom.reversed().joined(separator: " "))\" fill=\"\(color)\" fill-opacity=\"0.45\" stroke=\"\(color)\" stroke-width=\"0.8\" stroke-linejoin=\"round\"/>\n"
    }

    static func line(_ p: Box, _ cols: [Column], color: String, _ value: (Column) -> Double?) -> String {
        var runs: [[String]] = [[]]
        for (i, c) in cols.enumerated() {
            if let v = value(c) {
                runs[runs.count - 1].append("\(n(p.x + Double(i) + 0.5)),\(n(p.maxY - min(max(v, 0), 1) * (p.height - 1)))")
            } else if !runs[runs.count - 1].isEmpty {
                runs.append([])
            }
        }
        return runs.filter { !$0.isEmpty }.map {
            "<polyline points=\"\($0.joined(separator: " "))\" fill=\"none\" stroke=\"\(color)\" stroke-width=\"1.5\"/>\n"
        }.joined()
    }

    /// A legend right-aligned in a lane's header row; a `gradient` item shows the sharpness scale.
    static func legend(_ header: Box, _ items: [(gradient: Bool, color: String, label: String)]) -> String {
        func itemWidth(_ item: (gradient: Bool, color: String, label: String)) -> Double {
            (item.gradient ? 52 : 16) + textWidth(item.label, size: 11) + 14
        }
        var x = header.maxX - items.map(itemWidth).reduce(0, +)
        let y = header.y + 14
        var s = ""
        for item in items {
            if item.gradient {
                s += "<rect x=\"\(n(x))\" y=\"\(n(y - 9))\" width=\"46\" height=\"10\" fill=\"url(#sharpness)\"/>"
                s += "<text x=\"\(n(x + 52))\" y=\"\(n(y))\" font-size=\"11\">\(escape(item.label))</text>\n"
            } else if item.color == "tick" {
                s += "<line x1=\"\(n(x + 5.5))\" x2=\"\(n(x + 5.5))\" y1=\"\(n(y + 1))\" y2=\"\(n(y - 10))\" stroke=\"#444\" stroke-width=\"1.5\"/>"
                s += "<text x=\"\(n(x + 16))\" y=\"\(n(y))\" font-size=\"11\">\(escape(item.label))</text>\n"
            } else {
                s += "<rect x=\"\(n(x))\" y=\"\(n(y - 9))\" width=\"11\" height=\"10\" fill=\"\(item.color)\"/>"
                s += "<text x=\"\(n(x + 16))\" y=\"\(n(y))\" font-size=\"11\">\(escape(item.label))</text>\n"
            }
            x += itemWidth(item)
        }
        return s
    }

    /// Blue (sharpness 0, dull) through violet to orange (sharpness 1, sharp).
    static func sharpnessColor(_ s: Double) -> String {
        let v = s.isFinite ? min(max(s, 0), 1) : 0
        let r = Int(59 + (232 - 59) * v)
        let g = Int(125 + (115 - 125) * v)
        let b = Int(216 + (26 - 216) * v)
        return "rgb(\(r),\(g),\(b))"
    }

    static func niceStep(_ raw: Double) -> Double {
        guard raw > 0, raw.isFinite else { return 1 }
        var magnitude = 1.0
        while magnitude > raw { magnitude /= 10 }
        while magnitude * 10 <= raw { magnitude *= 10 }
        for m in [1.0, 2.0, 5.0, 10.0] where magnitude * m >= raw { return magnitude * m }
        return magnitude * 10
    }

    static func decimals(_ tick: Double) -> Int {
        var d = 0
        var t = tick
        while t < 1 && d < 6 {
            t *= 10
            d += 1
        }
        return d
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
