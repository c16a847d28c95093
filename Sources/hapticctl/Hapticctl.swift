import ArgumentParser
import Foundation
import HapticCore
import HapticTools

@main
struct Hapticctl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hapticctl",
        abstract: "Play haptics on rumble gamepads through hapticd, and check, inspect and render AHAP patterns.",
        discussion: "Daemon commands talk to hapticd's socket (--socket, $HAPTICD_SOCKET, or the default). validate, info and render work offline. Shell completions: hapticctl --generate-completion-script bash|zsh|fish.",
        subcommands: [
            Play.self, Stop.self, Devices.self, Patterns.self, Param.self, Curve.self, Create.self, Start.self, Cancel.self,
            Pause.self, Resume.self, Seek.self, SetPlayer.self, Destroy.self, Engine.self, Gain.self, Caps.self, Feedback.self,
            Prepare.self, Rumble.self, Watch.self, Ping.self,
            Version.self, Request.self, Validate.self, Info.self, Render.self,
        ]
    )
}

/// Reads a file's bytes, or reports why not in the loader's diagnostic form.
func load(_ path: String) -> Offline.Loaded {
    guard let data = FileManager.default.contents(atPath: path) else {
        let reason = FileManager.default.fileExists(atPath: path) ? "permission denied or not a file" : "no such file"
        return .unreadable(path, reason: reason)
    }
    return Offline.Loaded(file: path, bytes: [UInt8](data))
}

func printError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check AHAP files: exit 0 when every file loads; one line per problem otherwise.")

    @Argument(help: "AHAP files to check.") var files: [String]

    func run() throws {
        let report = Offline.validate(files.map(load))
        report.warningLines.forEach(printError)
        report.errorLines.forEach(printError)
        if report.exitCode != 0 { throw ExitCode(report.exitCode) }
    }
}

struct ProfileOption: ParsableArguments {
    @Option(help: "Device profile: \(DeviceProfile.builtIn.map(\.name).joined(separator: ", ")).")
    var profile = DeviceProfile.generic.name

    func resolve() throws -> DeviceProfile {
        guard let p = DeviceProfile.named(profile) else {
            throw ValidationError("unknown profile '\(profile)'; known: \(DeviceProfile.builtIn.map(\.name).joined(separator: ", "))")
        }
        return p
    }
}

/// Loads one file for info/render, printing its problems and failing when it does not load.
func loadOrFail(_ file: String) throws -> LoadedPattern {
    let loaded = load(file)
    switch loaded.result {
    case .success(let l): return l
    case .failure:
        Offline.validate([loaded]).errorLines.forEach(printError)
        throw ExitCode(1)
    }
}

struct Info: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Summarise a pattern: duration, events, parameters, curves, warnings.")

    @Argument(help: "An AHAP file.") var file: String
    @OptionGroup var profileOption: ProfileOption

    func run() throws {
        let profile = try profileOption.resolve()
        let loaded = try loadOrFail(file)
        Offline.info(file: file, loaded, profile: profile).forEach { print($0) }
    }
}

struct Render: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Render a pattern offline to motor magnitudes, as CSV or an SVG plot.")

    enum OutputFormat: String, ExpressibleByArgument, CaseIterable { case csv, svg }

    @Argument(help: "An AHAP file.") var file: String
    @Option(help: "Sampling step in seconds.") var step = 0.004
    @Option(help: "csv or svg.") var format = OutputFormat.csv
    @OptionGroup var profileOption: ProfileOption
    @Option(help: "Write here instead of standard output.") var output: String?

    func validate() throws {
        guard step.isFinite, step >= 0.0001, step <= 10 else {
            throw ValidationError("--step must be between 0.0001 and 10 seconds")
        }
    }

    func run() throws {
        let profile = try profileOption.resolve()
        let loaded = try loadOrFail(file)
        loaded.warnings.forEach { printError("\(file): \($0.path): warning: \($0.message)") }
        let compiled = CompiledPattern(loaded.pattern, profile: profile)
        let text: String
        switch format {
        case .csv: text = Offline.csv(compiled, step: step)
        case .svg: text = SVGPlot.render(compiled, step: step, title: (file as NSString).lastPathComponent)
        }
        if let output {
            guard FileManager.default.createFile(atPath: output, contents: Data(text.utf8)) else {
                printError("\(output): cannot write the file")
                throw ExitCode(1)
            }
        } else {
            print(text, terminator: "")
        }
    }
}
