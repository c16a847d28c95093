import Dispatch
import Evdev
import Logging

/// Finds rumble pads at start and follows hot-plug (inotify on /dev/input through a DispatchSource),
/// opening each pad and handing it to the daemon core. A plugged-in pad whose hidraw node is not
/// ready yet waits for it (inotify on /dev's `hidraw*` nodes, up to `devices.hidraw_wait`).
///
/// `@unchecked Sendable`: the monitors (inotify fds), their sources and `waits` are touched only on `queue`.
public final class DeviceManager: @unchecked Sendable {
    let core: DaemonCore
    let logger: Logger
    let queue = DispatchQueue(label: "hapticd.devices")
    private var monitor: DeviceMonitor?
    private var source: DispatchSourceRead?
    private var hidrawWatcher: InputDirectoryWatcher?
    private var hidrawSource: DispatchSourceRead?
    private var waits = HidrawWaits()
    /// `stop` was called: a recovery or a look again still queued adds nothing.
    private var stopped = false

    /// Where sysfs and /dev are (tests give trees of their own).
    let sysfs: String
    let dev: String

    public init(core: DaemonCore, logger: Logger, sysfs: String = "/sys", dev: String = "/dev") {
        self.core = core
        self.logger = logger
        self.sysfs = sysfs
        self.dev = dev
    }

    /// Reopens a device that failed while staying plugged in, a few times with a growing delay;
    /// success re-attaches it (an engine reset). If it is gone, hot-plug reports the removal.
    func recover(_ path: String, attempt: Int = 1) {
        queue.asyncAfter(deadline: .now() + 0.2 * Double(attempt)) { [weak self] in
            // Unplugged and plugged in again meanwhile, and waiting for its hidraw node: the wait decides.
            guard let self, !stopped, !waits.isWaiting(path) else { return }
            do throws(DeviceError) {
                try open(path)
                logger.notice("\(path): reopened after a device error")
            } catch {
                if error.kind == .disconnected || attempt >= 5 {
                    logger.error("\(path): not recovered: \(error)")
                } else {
                    recover(path, attempt: attempt + 1)
                }
            }
        }
    }

    /// Opens the pad at an event node and hands it to the core: through its own reports on its hidraw
    /// node where a hidraw profile matches it and the node works (docs/devices.md, "hidraw"), else
    /// through evdev, with the reason when a hidraw profile matched. A `pluggedIn` pad whose node is
    /// not ready yet (`Choice.notYet`) is not handed over: it waits (`waitForHidraw`); `waited`: its
    /// wait is over, and a node still not ready is said so before evdev.
    func open(_ path: String, pluggedIn: Bool = false, waited: Bool = false) throws(DeviceError) {
        let device = try RumbleDevice(path: path)
        let config = core.config
        if let choice = USBAudioBackend.choose(
            for: device.info, forceEvdev: config.backend == .evdev, dualSenseRumble: config.dualSenseHaptics(for: device.info.name, usbID: device.info.usbID) == .rumble, sysfs: sysfs)
        {
            // A DualSense over USB: its evdev device is the compatible vibration either way.
            let profile = device.info.profile(in: config.profiles)
            device.keepsEffectPlaying = profile.keepsEffectPlaying
            device.updateMethod = profile.updateMethod
            switch choice {
            case .evdev(let reason):
                core.addPad(info: device.info, sink: device, simulated: false, profile: profile, backend: .evdev(fallback: reason))
            case .waveform(let alsa, let reason):
                let sysfs = self.sysfs, clock = core.loop.clock
                let sink = DualSenseUSBWaveformSink(
                    device: alsa, reason: reason, rumble: device, locate: { USBAudioBackend.locate(eventNode: path, sysfs: sysfs) },
                    clock: { clock.now })
                let backend: PadBackend = alsa.map { .usbAudio(device: $0) } ?? .evdev(fallback: sink.currentStatus.reason)
                core.addPad(info: device.info, sink: sink, simulated: false, profile: profile, backend: backend)
            }
            return
        }
        let choice = HidrawBackend.choose(
            for: device.info, profiles: config.profiles, forceEvdev: config.backend == .evdev,
            dualSenseRumble: config.dualSenseHaptics(for: device.info.name, usbID: device.info.usbID) == .rumble, sysfs: sysfs, dev: dev)
        if case .notYet(let reason) = choice {
            if pluggedIn, waitForHidraw(path, reason: reason, limit: hidrawWatcher == nil ? 0 : config.hidrawWait) {
                device.close()
                return
            }
            if waited { waitIsOver(path) }
        }
        if waits.settled(path), case .hidraw(let sink, _) = choice {
            logger.info("\(path): its hidraw node \(sink.node.path) is ready")
        }
        switch choice {
        case .hidraw(let sink, let profile):
            device.close()
            core.addPad(info: device.info, sink: sink, simulated: false, profile: profile, backend: .hidraw(node: sink.node.path))
        case .waveform(let node, let path, let profile, let reason):
            // The evdev device stays open: the compatible vibration while the stream cannot run.
            device.keepsEffectPlaying = profile.keepsEffectPlaying
            device.updateMethod = profile.updateMethod
            let sink = DualSenseWaveformSink(
                node: node, path: path, reason: reason, rumble: device, vendor: device.info.vendor, product: device.info.product)
            let backend: PadBackend = node == nil ? .evdev(fallback: reason) : .hidraw(node: path)
            core.addPad(info: device.info, sink: sink, simulated: false, profile: profile, backend: backend)
        case .evdev(let reason):
            addThroughEvdev(reason)
        case .notYet(let reason):
            addThroughEvdev(reason)
        }
        func addThroughEvdev(_ reason: String?) {
            // The device takes its profile's way of sending values: the configuration's, which may
            // differ from the built-in one it opened with.
            let profile = device.info.profile(in: config.profiles)
            device.keepsEffectPlaying = profile.keepsEffectPlaying
            device.updateMethod = profile.updateMethod
            core.addPad(info: device.info, sink: device, simulated: false, profile: profile, backend: .evdev(fallback: reason))
        }
    }

    /// The plugged-in pad at `path` found its hidraw node not ready: true while it waits (a look again
    /// at each change to a `hidraw*` node in /dev, and one at its deadline), false once the wait is over.
    private func waitForHidraw(_ path: String, reason: String, limit: Double) -> Bool {
        let first = !waits.isWaiting(path)
        let now = core.loop.clock.now
        guard case .wait(let until) = waits.notReady(path, now: now, limit: limit) else {
            if !first { waitIsOver(path) }
            return false
        }
        if first {
            logger.info("\(path): waiting up to \(Self.seconds(until - now)) s for its hidraw node: \(reason)")
            queue.asyncAfter(deadline: .now() + max(0, until - now)) { [weak self] in
                guard let self, waits.deadlines[path] == until else { return }
                lookAgain(path, final: true)
            }
        }
        return true
    }

    /// A waiting pad's wait ended (at its deadline's look, or a look after it) with its node not ready.
    private func waitIsOver(_ path: String) {
        logger.notice("\(path): its hidraw node is still not ready at the end of its wait (devices.hidraw_wait): evdev")
    }

    /// Opens a waiting pad again: on a change in /dev's hidraw nodes, or (`final`) at its deadline,
    /// when anything but a ready node means evdev. A pad that cannot be opened this time but is still
    /// there (not `disconnected`) goes on waiting: its deadline's look decides.
    private func lookAgain(_ path: String, final: Bool) {
        guard !stopped else { return }
        if final { waits.settled(path) }
        do throws(DeviceError) {
            try open(path, pluggedIn: !final, waited: final)
        } catch {
            if error.kind == .disconnected {
                waits.settled(path)
                logger.info("\(path): gone while it waited for its hidraw node")
            } else if final {
                logger.error("\(error)")
            }
        }
    }

    /// A pad moved between waveform haptics and compatible vibration (under the render loop's lock):
    /// one log line, and `capabilities`' backend follows (`haptics` is read live from the loop).
    func hapticsChanged(_ pad: PadID, _ status: HapticsStatus) {
        let node = status.node ?? "?"
        switch status.mode {
        case .waveform:
            core.state.pads.setBackend(pad, status.transport == DualSenseUSBWaveformSink.transport ? .usbAudio(device: node) : .hidraw(node: node))
            logger.notice("pad \(pad): voice-coil waveforms again through \(node)")
        case .rumble:
            let reason = status.reason ?? "?"
            core.state.pads.setBackend(pad, .evdev(fallback: reason))
            let retry = status.retryAt.map { " (the stream is tried again from \(Self.seconds($0 - core.loop.clock.now)) s on, at the next play)" } ?? ""
            logger.warning("pad \(pad): compatible vibration (FF_RUMBLE) instead of voice-coil waveforms: \(reason)\(retry)")
        }
    }

    static func seconds(_ x: Double) -> String { String(Double(Int((max(x, 0) * 10).rounded())) / 10) }

    public func start(directory: String = DeviceDiscovery.defaultDirectory) throws(DeviceError) {
        core.onDeviceFailure { [weak self] path in self?.recover(path) }
        core.loop.setHapticsHandler { [weak self] pad, status in self?.hapticsChanged(pad, status) }
        let monitor = try DeviceMonitor(directory: directory)
        // Without it a plugged-in pad does not wait for its hidraw node (`open`): evdev at once, as before.
        let hidrawWatcher: InputDirectoryWatcher?
        do {
            hidrawWatcher = try InputDirectoryWatcher(directory: dev, matching: { $0.hasPrefix("hidraw") })
        } catch {
            hidrawWatcher = nil
            logger.warning("hot-plug: cannot watch \(dev) for hidraw nodes (\(error)); a pad plugged in before its hidraw node is ready is driven through evdev")
        }
        let scan = DeviceDiscovery.scan(directory: directory)
        for problem in scan.problems { logger.warning("\(problem)") }
        queue.sync {
            self.monitor = monitor
            handle(monitor.initialEvents())
            let source = DispatchSource.makeReadSource(fileDescriptor: monitor.watcher.fileDescriptor, queue: queue)
            source.setEventHandler { [weak self] in
                guard let self else { return }
                do {
                    handle(try self.monitor!.poll(), pluggedIn: true)
                } catch {
                    logger.error("hot-plug: \(error)")
                }
            }
            source.resume()
            self.source = source
            if let hidrawWatcher {
                self.hidrawWatcher = hidrawWatcher
                let hidrawSource = DispatchSource.makeReadSource(fileDescriptor: hidrawWatcher.fileDescriptor, queue: queue)
                // Its descriptor closed once the source lets go of it (libdispatch's rule), not before.
                hidrawSource.setCancelHandler { hidrawWatcher.close() }
                hidrawSource.setEventHandler { [weak self] in
                    guard let self, let watcher = self.hidrawWatcher else { return }
                    do {
                        // Any change (made, given a group, removed) may be a waiting pad's: each looks again.
                        if try watcher.readChanges().isEmpty { return }
                    } catch {
                        logger.error("hot-plug: \(error)")
                    }
                    for path in waits.waiting { lookAgain(path, final: false) }
                }
                hidrawSource.resume()
                self.hidrawSource = hidrawSource
            }
        }
        if scan.devices.isEmpty { logger.notice("no rumble pads yet; waiting for one to be plugged in") }
    }

    /// `pluggedIn`: the events are hot-plug's, not the start's scan (whose pads never wait).
    private func handle(_ events: [HotplugEvent], pluggedIn: Bool = false) {
        for event in events {
            switch event {
            case .added(let info):
                do {
                    try open(info.path, pluggedIn: pluggedIn)
                } catch {
                    logger.error("\(error)")
                }
            case .removed(let path):
                waits.settled(path)
                core.removeDevice(path: path)
            }
        }
    }

    public func stop() {
        queue.sync {
            stopped = true
            source?.cancel()
            source = nil
            monitor?.watcher.close()
            monitor = nil
            hidrawSource?.cancel()
            hidrawSource = nil
            hidrawWatcher = nil
            // A waiting pad's deadline timer, still to come, finds it no longer waiting: nothing is added.
            waits = HidrawWaits()
        }
    }
}
