import HapticCore

/// What `hapticctl validate|info|render|convert` compute, without touching files or terminals: callers
/// pass bytes in and write out the text that comes back.
public enum Offline {
    /// The outcome of loading one file.
    public struct Loaded: Sendable {
        public var file: String
        public var result: Result<LoadedPattern, AHAPLoadError>

        public init(file: String, result: Result<LoadedPattern, AHAPLoadError>) {
            self.file = file
            self.result = result
        }

        /// Loads `bytes` in the format their content shows (or `format`). A file whose name says one
        /// format and whose content is the other loads as its content says, with a warning.
        public init(file: String, bytes: [UInt8], limits: AHAPLimits = .default, format: PatternFormat = .auto) {
            self.file = file
            do throws(AHAPLoadError) {
                var loaded = try PatternLoader.load(bytes: bytes, format: format, limits: limits)
                let named = PatternLoader.format(forPath: file)
                if format == .auto, named != .auto, named != loaded.format {
                    loaded.warnings.insert(.init(.warning, "$", "the file is named .\(named.rawValue) but holds \(Offline.formatName(loaded.format)); read as its content says"), at: 0)
                }
                result = .success(loaded)
            } catch {
                result = .failure(error)
            }
        }

        public static func unreadable(_ file: String, reason: String) -> Loaded {
            Loaded(file: file, result: .failure(AHAPLoadError(errors: [.init(.error, "$", "cannot read the file: \(reason)")])))
        }

        public var warnings: [AHAPDiagnostic] {
            switch result {
            case .success(let l): l.warnings
            case .failure(let e): e.warnings
            }
        }

        public var errors: [AHAPDiagnostic] {
            if case .failure(let e) = result { return e.errors }
            return []
        }
    }

    public static func formatName(_ format: PatternFormat) -> String {
        switch format {
        case .haptic: ".haptic (Meta Haptics Studio / Lofelt)"
        default: "AHAP"
        }
    }

    /// `validate`: one line per problem, `FILE: PATH: message` for errors and
    /// `FILE: PATH: warning: message` for warnings; exit status 0 only when every file loaded; and a
    /// summary, `N loaded, W with warnings, E rejected` (the W files are among the N).
    public struct ValidateReport: Sendable {
        public var errorLines: [String] = []
        public var warningLines: [String] = []
        public var loaded = 0
        public var withWarnings = 0
        public var rejected = 0
        public var exitCode: Int32 { errorLines.isEmpty ? 0 : 1 }
        public var summary: String { "\(loaded) loaded, \(withWarnings) with warnings, \(rejected) rejected" }
    }

    public static func validate(_ files: [Loaded]) -> ValidateReport {
        var report = ValidateReport()
        for f in files {
            report.warningLines += f.warnings.map { "\(f.file): \($0.path): warning: \($0.message)" }
            report.errorLines += f.errors.map { "\(f.file): \($0.path): \($0.message)" }
            if f.errors.isEmpty {
                report.loaded += 1
                if !f.warnings.isEmpty { report.withWarnings += 1 }
            } else {
                report.rejected += 1
            }
        }
        return report
    }

    /// `info`: a human summary of a loaded pattern.
    public static func info(file: String, _ loaded: LoadedPattern, profile: DeviceProfile = .generic) -> [String] {
        let p = loaded.pattern
        let compiled = CompiledPattern(p, profile: profile)
        var lines = ["File: \(file)", "Format: \(formatName(loaded.format))"]
        if let d = p.metadata?["Description"], case .string(let s) = d { lines.append("Description: \(s)") }
        lines.append("Duration: \(Format.fixed(p.duration, 3)) s (output silent by \(Format.fixed(compiled.renderEnd, 3)) s on the \(profile.name) profile)")
        let events = p.events
        lines.append("Events: \(events.count)")
        for type in EventType.allCases {
            let n = events.filter { $0.type == type }.count
            if n > 0 { lines.append("  \(type.rawValue): \(n)") }
        }
        let envelopes = events.compactMap(\.envelope)
        if !envelopes.isEmpty {
            let i = envelopes.map(\.intensity.count).reduce(0, +)
            let s = envelopes.map(\.sharpness.count).reduce(0, +)
            lines.append("Envelopes: \(envelopes.count) (\(i) intensity and \(s) sharpness breakpoints)")
        }
        let params = p.parameters
        lines.append("Parameters: \(params.count)")
        for id in DynamicParameterID.allCases {
            let n = params.filter { $0.id == id }.count
            if n > 0 { lines.append("  \(id.rawValue): \(n)") }
        }
        let curves = p.curves
        lines.append("Curves: \(curves.count)")
        for id in DynamicParameterID.allCases {
            let these = curves.filter { $0.id == id }
            if !these.isEmpty {
                let points = these.map(\.controlPoints.count).reduce(0, +)
                lines.append("  \(id.rawValue): \(these.count) (\(points) control points)")
            }
        }
        switch profile.actuators {
        case .rumble, .leftMotor, .rightMotor: break
        case .hdRumble, .hdRumbleLeft, .hdRumbleRight:
            let sharpness = events.filter(\.type.isHaptic).map { $0.value(.hapticSharpness) }
            if let lo = sharpness.min(), let hi = sharpness.max() {
                let f = (SwitchHDRumble.fundamental(sharpness: lo), SwitchHDRumble.fundamental(sharpness: hi))
                lines.append("HD rumble: events' sharpness \(Format.fixed(lo, 2))–\(Format.fixed(hi, 2)): low band \(Int(f.0.rounded()))–\(Int(f.1.rounded())) Hz, high band \(Int((2 * f.0).rounded()))–\(Int((2 * f.1).rounded())) Hz (before parameters and curves)")
            }
        case .rumbleAndTriggers:
            lines.append("Trigger motors: played by the triggers, leftTrigger and rightTrigger localities (and all)")
        }
        lines.append("Warnings: \(loaded.warnings.count)")
        lines += loaded.warnings.map { "  \($0.path): \($0.message)" }
        return lines
    }

    // MARK: rendering

    /// Most samples one render may take unless raised (`--max-samples`): 10 million rows of CSV are
    /// about half a gigabyte, 11 hours at the default 4 ms step.
    public static let defaultMaximumSamples = 10_000_000

    /// A render would take more samples than allowed.
    public struct RenderError: Error, Equatable, Sendable, CustomStringConvertible {
        public var description: String
        public init(_ description: String) { self.description = description }
    }

    /// What to sample: from `from` through `to` (default: where the output falls silent), every `step`.
    public struct Window: Equatable, Sendable {
        public var from: Double
        public var to: Double?
        public var step: Double
        public var maximumSamples: Int

        public init(from: Double = 0, to: Double? = nil, step: Double, maximumSamples: Int = Offline.defaultMaximumSamples) {
            self.from = from
            self.to = to
            self.step = step
            self.maximumSamples = maximumSamples
        }

        /// The end of the window for this pattern.
        public func end(_ compiled: CompiledPattern) -> Double { to ?? max(compiled.renderEnd, from) }

        /// Samples the window takes: `from`, `from + step`, … through the first at or after the end.
        /// Saturates instead of trapping on any input.
        public func sampleCount(_ compiled: CompiledPattern) -> Int {
            let span = end(compiled) - from
            guard step > 0, span.isFinite, step.isFinite else { return Int.max }
            let steps = (span / step).rounded(.up)
            guard steps < 9e15 else { return Int.max }
            return Int(max(steps, 0)) + 1
        }

        /// Throws when the window takes more samples than allowed, saying how to narrow it.
        public func check(_ compiled: CompiledPattern) throws(RenderError) -> Int {
            let count = sampleCount(compiled)
            guard count <= maximumSamples else {
                let n = count == Int.max ? "too many" : String(count)
                throw RenderError("rendering \(Format.fixed(from, 3))–\(Format.fixed(end(compiled), 3)) s every \(step) s takes \(n) samples, over the limit of \(maximumSamples): choose a window with --from/--to, a larger --step, or raise --max-samples")
            }
            return count
        }
    }

    /// The times a window samples, without building an array of them.
    public static func forEachSampleTime(_ compiled: CompiledPattern, _ window: Window, _ body: (Double) -> Void) throws(RenderError) {
        let count = try window.check(compiled)
        for k in 0..<count { body(window.from + Double(k) * window.step) }
    }

    /// `render --format csv`, streamed: `write` receives the text in pieces of about 64 KiB, so the
    /// output is never held whole.
    public static func csv(_ compiled: CompiledPattern, _ window: Window, write: (String) -> Void) throws(RenderError) {
        // HD rumble adds what each actuator's bands play (default locality: both actuators alike).
        let hd = compiled.profile.actuators.isHDRumble
        // The default locality's route: both motors by sharpness, or a one-motor pad's one motor.
        let route = Locality.default.route(for: compiled.profile.actuators) ?? .both
        var out = "time,intensity,sharpness,strong,weak" + (hd ? ",low_hz,low_amplitude,high_hz,high_amplitude" : "") + "\n"
        out.reserveCapacity(70_000)
        try forEachSampleTime(compiled, window) { t in
            let signal = compiled.frame(at: t)
            let m = MotorMapping.magnitudes(for: signal, profile: compiled.profile, route: route)
            out += "\(Format.fixed(t, 6)),\(Format.fixed(signal.intensity, 6)),\(Format.fixed(signal.sharpness, 6)),\(m.strong),\(m.weak)"
            if hd {
                let a = SwitchHDRumble.actuator(intensity: signal.intensity, sharpness: signal.sharpness)
                out += ",\(Format.fixed(a.low.frequency, 1)),\(Format.fixed(a.low.amplitude, 4)),\(Format.fixed(a.high.frequency, 1)),\(Format.fixed(a.high.amplitude, 4))"
            }
            out += "\n"
            if out.utf8.count >= 65_536 {
                write(out)
                out.removeAll(keepingCapacity: true)
            }
        }
        if !out.isEmpty { write(out) }
    }

    /// The whole CSV as one string (small renders and tests).
    public static func csv(_ compiled: CompiledPattern, step: Double) throws(RenderError) -> String {
        var text = ""
        try csv(compiled, Window(step: step)) { text += $0 }
        return text
    }

    // MARK: conversion

    /// `convert`: the pattern in `format`, with the warnings of what the format cannot hold.
    public static func convert(_ pattern: HapticPattern, to format: PatternFormat) throws(AHAPLoadError) -> (text: String, warnings: [AHAPDiagnostic]) {
        switch format {
        case .haptic:
            let (json, warnings) = try HapticClipWriter.convert(pattern)
            return (JSONWriter.write(json, pretty: true) + "\n", warnings)
        default:
            let (json, warnings) = AHAPWriter.convert(pattern)
            return (JSONWriter.write(json, pretty: true) + "\n", warnings)
        }
    }
}
