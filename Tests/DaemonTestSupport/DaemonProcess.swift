import Foundation
import HapticClient
import HapticCore

// What the end-to-end tests of every test target share: a real hapticd on a temporary socket.

/// The project's root directory (for its pattern library and files).
public let repositoryRoot: String = {
    var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(3)
    return parts.joined(separator: "/")
}()

/// A real `hapticd` process on a temporary socket, for end-to-end tests.
public final class DaemonProcess {
    public static let binaries = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    public let dir: URL
    public let configPath: String
    public let socket: String
    public let trace: String
    public let log: String
    public let process = Process()
    /// `--simulate-control`'s standard input, when asked for.
    private let control: Pipe?

    /// Starts hapticd with `config` (TOML, appended to a [patterns] table naming `patternDirectories`,
    /// by default the project's library) and waits (bounded) until its socket accepts connections.
    /// With `activation`, systemd-socket-activate owns the socket and execs hapticd on the first
    /// connection, passing it as fd 3 (LISTEN_FDS). `socket` puts the socket at a given path (a
    /// daemon started again where its clients look for it); `control` adds `--simulate-control`,
    /// driven by `simulate(_:)`.
    public init(
        _ arguments: [String] = ["--simulate", "2"], config: String = "", activation: Bool = false, environment: [String: String] = [:],
        patternDirectories: [String] = [repositoryRoot + "/config/patterns"], socket socketPath: String? = nil, control: Bool = false
    ) throws {
        // A write to the control pipe of a daemon that has exited must be an error (EPIPE), not the
        // signal that ends every test of the run.
        if control { signal(SIGPIPE, SIG_IGN) }
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("hapticd-e2e-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        socket = socketPath ?? dir.appendingPathComponent("h.sock").path
        trace = dir.appendingPathComponent("trace.csv").path
        log = dir.appendingPathComponent("hapticd.log").path
        configPath = dir.appendingPathComponent("hapticd.toml").path
        let directories = patternDirectories.map { "\"\($0)\"" }.joined(separator: ", ")
        try ("[patterns]\ndirectories = [\(directories)]\n" + config).write(toFile: configPath, atomically: true, encoding: .utf8)
        let hapticd = Self.binaries.appendingPathComponent("hapticd").path
        guard FileManager.default.isExecutableFile(atPath: hapticd) else {
            throw E2EError("\(hapticd) is missing: run `swift build` before the tests")
        }
        let daemonArgs = [hapticd, "--config", configPath, "--socket", socket, "--trace", trace] + arguments + (control ? ["--simulate-control"] : [])
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
        self.control = control ? Pipe() : nil
        if let pipe = self.control { process.standardInput = pipe }
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

    /// Sends a `--simulate-control` line: `unplug N` or `plug N`. A daemon that has exited leaves a
    /// broken pipe: nothing is sent (the test's own expectations then fail), rather than a trap that
    /// ends every test of the run.
    public func simulate(_ line: String) {
        try? control?.fileHandleForWriting.write(contentsOf: Data((line + "\n").utf8))
    }

    public var logText: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

    public func client() throws -> HapticClient { try HapticClient(path: socket) }

    /// Rows of the --trace file: (time, device, strong, weak).
    public func traceRows() -> [(Double, Int, Int, Int)] {
        guard let text = try? String(contentsOfFile: trace, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").dropFirst().compactMap { line in
            let f = line.split(separator: ",")
            guard f.count == 4, let t = Double(f[0]), let d = Int(f[1]), let s = Int(f[2]), let w = Int(f[3]) else { return nil }
            return (t, d, s, w)
        }
    }

    /// Waits (bounded) until the trace satisfies `condition`.
    public func waitForTrace(timeout: Double = 5, _ condition: ([(Double, Int, Int, Int)]) -> Bool) -> Bool {
        let end = Date().addingTimeInterval(timeout)
        while Date() < end {
            if condition(traceRows()) { return true }
            usleep(5_000)
        }
        return condition(traceRows())
    }

    /// SIGTERM, and the exit status.
    public func terminate() -> Int32 {
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

public struct E2EError: Error, CustomStringConvertible {
    public let description: String
    public init(_ d: String) { description = d }
}

/// The error code a request fails with, or "ok".
public func code(_ client: HapticClient, _ command: String, _ body: JSONObject = JSONObject()) -> String {
    do {
        _ = try client.request(command, body)
        return "ok"
    } catch {
        if case .failed(let code, _, _) = error { return code }
        return "\(error)"
    }
}

public func number(_ o: JSONObject, _ key: String) -> Double? { if case .number(let x)? = o[key] { x } else { nil } }

/// Polls `condition` (every 10 ms) until it holds or `timeout` seconds pass; whether it held.
public func waitUntil(timeout: Double = 10, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if condition() { return true }
        usleep(10_000)
    }
    return condition()
}
