import Foundation
import HapticClient
import HapticCore
import Testing

/// A real `hapticd` process on a temporary socket, for end-to-end tests.
final class DaemonProcess {
    static let binaries = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    let dir: URL
    let configPath: String
    let socket: String
    let trace: String
    let log: String
    let process = Process()

    /// Starts hapticd with `config` (TOML, appended to a [patterns] table naming `patternDirectories`,
    /// by default the project's library) and waits (bounded) until its socket accepts connections.
    /// With `activation`, systemd-socket-activate owns the socket and execs hapticd on the first
    /// connection, passing it as fd 3 (LISTEN_FDS).
    init(
        _ arguments: [String] = ["--simulate", "2"], config: String = "", activation: Bool = false, environment: [String: String] = [:],
        patternDirectories: [String] = [repositoryRoot + "/config/patterns"]
    ) throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("hapticd-e2e-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        socket = dir.appendingPathComponent("h.sock").path
        trace = dir.appendingPathComponent("trace.csv").path
        log = dir.appendingPathComponent("hapticd.log").path
        configPath = dir.appendingPathComponent("hapticd.toml").path
        let directories = patternDirectories.map { "\"\($0)\"" }.joined(separator: ", ")
        try ("[patterns]\ndirectories = [\(directories)]\n" + config).write(toFile: configPath, atomically: true, encoding: .utf8)
        let hapticd = Self.binaries.appendingPathComponent("hapticd").path
        guard FileManager.default.isExecutableFile(atPath: hapticd) else {
            throw E2EError("\(hapticd) is missing: run `swift build` before the tests")
        }
        let daemonArgs = [hapticd, "--config", configPath, "--socket", socket, "--trace", trace] + arguments
        let full = (activation ? ["/usr/bin/systemd-socket-activate", "-l", socket] : []) + daemonArgs
        process.executableURL = URL(fileURLWithPath: full[0])
        process.arguments = Array(full.dropFirst())
        if !environment.isEmpty {
            var env = ProcessInfo.processInfo.environment
            for (k, v) in environment { env[k] = v }
            process.environment = env
        }
        FileManager.default.createFile(atPath: log, contents: nil)
        let handle = FileHandle(forWritingAtPath: log)!
        process.standardError = handle
        process.standardOutput = handle
        try process.run()
        // Ready when it says it listens (a probe connection would count against max_clients);
        // under socket activation hapticd starts only when a client connects, so connect then.
        for _ in 0..<1000 {
            if activation ? (try? HapticClient(path: socket)) != nil : logText.contains("listening on") { return }
            if !process.isRunning { throw E2EError("hapticd exited: \(logText)") }
            usleep(10_000)
        }
        throw E2EError("hapticd did not start listening within 10 s: \(logText)")
    }

    var logText: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

    func client() throws -> HapticClient { try HapticClient(path: socket) }

    /// Rows of the --trace file: (time, device, strong, weak).
    func traceRows() -> [(Double, Int, Int, Int)] {
        guard let text = try? String(contentsOfFile: trace, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").dropFirst().compactMap { line in
            let f = line.split(separator: ",")
            guard f.count == 4, let t = Double(f[0]), let d = Int(f[1]), let s = Int(f[2]), let w = Int(f[3]) else { return nil }
            return (t, d, s, w)
        }
    }

    /// Waits (bounded) until the trace satisfies `condition`.
    func waitForTrace(timeout: Double = 5, _ condition: ([(Double, Int, Int, Int)]) -> Bool) -> Bool {
        let end = Date().addingTimeInterval(timeout)
        while Date() < end {
            if condition(traceRows()) { return true }
            usleep(5_000)
        }
        return condition(traceRows())
    }

    /// SIGTERM, and the exit status.
    func terminate() -> Int32 {
        guard process.isRunning else { return process.terminationStatus }
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        return process.terminationStatus
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: dir)
    }
}

struct E2EError: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}

/// The error code a request fails with, or "ok".
func code(_ client: HapticClient, _ command: String, _ body: JSONObject = JSONObject()) -> String {
    do {
        _ = try client.request(command, body)
        return "ok"
    } catch {
        if case .failed(let code, _, _) = error { return code }
        return "\(error)"
    }
}

func number(_ o: JSONObject, _ key: String) -> Double? { if case .number(let x)? = o[key] { x } else { nil } }
