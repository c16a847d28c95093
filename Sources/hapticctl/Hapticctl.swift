import ArgumentParser
import BoundedIO
import Foundation
import HapticCore
import HapticTools

@main
struct Hapticctl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hapticctl",
        abstract: "Play haptics on rumble gamepads through hapticd, and check, inspect, render and convert AHAP and .haptic patterns.",
        discussion: "Daemon commands talk to hapticd's socket (--socket, $HAPTICD_SOCKET, or the default). validate, info, render and convert work offline, on AHAP files and Meta Haptics Studio / Lofelt .haptic clips alike (the format is read from the content). Shell completions: hapticctl --generate-completion-script bash|zsh|fish.",
        subcommands: [
            Play.self, Stop.self, Devices.self, Patterns.self, Param.self, Curve.self, Create.self, Start.self, Cancel.self,
            Pause.self, Resume.self, Seek.self, SetPlayer.self, Destroy.self, Engine.self, Gain.self, Caps.self, Feedback.self,
            Prepare.self, Rumble.self, Watch.self, Ping.self,
            Version.self, Request.self, Validate.self, Info.self, Render.self, Convert.self,
        ]
    )

    static func main() {
        lineBufferStandardOutput()
        main(nil)
    }
}

/// Limits for the files hapticctl reads.
struct FileLimits: ParsableArguments {
    @Option(help: "Largest pattern file to read, in bytes.")
    var maxFileBytes = AHAPLimits.default.maximumFileBytes

    var limits: AHAPLimits {
        var l = AHAPLimits.default
        l.maximumFileBytes = max(maxFileBytes, 0)
        return l
    }
}

enum ReadOutcome {
    case bytes([UInt8])
    case unreadable(String)
}

/// A file's bytes, up to a little past `limit` (enough to tell that it is over the limit), or why not:
/// a huge file, or a device such as /dev/zero, is never read whole.
func readBounded(_ path: String, limit: Int) -> ReadOutcome {
    switch readFile(path, limit: limit < Int.max ? limit + 1 : limit, truncating: true) {
    case .success(let bytes): return .bytes(bytes)
    case .failure(let failure) where failure.errno == EISDIR: return .unreadable("it is a directory")
    case .failure(let failure) where failure.errno == EACCES: return .unreadable("permission denied")
    case .failure(let failure): return .unreadable(failure.description)
    }
}

/// Reads and loads a pattern file, or reports why not in the loader's diagnostic form.
func load(_ path: String, limits: AHAPLimits = .default) -> Offline.Loaded {
    switch readBounded(path, limit: limits.maximumFileBytes) {
    case .bytes(let bytes) where bytes.count > limits.maximumFileBytes:
        // Only the first bytes past the limit were read (a whole read chunk, 64 KiB): the loader,
        // which sees only those, would give their count as the document's size. The file's own
        // size when it has one; else, truthfully, that it is larger.
        let message = limits.oversizedFile(size: regularFileSize(path))
        return Offline.Loaded(file: path, result: .failure(AHAPLoadError(errors: [.init(.error, "$", message)])))
    case .bytes(let bytes): return Offline.Loaded(file: path, bytes: bytes, limits: limits)
    case .unreadable(let reason): return .unreadable(path, reason: reason)
    }
}

func printError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

/// Every .ahap and .haptic file under `path` (recursively, sorted), or `path` itself when it is a file.
func patternFiles(_ path: String) -> [String] {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else { return [path] }
    guard let walker = FileManager.default.enumerator(atPath: path) else { return [path] }
    var files: [String] = []
    for case let relative as String in walker where PatternLoader.format(forPath: relative) != .auto {
        let full = (path as NSString).appendingPathComponent(relative)
        var dir: ObjCBool = false
        if FileManager.default.fileExists(atPath: full, isDirectory: &dir), !dir.boolValue { files.append(full) }
    }
    return files.sorted()
}

struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check AHAP and .haptic files: exit 0 when every file loads; one line per problem otherwise.",
        discussion: "A directory is searched recursively for .ahap and .haptic files. Problems go to standard error as FILE: PATH: message (warnings as FILE: PATH: warning: message); standard output gets the summary 'N loaded, W with warnings, E rejected' (the W are among the N).")

    @Argument(help: "Pattern files, or directories to search.") var paths: [String]
    @OptionGroup var fileLimits: FileLimits

    func run() throws {
        let files = paths.flatMap(patternFiles)
        let report = Offline.validate(files.map { load($0, limits: fileLimits.limits) })
        report.warningLines.forEach(printError)
        report.errorLines.forEach(printError)
        print(report.summary)
        if report.exitCode != 0 { throw ExitCode(report.exitCode) }
    }
}

struct ProfileOption: ParsableArguments {
    @Option(help: "Device profile: \(DeviceProfile.allBuiltIn.map(\.name).joined(separator: ", ")).")
    var profile = DeviceProfile.generic.name

    func resolve() throws -> DeviceProfile {
        guard let p = DeviceProfile.named(profile) else {
            throw ValidationError("unknown profile '\(profile)'; known: \(DeviceProfile.allBuiltIn.map(\.name).joined(separator: ", "))")
        }
        return p
    }
}

/// Loads one file for info/render/convert, printing its problems and failing when it does not load.
func loadOrFail(_ file: String, limits: AHAPLimits = .default) throws -> LoadedPattern {
    let loaded = load(file, limits: limits)
    switch loaded.result {
    case .success(let l): return l
    case .failure:
        Offline.validate([loaded]).errorLines.forEach(printError)
        throw ExitCode(1)
    }
}

struct Info: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Summarise a pattern: format, duration, events, envelopes, parameters, curves, warnings.")

    @Argument(help: "An AHAP or .haptic file.") var file: String
    @OptionGroup var profileOption: ProfileOption
    @OptionGroup var fileLimits: FileLimits

    func run() throws {
        let profile = try profileOption.resolve()
        let loaded = try loadOrFail(file, limits: fileLimits.limits)
        Offline.info(file: file, loaded, profile: profile).forEach { print($0) }
    }
}

/// Writes text to a file or standard output as it comes, without holding it whole.
final class OutputStream {
    let handle: FileHandle
    let path: String?

    init(path: String?) throws {
        self.path = path
        if let path {
            guard FileManager.default.createFile(atPath: path, contents: nil), let h = FileHandle(forWritingAtPath: path) else {
                printError("\(path): cannot write the file")
                throw ExitCode(1)
            }
            handle = h
        } else {
            handle = FileHandle.standardOutput
        }
    }

    func write(_ text: String) { handle.write(Data(text.utf8)) }

    func close() { if path != nil { try? handle.close() } }
}

struct Render: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Render a pattern offline to motor magnitudes, as CSV or an SVG plot, or to voice-coil waveforms as a WAV.",
        discussion: "CSV rows are streamed: time,intensity,sharpness,strong,weak every --step from --from through --to (default: where the output falls silent). WAV: the left and right voice-coil actuators (a DualSense's) as 16-bit stereo at --sample-rate, routed by --locality (docs/rendering.md, Waveforms). A render that would take more than --max-samples samples is refused with a message; narrow it with --from/--to or a larger --step.")

    enum OutputFormat: String, ExpressibleByArgument, CaseIterable { case csv, svg, wav }

    @Argument(help: "An AHAP or .haptic file.") var file: String
    @Option(parsing: .unconditional, help: "Sampling step in seconds.") var step = 0.004
    @Option(parsing: .unconditional, help: "Start of the window, in seconds.") var from = 0.0
    @Option(parsing: .unconditional, help: "End of the window, in seconds (default: where the output falls silent).") var to: Double?
    @Option(parsing: .unconditional, help: "Most samples to take.") var maxSamples = Offline.defaultMaximumSamples
    @Option(help: "csv, svg or wav.") var format = OutputFormat.csv
    @Option(parsing: .unconditional, help: "WAV sample rate in Hz (8000–192000).") var sampleRate = 48_000
    @Option(help: "WAV: the locality whose actuators play (default, all, handles, leftHandle, rightHandle).") var locality = "default"
    @Option(parsing: .unconditional, help: "Width of the SVG plot in pixels.") var width = 960.0
    @OptionGroup var profileOption: ProfileOption
    @OptionGroup var fileLimits: FileLimits
    @Option(name: [.short, .long], help: "Write here instead of standard output.") var output: String?

    func validate() throws {
        guard step.isFinite, step >= 0.0001, step <= 10 else {
            throw ValidationError("--step must be between 0.0001 and 10 seconds")
        }
        guard from.isFinite, from >= 0 else { throw ValidationError("--from must be a time ≥ 0") }
        if let to { guard to.isFinite, to > from else { throw ValidationError("--to must be a time after --from") } }
        guard maxSamples > 0 else { throw ValidationError("--max-samples must be > 0") }
        guard width.isFinite, width >= 480, width <= 8000 else { throw ValidationError("--width must be between 480 and 8000") }
        guard (8_000...192_000).contains(sampleRate) else { throw ValidationError("--sample-rate must be between 8000 and 192000") }
        guard let l = Locality(rawValue: locality), l.actuatorGains != nil else {
            throw ValidationError("--locality must be one of default, all, handles, leftHandle, rightHandle")
        }
    }

    func run() throws {
        let profile = try profileOption.resolve()
        let loaded = try loadOrFail(file, limits: fileLimits.limits)
        loaded.warnings.forEach { printError("\(file): \($0.path): warning: \($0.message)") }
        let compiled = CompiledPattern(loaded.pattern, profile: profile)
        let window = Offline.Window(from: from, to: to, step: step, maximumSamples: maxSamples)
        do {
            switch format {
            case .csv:
                // Check before creating the output, so that a refused render leaves no empty file.
                _ = try window.check(compiled)
                let out = try OutputStream(path: output)
                defer { out.close() }
                try Offline.csv(compiled, window) { out.write($0) }
            case .svg:
                let notes = loaded.warnings.isEmpty ? [] : ["\(loaded.warnings.count) warning(s); first: \(loaded.warnings[0].description)"]
                let text = try SVGPlot.render(compiled, .init(title: (file as NSString).lastPathComponent, window: window, width: width, notes: notes))
                let out = try OutputStream(path: output)
                defer { out.close() }
                out.write(text)
            case .wav:
                let l = Locality(rawValue: locality) ?? .default
                _ = try Offline.wavFrames(compiled, window, sampleRate: sampleRate, locality: l)
                let out = try OutputStream(path: output)
                defer { out.close() }
                try Offline.wav(compiled, window, sampleRate: sampleRate, locality: l) {
                    out.handle.write(Data($0))
                }
            }
        } catch let error as Offline.RenderError {
            printError("hapticctl: \(file): \(error)")
            throw ExitCode(1)
        }
    }
}

struct Convert: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Convert between AHAP and Meta Haptics Studio / Lofelt .haptic.",
        discussion: "The output format follows OUT's extension (.ahap or .haptic) unless --to says otherwise. What the target format cannot hold is printed as warnings (FILE: PATH: warning: message); the file is written all the same.")

    enum Target: String, ExpressibleByArgument, CaseIterable { case ahap, haptic }

    @Argument(help: "The pattern to convert (AHAP or .haptic).") var input: String
    @Argument(help: "The file to write.") var output: String
    @Option(help: "ahap or haptic (default: from OUT's extension).") var to: Target?
    @OptionGroup var fileLimits: FileLimits

    func run() throws {
        let format: PatternFormat
        if let to {
            format = to == .haptic ? .haptic : .ahap
        } else {
            format = PatternLoader.format(forPath: output)
            guard format != .auto else {
                throw ValidationError("cannot tell the output format from '\(output)': name it .ahap or .haptic, or give --to")
            }
        }
        let loaded = try loadOrFail(input, limits: fileLimits.limits)
        loaded.warnings.forEach { printError("\(input): \($0.path): warning: \($0.message)") }
        let converted: (text: String, warnings: [AHAPDiagnostic])
        do {
            converted = try Offline.convert(loaded.pattern, to: format)
        } catch {
            error.errors.forEach { printError("\(input): \($0.path): \($0.message)") }
            throw ExitCode(1)
        }
        converted.warnings.forEach { printError("\(output): \($0.path): warning: \($0.message)") }
        let out = try OutputStream(path: output)
        out.write(converted.text)
        out.close()
    }
}
