import HapticCore
import HapticProtocol

extension DaemonState {
    /// `capabilities`' account of how a pad's haptics are played (issue 25): `haptics` — `waveform`
    /// (voice coils, audio-rate samples) or `rumble` (two motor magnitudes); `haptics_transport` —
    /// `bluetooth-hidraw` (the DualSense's report `0x32`), `usb-audio` (its USB audio stream's channels
    /// 3–4: `frames_per_report` is then a 5 ms block of 240 frames at 48 kHz) or the rumble backend (`evdev`, `hidraw`,
    /// `simulated`); `haptics_reason` — why rumble on a pad that could stream waveforms (a failed
    /// report, a node that cannot be opened, the configuration), else null; and for a pad with a
    /// waveform transport, `waveform`: its format and its counters since the pad was opened.
    func hapticsFields(_ pad: PadID, _ access: RenderLoop.PadAccess) -> [(String, JSONValue)] {
        guard let record = pads[pad] else { return [] }
        guard let status = access.haptics(pad) else {
            // No waveform transport: the pad's motors. A DualSense that could have one says why not.
            var reason: JSONValue = .null
            if case .evdev(let why?) = record.backend,
               DeviceProfile.dualSenseBluetoothWaveform.matches(bus: record.info.bus, vendor: record.info.vendor, product: record.info.product)
                || USBAudioBackend.isDualSense(bus: record.info.bus, vendor: record.info.vendor, product: record.info.product) {
                reason = .string(why)
            }
            return [("haptics", .string("rumble")), ("haptics_transport", .string(record.backend.name)), ("haptics_reason", reason)]
        }
        let now = access.now
        let waveform = JSONObject([
            "sample_rate": .number(status.sampleRate),
            "frames_per_report": .number(Double(status.framesPerBlock)),
            "report_interval": .number(Double(status.framesPerBlock) / status.sampleRate),
            "node": status.node.map { .string($0) } ?? .null,
            "reports": .number(Double(status.reports)), "dropped": .number(Double(status.dropped)),
            "caught_up": .number(Double(status.caughtUp)), "streams": .number(Double(status.streams)),
            "failures": .number(Double(status.failures)), "retries": .number(Double(status.retries)),
            "retry_in": status.retryAt.map { .number(max(0, $0 - now)) } ?? .null,
        ])
        return [
            ("haptics", .string(status.mode.rawValue)), ("haptics_transport", .string(status.transport)),
            ("haptics_reason", status.reason.map { .string($0) } ?? .null), ("waveform", .object(waveform)),
        ]
    }
}
