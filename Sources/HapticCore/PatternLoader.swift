/// One entry point for every pattern format: AHAP and Meta Haptics Studio / Lofelt `.haptic` clips,
/// chosen explicitly or detected from the content. Files (hapticctl, the pattern library) and inline
/// patterns over the socket all load through here.
public enum PatternLoader {
    /// The format a parsed document is in: `.haptic` when its top level holds the `.haptic` members
    /// (`signals`, or a `version` object) and no AHAP `Pattern`; AHAP otherwise (an AHAP document
    /// without a `Pattern` still loads, as an empty pattern with a warning).
    public static func detect(_ json: JSONValue) -> PatternFormat {
        guard case .object(let o) = json, o["Pattern"] == nil else { return .ahap }
        if o["signals"] != nil { return .haptic }
        if case .object? = o["version"] { return .haptic }
        return .ahap
    }

    /// The format a file name suggests (`.ahap`, `.haptic`, case-insensitive), or `.auto`.
    public static func format(forPath path: String) -> PatternFormat {
        let lower = path.lowercased()
        if lower.hasSuffix(".haptic") { return .haptic }
        if lower.hasSuffix(".ahap") { return .ahap }
        return .auto
    }

    public static func load(
        bytes: [UInt8], format: PatternFormat = .auto, limits: AHAPLimits = .default, curveTimes: AHAPLoader.CurveTimes = .decide
    ) throws(AHAPLoadError) -> LoadedPattern {
        try AHAPLoader.checkSize(bytes.count, limits)
        return try load(json: try AHAPLoader.parse(bytes), format: format, limits: limits, curveTimes: curveTimes)
    }

    public static func load(text: String, format: PatternFormat = .auto, limits: AHAPLimits = .default) throws(AHAPLoadError) -> LoadedPattern {
        try load(bytes: Array(text.utf8), format: format, limits: limits)
    }

    /// Loads an already parsed document (an inline pattern in a socket request). `.auto` detects the
    /// format; an explicit format is obeyed, and a document that looks like the other format gets a
    /// hint in its diagnostics.
    /// `curveTimes` applies to AHAP (`AHAPLoader.CurveTimes`); a `.haptic` clip has no curves.
    public static func load(
        json: JSONValue, format: PatternFormat = .auto, limits: AHAPLimits = .default, curveTimes: AHAPLoader.CurveTimes = .decide
    ) throws(AHAPLoadError) -> LoadedPattern {
        switch format == .auto ? detect(json) : format {
        case .haptic: return try HapticClipLoader.load(json: json, limits: limits)
        default: return try AHAPLoader.load(json: json, limits: limits, curveTimes: curveTimes)
        }
    }
}
