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

    public init(core: DaemonCore, logger: Logger) {
        self.core = core
        self.logger = logger
    }

    /// Reopens a device that failed while staying plugged in, a few times with a growing delay;
    /// success re-attaches it (an engine reset). If it is gone, hot-plug reports the removal.
    func recover(_ path: String, attempt: Int = 1) {
        queue.asyncAfter(deadline: .now() + 0.2 * Double(attempt)) { [weak self] in
            guard let self else { return }
            do throws(DeviceError) {
                let device = try RumbleDevice(path: path)
                logger.notice("\(path): reopened after a device error")
                core.addPad(info: device.info, sink: device, simulated: false)
            } catch {
                if error.kind == .disconnected || attempt >= 5 {
                    logger.error("\(path): not recovered: \(error)")
                } else {
                    recover(path, attempt: attempt + 1)
                }
            }
        }
    }

    public func start(directory: String = DeviceDiscovery.defaultDirectory) throws(DeviceError) {
        core.onDeviceFailure { [weak self] path in self?.recover(path) }
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
                    let device = try RumbleDevice(path: info.path)
                    core.addPad(info: device.info, sink: device, simulated: false)
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
