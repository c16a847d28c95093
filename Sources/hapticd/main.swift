import ArgumentParser
import Dispatch
import Glibc
import HapticCore
import HapticDaemon
import Logging
import ServiceLifecycle
import UnixSignals

struct Hapticd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hapticd",
        abstract: "Plays AHAP haptic patterns on Linux force-feedback gamepads; takes commands on a Unix socket.",
        discussion: "Protocol: docs/PROTOCOL.md. Configuration: config/hapticd.toml (every key commented).")

    @Option(help: "Configuration file (TOML).") var config = DaemonConfig.defaultPath
    @Flag(help: "Check the configuration and exit: 0 when valid.") var checkConfig = false
    @Flag(help: "Print the socket protocol's commands (arguments, effect, permission) as JSON and exit.") var dumpProtocol = false
    @Flag(help: "Print the udev rule giving the group 'input' the hidraw nodes of the pads the configuration's hidraw profiles match, and exit (the package installs it for the built-in profiles as 70-hapticd.rules).")
    var printUdevRules = false
    @Option(help: "Socket path (overrides socket.path).") var socket: String?
    @Option(help: "Use N simulated rumble pads instead of hardware (--simulate alone means 1).") var simulate: Int?
    @Flag(help: "With --simulate: read 'unplug N' and 'plug N' lines on standard input, which unplug and plug back simulated pad N (tests of hot-plug).")
    var simulateControl = false
    @Option(help: "Append every value written to a device to this CSV file: time,device,strong,weak (monotonic seconds), and ,third,fourth when either is non-zero (re-sends of a held value are not rows).") var trace: String?
    @Option(help: "trace, debug, info, notice, warning, error or critical.") var logLevel: Logger.Level = .info

    func validate() throws {
        if let simulate, simulate < 1 || simulate > 64 { throw ValidationError("--simulate takes 1…64 pads") }
        if simulateControl && simulate == nil { throw ValidationError("--simulate-control needs --simulate") }
    }

    /// The configuration, or an error: only a missing file at the default path, not asked for,
    /// means built-in defaults (`DaemonConfig.load`).
    func loadConfig() throws -> DaemonConfig {
        let explicit = CommandLine.arguments.contains { $0 == "--config" || $0.hasPrefix("--config=") }
        do {
            return try DaemonConfig.load(path: config, explicit: explicit)
        } catch {
            throw ValidationError("\(error)")
        }
    }

    func run() async throws { try await serve() }

    func serve() async throws {
        if dumpProtocol {
            print(DaemonCore.protocolDump)
            return
        }
        if printUdevRules {
            print(DeviceProfile.udevRules(for: try loadConfig().profiles), terminator: "")
            return
        }
        if checkConfig {
            _ = try loadConfig()
            print("\(config): configuration OK")
            return
        }
        let level = logLevel
        LoggingSystem.bootstrap { JournalLogHandler(label: $0, level: level) }
        let logger = Logger(label: "hapticd")
        let settings = try loadConfig()

        let loop = RenderLoop(mode: settings.renderMode, period: settings.tickPeriod, realtime: settings.realtimePriority > 0 ? .upTo(settings.realtimePriority) : .none,
                              onsetLead: settings.onsetLead)
        switch loop.realtime {
        case .fifo, .notAsked: logger.info("render thread: \(loop.realtime.description)")
        case .notAllowed: logger.notice("render thread: \(loop.realtime.description)")
        case .refused: logger.warning("render thread: \(loop.realtime.description)")
        }
        let traceWriter = try trace.map { path in try TraceWriter(path: path) }
        let recorder = getenv("HAPTICD_RECORD_REQUESTS").flatMap { RequestRecorder(path: String(cString: $0)) }
        let core = DaemonCore(config: settings, loop: loop, logger: logger, trace: traceWriter, recorder: recorder)
        nonisolated(unsafe) var devices: DeviceManager?  // set once before the service starts
        if let n = simulate {
            for i in 0..<n {
                let pad = SimulatedPad(index: i)
                core.addPad(info: pad.info, sink: pad, simulated: true)
            }
            if simulateControl { SimulatedPad.followControlLines(fd: 0, pads: n, core: core, logger: logger) }
        } else {
            let manager = DeviceManager(core: core, logger: logger)
            do {
                try manager.start()
                devices = manager
            } catch {
                logger.error("cannot watch /dev/input: \(error); no hardware pads (try --simulate)")
            }
        }
        let server = SocketServer(core: core, logger: logger, threads: settings.socketThreads)
        let watchdog = Watchdog()
        let requestedSocket = socket ?? settings.socketPath
        let configPath = config

        // Listening starts inside the service, once the ServiceGroup has taken over SIGTERM/SIGINT:
        // a client must never see a daemon that a signal would kill without stopping the motors.
        let service = DaemonService(
            start: {
                do {
                    try server.start(path: requestedSocket, mode: settings.socketMode, groupName: settings.socketGroup)
                } catch {
                    logger.critical("\(error)")
                    throw ExitCode(1)
                }
                SystemdNotify.send("READY=1\nSTATUS=\(core.padIDs().count) pad(s)")
                watchdog.start(on: loop)
            },
            stop: {
                watchdog.stop()
                SystemdNotify.send("STOPPING=1")
                logger.info("stopping: motors off, effects erased")
                // The motors first: hot-plug and recoveries stop, then every pad is silenced and
                // released (a pad still handed over after it is released at once, not driven).
                // Closing the connections (NIO's graceful shutdown) comes after, and takes its time;
                // a command that still arrives meanwhile is refused: "hapticd is stopping".
                devices?.stop()
                core.shutdown()
                server.stop()
            })

        let reloader = Task {
            for await _ in await UnixSignalsSequence(trapping: .sighup) {
                SystemdNotify.send("RELOADING=1")
                // Fails closed: a missing, unreadable or malformed file keeps what runs.
                do {
                    core.reload(try DaemonConfig.load(path: configPath, explicit: true))
                    logger.info("configuration and pattern library reloaded")
                } catch {
                    logger.error("reload failed, keeping the running configuration: \(error)")
                }
                SystemdNotify.send("READY=1")
            }
        }

        let group = ServiceGroup(configuration: .init(
            services: [.init(service: service)], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        defer { reloader.cancel() }
        try await group.run()
    }
}

/// Pings systemd's watchdog (WATCHDOG_USEC) through the render loop's lock, so that a render loop
/// stuck holding it (its thread, or a command's) stops the pings and systemd restarts the service.
/// Its timer has a queue of its own: the render loop's thread wakes only for the pads.
final class Watchdog: @unchecked Sendable {
    // @unchecked Sendable: `timer` is set in start and cleared in stop, both on the service task.
    private var timer: DispatchSourceTimer?

    func start(on loop: RenderLoop) {
        guard let interval = SystemdNotify.watchdogInterval() else { return }
        let t = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "hapticd.watchdog"))
        t.schedule(deadline: .now(), repeating: interval / 2)
        t.setEventHandler {
            loop.perform(ticking: false) { _ in }  // waits for the lock: a loop stuck holding it stops the pings
            SystemdNotify.send("WATCHDOG=1")
        }
        t.resume()
        timer = t
    }

    func stop() {
        timer?.cancel()
        timer = nil
    }
}

/// Starts the daemon's socket, runs until SIGTERM/SIGINT starts a graceful shutdown, then stops
/// every motor and removes the socket.
struct DaemonService: Service {
    let start: @Sendable () throws -> Void
    let stop: @Sendable () -> Void

    func run() async throws {
        try start()
        try? await gracefulShutdown()
        stop()
    }
}

// `--simulate` alone means one pad: give ArgumentParser the value it needs.
var arguments = Array(CommandLine.arguments.dropFirst())
if let i = arguments.firstIndex(of: "--simulate"), i + 1 == arguments.count || arguments[i + 1].hasPrefix("-") {
    arguments.insert("1", at: i + 1)
}
do {
    var command = try Hapticd.parseAsRoot(arguments)
    if let daemon = command as? Hapticd {
        try await daemon.serve()
    } else {
        try command.run()  // --help, --version
    }
} catch {
    Hapticd.exit(withError: error)
}

extension Logger.Level: @retroactive ExpressibleByArgument {
    public init?(argument: String) { self.init(rawValue: argument.lowercased()) }
}
