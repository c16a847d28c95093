import Foundation
import HapticCore
import HapticTools
import Testing

/// The SVG plot checked the way a person sees it: rendered to PNG by rsvg-convert (librsvg, installed
/// by scripts/test.sh) and looked at pixel by pixel.
@Suite(.serialized) struct PlotTests {
    /// The case: 300 transients 50 ms apart.
    static let dense = HapticPattern(elements: (0..<300).map { i in
        .event(.transient(at: Double(i) * 0.05, intensity: 0.4 + 0.6 * Double(i % 7) / 6, sharpness: Double(i % 10) / 9))
    })

    /// Everything a plot shows: transients, a continuous event, a curve and a parameter, an audio event.
    static let mixed: HapticPattern = {
        var p = dense
        p.elements += [
            .event(.continuous(at: 2, duration: 6, intensity: 0.5, sharpness: 0.2)),
            .curve(ParameterCurve(.hapticIntensityControl, at: 2, points: [.init(0, 0.2), .init(3, 1), .init(6, 0.3)])),
            .parameter(DynamicParameter(.hapticSharpnessControl, 0.4, at: 9)),
            .event(HapticEvent(type: .audioCustom, time: 1, duration: 0.5, waveformPath: "a.wav")),
        ]
        return p
    }()

    /// `svg` with only the named groups kept (the plot puts each group's content between
    /// `<g id="NAME">` and the next `</g>`).
    static func only(_ svg: String, _ keep: Set<String>) -> String {
        var out = ""
        var rest = Substring(svg)
        while let open = rest.range(of: "<g id=\"") {
            out += rest[..<open.lowerBound]
            let nameEnd = rest[open.upperBound...].firstIndex(of: "\"")!
            let name = String(rest[open.upperBound..<nameEnd])
            let close = rest.range(of: "</g>", range: nameEnd..<rest.endIndex)!
            if keep.contains(name) { out += rest[open.lowerBound..<close.upperBound] }
            rest = rest[close.upperBound...]
        }
        return out + rest
    }

    static func png(_ svg: String) throws -> PNGImage {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hapticd-plot-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let svgURL = dir.appendingPathComponent("p.svg"), pngURL = dir.appendingPathComponent("p.png")
        try svg.write(to: svgURL, atomically: true, encoding: .utf8)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["rsvg-convert", svgURL.path, "-o", pngURL.path]
        try p.run()
        p.waitUntilExit()
        try #require(p.terminationStatus == 0, "rsvg-convert must render the plot")
        return try PNGImage(contentsOf: pngURL)
    }

    static func render(_ p: HapticPattern, from: Double = 0, to: Double? = nil, notes: [String] = []) throws -> (String, SVGPlot.Layout) {
        let compiled = CompiledPattern(p)
        let options = SVGPlot.Options(title: "a plot <of> things", window: .init(from: from, to: to, step: 0.004), notes: notes)
        return (try SVGPlot.render(compiled, options), SVGPlot.layout(compiled, options))
    }

    @Test func titleLabelsFrameAndDataNeverOverlap() throws {
        let (svg, layout) = try Self.render(Self.mixed, notes: ["3 warning(s); first: Pattern[2].Event: something long enough to reach far across the page, as warnings do"])
        let groups = ["title", "labels", "frame", "data"]
        var masks: [String: [Bool]] = [:]
        var image: PNGImage?
        for g in groups {
            let png = try Self.png(Self.only(svg, [g]))
            masks[g] = png.inkMask(margin: g == "title" || g == "labels" ? 1 : 0)
            image = png
        }
        let width = image!.width, height = image!.height
        #expect(width == Int(layout.width) && height == Int(layout.height))
        for (a, b) in [("title", "labels"), ("title", "frame"), ("title", "data"), ("labels", "frame"), ("labels", "data")] {
            var shared = 0
            var at = (0, 0)
            for i in 0..<(width * height) where masks[a]![i] && masks[b]![i] {
                shared += 1
                at = (i % width, i / width)
            }
            #expect(shared == 0, "\(a) and \(b) overlap at \(shared) pixels, e.g. (\(at.0), \(at.1))")
        }
        // Every group drew something.
        for g in groups { #expect(masks[g]!.contains(true), "\(g) is empty") }
        // The data stays inside the lanes.
        let lanes = layout.lanes.map(\.plot)
        var outside = 0
        for i in 0..<(width * height) where masks["data"]![i] {
            let x = Double(i % width), y = Double(i / width)
            if !lanes.contains(where: { x >= $0.x - 1 && x <= $0.maxX + 1 && y >= $0.y - 1 && y <= $0.maxY + 1 }) { outside += 1 }
        }
        #expect(outside == 0, "\(outside) data pixels outside the lanes")
    }

    @Test func everyLaneIsThereWithItsNameAndLegend() throws {
        let (svg, layout) = try Self.render(Self.mixed)
        #expect(layout.lanes.map(\.kind) == [.events, .controls, .signal, .motors])
        let full = try Self.png(svg)
        let labels = try Self.png(Self.only(svg, ["labels"]))
        for lane in layout.lanes {
            let p = lane.plot
            // The lane's frame: its border runs along the top edge.
            var border = 0, samples = 0
            for x in stride(from: Int(p.x) + 5, to: Int(p.maxX) - 5, by: 7) {
                samples += 1
                let onEdge = (Int(p.y) - 1...Int(p.y) + 1).contains { y in
                    let c = full.rgb(x, y)
                    return abs(c.r - 204) < 12 && abs(c.g - 204) < 12 && abs(c.b - 204) < 12
                }
                if onEdge { border += 1 }
            }
            #expect(Double(border) > 0.8 * Double(samples), "\(lane.kind) lane frame")
            // Its name at the left of the header, its legend at the right.
            func inked(_ x0: Double, _ x1: Double) -> Int {
                var n = 0
                for y in Int(lane.header.y)..<Int(lane.header.maxY) {
                    for x in Int(x0)..<Int(x1) where labels.ink(x, y) { n += 1 }
                }
                return n
            }
            #expect(inked(p.x, p.x + 60) > 20, "\(lane.kind) name")
            #expect(inked(p.maxX - 200, p.maxX) > 40, "\(lane.kind) legend")
        }
        // Legend swatches in their colours: the signal lane's intensity blue, the motors' violet and green.
        func has(_ lane: SVGPlot.LaneKind, _ r: Int, _ g: Int, _ b: Int) -> Bool {
            let h = layout.lanes.first { $0.kind == lane }!.header
            for y in Int(h.y)..<Int(h.maxY) {
                for x in Int(h.x)..<Int(h.maxX) {
                    let c = labels.rgb(x, y)
                    if abs(c.r - r) < 10 && abs(c.g - g) < 10 && abs(c.b - b) < 10 { return true }
                }
            }
            return false
        }
        #expect(has(.signal, 0x3b, 0x7d, 0xd8))
        #expect(has(.motors, 0x5b, 0x3f, 0xa8) && has(.motors, 0x1a, 0x9e, 0x5c))
        #expect(has(.events, 59, 125, 216) && has(.events, 232, 115, 26), "the sharpness scale runs from dull blue to sharp orange")
        // Words a person looks for.
        for text in ["100%", "50%", "sharpness 0 … 1", "intensity (×)", "sharpness (+)", "1 audio event(s) not played", "a plot &lt;of&gt; things", "×0.20", "+0.40"] {
            #expect(svg.contains(text), "\(text)")
        }
    }

    /// HD rumble (issue 24 §2): the plot shows each band's frequency as well as its amplitude, and a
    /// sharpness sweep is seen as a frequency sweep.
    @Test func hdRumbleShowsFrequencyAsWellAsAmplitude() throws {
        let steps = [0.1, 0.5, 0.9]
        let p = HapticPattern(elements: steps.enumerated().map { k, s in
            .event(.continuous(at: Double(k) * 0.7, duration: 0.6, intensity: 0.8, sharpness: s))
        })
        let compiled = CompiledPattern(p, profile: .switchProUSBHD)
        let options = SVGPlot.Options(title: "sweep", window: .init(from: 0, to: 2.1, step: 0.004))
        let svg = try SVGPlot.render(compiled, options), layout = SVGPlot.layout(compiled, options)
        #expect(layout.lanes.map(\.kind) == [.events, .signal, .bands, .frequency])
        for text in ["80 Hz", "320 Hz", "1280 Hz", "low band", "high band"] { #expect(svg.contains(text), "\(text)") }
        let data = try Self.png(Self.only(svg, ["data"]))
        let lane = try #require(layout.lanes.first { $0.kind == .frequency }).plot
        /// The topmost row of the lane in the colour at column x, antialiased over white (a pixel nearer
        /// the colour than white, and than the other line's); nil: the colour is not there.
        let colors = [(0x5b, 0x3f, 0xa8), (0x1a, 0x9e, 0x5c)]
        func row(_ x: Int, _ r: Int, _ g: Int, _ b: Int) -> Int? {
            func distance(_ c: (r: Int, g: Int, b: Int), _ t: (Int, Int, Int)) -> Int {
                (c.r - t.0) * (c.r - t.0) + (c.g - t.1) * (c.g - t.1) + (c.b - t.2) * (c.b - t.2)
            }
            return (Int(lane.y)..<Int(lane.maxY)).first { y in
                let c = data.rgb(x, y), d = distance(c, (r, g, b))
                return d < distance(c, (255, 255, 255)) / 4 && colors.allSatisfy { $0 == (r, g, b) || d < distance(c, $0) }
            }
        }
        var highRows: [Int] = [], lowRows: [Int] = []
        for k in steps.indices {
            let x = Int(layout.left + (Double(k) * 0.7 + 0.3) / 2.1 * layout.plotWidth)
            highRows.append(try #require(row(x, 0x1a, 0x9e, 0x5c), "the high band's line over event \(k)"))
            lowRows.append(try #require(row(x, 0x5b, 0x3f, 0xa8), "the low band's line over event \(k)"))
        }
        #expect(highRows[0] > highRows[1] && highRows[1] > highRows[2], "sharper is higher: \(highRows)")
        #expect(lowRows[0] > lowRows[1] && lowRows[1] > lowRows[2], "\(lowRows)")
        #expect(zip(lowRows, highRows).allSatisfy { $0 > $1 }, "the high band an octave above the low one")
        // Where it sits: S = 0.5 is 160 Hz and 320 Hz (docs/rendering.md §13).
        let expected320 = lane.maxY - SVGPlot.frequencyFraction(320) * (lane.height - 1)
        #expect(abs(Double(highRows[1]) - expected320) <= 2)
    }

    @Test func denseTransientsAreTicksNotABlock() throws {
        let (svg, layout) = try Self.render(Self.dense)
        let data = try Self.png(Self.only(svg, ["data"]))
        let events = layout.lanes[0].plot
        // Along a row just above the baseline, each transient is its own tick with a gap after it.
        let y = Int(events.maxY) - 3
        var runs = 0, inked = 0
        var previous = false
        for x in Int(events.x)..<Int(events.maxX) {
            let now = data.ink(x, y)
            if now { inked += 1 }
            if now && !previous { runs += 1 }
            previous = now
        }
        #expect(runs >= 290 && runs <= 300, "\(runs) ticks for 300 transients")
        #expect(Double(inked) < 0.6 * events.width, "not a solid block: \(inked) of \(Int(events.width)) pixels inked")
        #expect(svg.utf8.count < 400_000, "per-pixel drawing keeps the file small: \(svg.utf8.count) bytes")
    }

    @Test func aWindowShowsOnlyItsSpan() throws {
        let (svg, layout) = try Self.render(Self.dense, from: 3, to: 4)
        #expect(svg.contains(">3.0 s<") && svg.contains(">4.0 s<") && !svg.contains(">5.0 s<"))
        #expect(svg.contains("shown 3.000–4.000 s"))
        let data = try Self.png(Self.only(svg, ["data"]))
        let events = layout.lanes[0].plot
        var runs = 0
        var previous = false
        for x in Int(events.x)..<Int(events.maxX) {
            let now = data.ink(x, Int(events.maxY) - 3)
            if now && !previous { runs += 1 }
            previous = now
        }
        #expect(runs == 21, "transients at 3.00, 3.05, … 4.00")
        // In a one-second window the pulses and the gaps between them are both visible in the signal.
        let signal = layout.lanes.first { $0.kind == .signal }!.plot
        var top = 0
        for x in Int(signal.x)..<Int(signal.maxX) where data.ink(x, Int(signal.y) + Int(signal.height * 0.3)) { top += 1 }
        #expect(top > 50 && Double(top) < 0.9 * signal.width, "\(top)")
    }

    @Test func aLongTitleIsShortenedRatherThanOverlapping() throws {
        let compiled = CompiledPattern(Self.dense)
        let options = SVGPlot.Options(title: String(repeating: "very-long-file-name-", count: 20) + ".ahap", window: .init(step: 0.004))
        let svg = try SVGPlot.render(compiled, options)
        let title = try Self.png(Self.only(svg, ["title"]))
        var rightmost = 0
        for y in 0..<40 {
            for x in 0..<title.width where title.ink(x, y) { rightmost = max(rightmost, x) }
        }
        #expect(rightmost < title.width - 5, "the title ends inside the page (\(rightmost) of \(title.width))")
        #expect(svg.contains("…"))
    }
}
