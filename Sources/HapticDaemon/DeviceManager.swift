import Dispatch
import Evdev
import Logging

/// Finds rumble pads at start and follows hot-plug (inotify on /dev/input through a DispatchSource),
/// opening each pad and handing it to the daemon core.
///
/// `@unchecked Sendable`: the monitor (an inotify fd) and `source` are touched only on `queue`.
public final class DeviceManager: @unchecked Sendable {
    let core: DaemonCore
    let logger: Logger
    let queue = DispatchQueue(label: "hapticd.devices")
    private var monitor: DeviceMonitor?
    private var source: DispatchSourceRead?

    /// Where sysfs is (tests give a tree of their own).
    let sysfs: String

    public init(core: DaemonCore, logger: Logger, sysfs: String = "/sys") {
        self.core = core
        self.logger = logger
        self.sysfs = sysfs
    }

    /// Reopens a device that failed while staying plugged in, a few times with a growing delay;
    /// success re-attaches it (an engine reset). If it is gone, hot-plug reports the removal.
    func recover(_ path: String, attempt: Int = 1) {
        queue.asyncAfter(deadline: .now() + 0.2 * Double(attempt)) { [weak self] in
            guard let self else { return }
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
    /// through evdev, with the reason when a hidraw profile matched.
    func open(_ path: String) throws(DeviceError) {
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
        switch HidrawBackend.choose(
            for: device.info, profiles: config.profiles, forceEvdev: config.backend == .evdev,
            dualSenseRumble: config.dualSenseHaptics(for: device.info.name, usbID: device.info.usbID) == .rumble, sysfs: sysfs)
        {
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
            // The device takes its profile's way of sending values: the configuration's, which may
            // differ from the built-in one it opened with.
            let profile = device.info.profile(in: config.profiles)
            device.keepsEffectPlaying = profile.keepsEffectPlaying
            device.updateMethod = profile.updateMethod
            core.addPad(info: device.info, sink: device, simulated: false, profile: profile, backend: .evdev(fallback: reason))
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
        let scan = DeviceDiscovery.scan(directory: directory)
        for problem in scan.problems { logger.warning("\(problem)") }
        queue.sync {
            self.monitor = monitor
            handle(monitor.initialEvents())
            let source = DispatchSource.makeReadSource(fileDescriptor: monitor.watcher.fileDescriptor, queue: queue)
            source.setEventHandler { [weak self] in
                guard let self else { return }
                do {
                    handle(try self.monitor!.poll())
                } catch {
                    logger.error("hot-plug: \(error)")
                }
            }
            source.resume()
            self.source = source
        }
        if scan.devices.isEmpty { logger.notice("no rumble pads yet; waiting for one to be plugged in") }
    }

    private func handle(_ events: [HotplugEvent]) {
        for event in events {
            switch event {
            case .added(let info):
                do {
                    try open(info.path)
                } catch {
                    logger.error("\(error)")
                }
            case .removed(let path):
                core.removeDevice(path: path)
            }
        }
    }

    public func stop() {
        queue.sync {
            source?.cancel()
            source = nil
            monitor?.watcher.close()
            monitor = nil
        }
    }
}
