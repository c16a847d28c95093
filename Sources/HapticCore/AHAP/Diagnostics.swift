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

/// Bounds on what a pattern may hold, so that a hostile or broken file cannot exhaust the daemon.
public struct AHAPLimits: Equatable, Sendable, Codable {
    public var maximumFileBytes: Int
    public var maximumEvents: Int
    /// Longest continuous event, in seconds (the limit seen across the ecosystem).
    public var maximumContinuousDuration: Double
    public var maximumCurveControlPoints: Int

    public init(
        maximumFileBytes: Int = 1 << 20, maximumEvents: Int = 16_384,
        maximumContinuousDuration: Double = 30, maximumCurveControlPoints: Int = 16
    ) {
        self.maximumFileBytes = maximumFileBytes
        self.maximumEvents = maximumEvents
        self.maximumContinuousDuration = maximumContinuousDuration
        self.maximumCurveControlPoints = maximumCurveControlPoints
    }

    public static let `default` = AHAPLimits()
}

/// A loaded pattern and the warnings its file produced.
public struct LoadedPattern: Equatable, Sendable {
    public var pattern: HapticPattern
    public var warnings: [AHAPDiagnostic]
}
