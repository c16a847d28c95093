import HapticCore

/// What `hapticctl validate|info|render` compute, without touching files or terminals: callers pass
/// bytes in and print the lines that come out.
public enum Offline {
    /// The outcome of loading one file.
    public struct Loaded: Sendable {
        public var file: String
        public var result: Result<LoadedPattern, AHAPLoadError>

        public init(file: String, result: Result<LoadedPattern, AHAPLoadError>) {
            self.file = file
            self.result = result
        }

        public init(file: String, bytes: [UInt8], limits: AHAPLimits = .default) {
            self.file = file
            do throws(AHAPLoadError) {
                result = .success(try AHAPLoader.load(bytes: bytes, limits: limits))
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

    /// `validate`: one line per problem, `FILE: PATH: message` for errors and
    /// `FILE: PATH: warning: message` for warnings; exit status 0 only when every file loaded.
    public struct ValidateReport: Sendable {
        public var errorLines: [String] = []
        public var warningLines: [String] = []
        public var exitCode: Int32 { errorLines.isEmpty ? 0 : 1 }
    }

    public static func validate(_ files: [Loaded]) -> ValidateReport {
        var report = ValidateReport()
        for f in files {
            report.warningLines += f.warnings.map { "\(f.file): \($0.path): warning: \($0.message)" }
            report.errorLines += f.errors.map { "\(f.file): \($0.path): \($0.message)" }
        }
        return report
    }

    /// `info`: a human summary of a loaded pattern.
    public static func info(file: String, _ loaded: LoadedPattern, profile: DeviceProfile = .generic) -> [String] {
        let p = loaded.pattern
        let compiled = CompiledPattern(p, profile: profile)
        var lines = ["File: \(file)"]
        if let d = p.metadata?["Description"], case .string(let s) = d { lines.append("Description: \(s)") }
        lines.append("Duration: \(Format.fixed(p.duration, 3)) s (output silent by \(Format.fixed(compiled.renderEnd, 3)) s on the \(profile.name) profile)")
        let events = p.events
        lines.append("Events: \(events.count)")
        for type in EventType.allCases {
            let n = events.filter { $0.type == type }.count
            if n > 0 { lines.append("  \(type.rawValue): \(n)") }
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
        lines.append("Warnings: \(loaded.warnings.count)")
        lines += loaded.warnings.map { "  \($0.path): \($0.message)" }
        return lines
    }

    /// The times at which `render` samples: 0, step, 2·step, … through the first step at or after the
    /// point where the output falls silent.
    public static func sampleTimes(_ compiled: CompiledPattern, step: Double) -> [Double] {
        precondition(step > 0)
        let count = Int((compiled.renderEnd / step).rounded(.up))
        return (0...max(count, 0)).map { Double($0) * step }
    }

    /// `render --format csv`.
    public static func csv(_ compiled: CompiledPattern, step: Double) -> String {
        var out = "time,intensity,sharpness,strong,weak\n"
        for t in sampleTimes(compiled, step: step) {
            let signal = compiled.frame(at: t)
            let m = MotorMapping.magnitudes(for: signal, profile: compiled.profile)
            out += "\(Format.fixed(t, 6)),\(Format.fixed(signal.intensity, 6)),\(Format.fixed(signal.sharpness, 6)),\(m.strong),\(m.weak)\n"
        }
        return out
    }
}
