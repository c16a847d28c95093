import Evdev
import HapticCore
import HapticProtocol

/// Pads: `devices`, `capabilities` and `gain.set` (admins: it changes the pad for every client).

extension DevicesRequest: DaemonCommand {
    func run(_ state: DaemonState, _ context: CommandContext) throws(ProtocolError) -> JSONObject {
        JSONObject(["devices": .array(state.pads.ids.map { .object(state.padFields($0, context.access)) })])
    }
}

extension CapabilitiesRequest: DaemonCommand {
    func run(_ state: DaemonState, _ context: CommandContext) throws(ProtocolError) -> JSONObject {
        try state.capabilities(device, context.access)
    }
}

extension GainSetRequest: DaemonCommand {
    func run(_ state: DaemonState, _ context: CommandContext) throws(ProtocolError) -> JSONObject {
        let pad = try state.padID(device, context.access)
        context.access.pipeline(pad)!.gain = gain
        return JSONObject(["device": .number(Double(pad)), "gain": .number(gain)])
    }
}

extension DaemonState {
    /// What a pad can do, as `capabilitiesForHardware()` and `GCDeviceHaptics` tell it on Apple
    /// platforms, and what hapticd knows of its driver.
    /// The actuators `capabilities` lists for a layout: what each is, and the localities that drive it.
    static func motors(_ actuators: DeviceProfile.Actuators) -> [JSONValue] {
        func motor(_ name: String, _ side: String, _ frequency: String, _ localities: [Locality]) -> JSONValue {
            .object(JSONObject([
                "name": .string(name), "side": .string(side), "frequency": .string(frequency),
                "localities": .array(localities.map { .string($0.rawValue) }),
            ]))
        }
        switch actuators {
        case .rumble:
            return [motor("strong", "left", "low", [.leftHandle]), motor("weak", "right", "high", [.rightHandle])]
        case .hdRumble:
            return [motor("left", "left", "41-1253 Hz", [.leftHandle]), motor("right", "right", "41-1253 Hz", [.rightHandle])]
        // A pad with one actuator: every locality it has drives that one alone.
        case .hdRumbleLeft: return [motor("left", "left", "41-1253 Hz", Locality.supported(by: actuators))]
        case .hdRumbleRight: return [motor("right", "right", "41-1253 Hz", Locality.supported(by: actuators))]
        // hid-nintendo's carriers: 160 Hz low band, 320 Hz high band, the amplitude shared.
        case .leftMotor: return [motor("strong", "left", "fixed", Locality.supported(by: actuators))]
        case .rightMotor: return [motor("weak", "right", "fixed", Locality.supported(by: actuators))]
        case .rumbleAndTriggers:
            return [
                motor("strong", "left", "low", [.leftHandle]), motor("weak", "right", "high", [.rightHandle]),
                motor("left_trigger", "left", "fixed", [.leftTrigger, .triggers]),
                motor("right_trigger", "right", "fixed", [.rightTrigger, .triggers]),
            ]
        }
    }

    func capabilities(_ device: Int?, _ access: RenderLoop.PadAccess) throws(ProtocolError) -> JSONObject {
        let pad = try padID(device, access, connected: false)
        let record = pads[pad]!
        let p = record.profile
        let builtIn = DeviceProfile.named(p.name)
        let source = builtIn == p ? "built-in" : (builtIn == nil ? "configuration (a new profile)" : "configuration (a changed built-in)")
        let info = record.info
        let match = p.matches.first {
            $0.accepts(bus: info.bus, vendor: info.vendor, product: info.product, name: info.name, sticks: info.sticks)
        }
        let matched = match.map { m in
            "bus \(info.bus), \(info.usbID)" + (m.name.map { ", name contains \"\($0)\"" } ?? "")
                + (m.sticks.map { ", sticks \($0.name)" } ?? "")
        } ?? "none: no profile names this pad, so the generic one applies"
        func range(_ min: Double, _ max: Double, _ def: Double) -> JSONValue {
            .object(JSONObject(["min": .number(min), "max": .number(max), "default": .number(def)]))
        }
        var parameters = JSONObject()
        for id in EventParameterID.allCases where !id.isAudio {
            parameters.append(id.rawValue, range(id.range.lowerBound, id.range.upperBound, id.defaultValue))
        }
        for id in DynamicParameterID.allCases where !id.isAudio {
            parameters.append(id.rawValue, range(id.range.lowerBound, id.range.upperBound, id.defaultValue))
        }
        var result = JSONObject([
            "device": .number(Double(pad)), "name": .string(record.info.name),
            "supports_haptics": .bool(true), "supports_audio": .bool(false),
            "localities": .array(Locality.supported(by: p.actuators).map { .string($0.rawValue) }),
            "unsupported_localities": .array(Locality.allCases.filter { $0.route(for: p.actuators) == nil }.map { .string($0.rawValue) }),
            "actuators": .string(p.actuators.rawValue),
            "motors": .array(Self.motors(p.actuators)),
            "backend": .string(record.backend.name),
            "hidraw_node": { if case .hidraw(let node) = record.backend { return .string(node) } else { return .null } }(),
            "backend_fallback": { if case .evdev(let why?) = record.backend { return .string(why) } else { return .null } }(),
            "effect_slots": .number(Double(record.info.effectSlots)), "ff_gain": .bool(record.info.supportsGain),
            "quantization": .string(p.quantization.rawValue), "levels": .number(Double(p.quantization.levels)),
            "weak_quantization": .string(p.weakQuantization?.rawValue ?? p.quantization.rawValue),
            "weak_levels": .number(Double((p.weakQuantization ?? p.quantization).levels)),
            "minimum_update_interval": .number(p.minimumUpdateInterval),
            "refresh_interval": p.refreshInterval.map { .number($0) } ?? .null,
            "transient_pulse": .object(JSONObject([
                "sharp": .number(p.transientPulse.sharp), "dull": .number(p.transientPulse.dull), "minimum": .number(p.transientPulse.minimum),
            ])),
            "profile": .string(p.name), "profile_source": .string(source), "profile_matched_by": .string(matched),
            "simulated": .bool(record.simulated), "connected": .bool(record.connected && access.hasDevice(pad)),
            "parameters": .object(parameters),
        ])
        // Issue 25: waveform or rumble, and why (HapticsFields.swift).
        for (key, value) in hapticsFields(pad, access) { result.append(key, value) }
        return result
    }

    func padFields(_ id: PadID, _ access: RenderLoop.PadAccess? = nil) -> JSONObject {
        guard let p = pads[id] else { return JSONObject(["device": .number(Double(id))]) }
        var o = JSONObject([
            "device": .number(Double(id)), "name": .string(p.info.name), "path": .string(p.info.path),
            "usb_id": .string(p.info.usbID), "bus": .number(Double(p.info.bus)), "profile": .string(p.profile.name),
            "backend": .string(p.backend.name),
            "connected": .bool(p.connected), "simulated": .bool(p.simulated), "effect_slots": .number(Double(p.info.effectSlots)),
        ])
        if let access, let g = access.pipeline(id)?.gain { o.append("gain", .number(g)) }
        return o
    }
}
