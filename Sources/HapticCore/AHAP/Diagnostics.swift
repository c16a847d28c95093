/// One problem found while loading a pattern, with the JSON path it concerns.
///
/// Paths read like `Pattern[3].Event.EventParameters[0].ParameterValue`; `$` is the document itself.
public struct AHAPDiagnostic: Equatable, Sendable, CustomStringConvertible {
    public enum Severity: String, Sendable { case warning, error }

    public var severity: Severity
    public var path: String
    public var message: String

    public init(_ severity: Severity, _ path: String, _ message: String) {
        self.severity = severity
        self.path = path
        self.message = message
    }

    public var description: String { "\(path): \(message)" }
}

/// Loading failed. `errors` holds every error found (loading goes on after the first, so that one run
/// reports them all); `warnings` what was found besides.
public struct AHAPLoadError: Error, Equatable, Sendable, CustomStringConvertible {
    public var errors: [AHAPDiagnostic]
    public var warnings: [AHAPDiagnostic]

    public init(errors: [AHAPDiagnostic], warnings: [AHAPDiagnostic] = []) {
        self.errors = errors
        self.warnings = warnings
    }

    public var description: String { errors.map(\.description).joined(separator: "\n") }
}

/// Bounds on what a pattern may hold, so that a hostile or broken file cannot exhaust the daemon or the
/// tools. Every bound has its own error naming it (docs/rendering.md §1).
public struct AHAPLimits: Equatable, Sendable, Codable {
    /// Largest document read from disk (hapticctl, the pattern library), in bytes. Real exports with
    /// thousands of transients are 1.4–2.2 MB; the default leaves room for much longer ones. Patterns
    /// that arrive over the socket are bounded by the daemon's line limit instead.
    public var maximumFileBytes: Int
    /// Most events in one pattern (`.haptic` emphasis points count as events).
    public var maximumEvents: Int
    /// Longest continuous event, in seconds: Apple's documented maximum. Longer durations are clamped
    /// to it with a warning, as Core Haptics clamps out-of-range values.
    public var maximumContinuousDuration: Double
    /// Most control points in one curve (and breakpoints in one `.haptic` envelope). Apple documents
    /// no limit; this bound only keeps a hostile file from growing one array without end.
    public var maximumCurveControlPoints: Int
    /// The time horizon, in seconds: no event may start or end, and no parameter or control point may
    /// sit, later than this. A pattern is something to feel; one that reaches past a day is an error.
    public var maximumPatternTime: Double

    public init(
        maximumFileBytes: Int = 16 << 20, maximumEvents: Int = 100_000,
        maximumContinuousDuration: Double = 30, maximumCurveControlPoints: Int = 1 << 20,
        maximumPatternTime: Double = 86_400
    ) {
        self.maximumFileBytes = maximumFileBytes
        self.maximumEvents = maximumEvents
        self.maximumContinuousDuration = maximumContinuousDuration
        self.maximumCurveControlPoints = maximumCurveControlPoints
        self.maximumPatternTime = maximumPatternTime
    }

    public static let `default` = AHAPLimits()

    /// The problem of a file over `maximumFileBytes` that was read only a little past it (a bounded
    /// read): its own `size` when it has one (`regularFileSize`), else that it is larger — never the
    /// count of what was read. hapticctl's and the pattern library's message.
    public func oversizedFile(size: Int?) -> String {
        if let size, size > maximumFileBytes {
            return "the file is \(size) bytes, over the pattern file limit of \(maximumFileBytes) bytes"
        }
        return "the file is larger than the pattern file limit of \(maximumFileBytes) bytes"
    }
}

/// The formats a pattern can arrive in.
public enum PatternFormat: String, CaseIterable, Sendable, Codable {
    /// Decide from the content (`PatternLoader.detect`).
    case auto
    /// Apple's AHAP (Core Haptics).
    case ahap
    /// Meta Haptics Studio / Lofelt `.haptic` clips.
    case haptic
}

/// A loaded pattern, the format it was read from, and the warnings its file produced.
public struct LoadedPattern: Equatable, Sendable {
    public var pattern: HapticPattern
    public var warnings: [AHAPDiagnostic]
    /// `.ahap` or `.haptic`: the format the document was read as.
    public var format: PatternFormat

    public init(pattern: HapticPattern, warnings: [AHAPDiagnostic], format: PatternFormat = .ahap) {
        self.pattern = pattern
        self.warnings = warnings
        self.format = format
    }
}
