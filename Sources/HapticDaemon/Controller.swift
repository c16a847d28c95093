import Evdev
import HapticCore
import HapticProtocol

/// Core Haptics as Apple ships it for game controllers (docs/PROTOCOL.md): localities, the
/// capabilities of a pad, UIKit's feedback generators, and the plain rumble of SDL and the Web
/// Gamepad API. Under the render loop's lock, like every command.
extension DaemonCore {
    /// How long `prepare` keeps a pad's engine from shutting down when idle (seconds): UIKit keeps its
    /// generators ready "for a few seconds", or until the next feedback.
    static let preparedSeconds = 5.0

    // MARK: localities

    /// The request's `locality` (Apple's names; default `default`).
    func locality(_ r: Request) throws(ProtocolError) -> Locality {
        guard let name = try r.string("locality") else { return .default }
        guard let locality = Locality(rawValue: name) else {
            throw ProtocolError(.badRequest, "unknown locality \"\(name)\" (known: \(Locality.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        return locality
    }

    /// The pad's engine for `locality`, made on first use; a locality the pad does not have (the
    /// triggers: the kernel has no trigger rumble) is `unsupported`, never silently accepted.
    func engine(_ pad: PadID, _ locality: Locality, _ access: RenderLoop.PadAccess) throws(ProtocolError) -> HapticEngine {
        guard locality.route != nil else {
            throw ProtocolError(.unsupported, "device \(pad) has no \(locality.rawValue) locality: the kernel's force feedback has no trigger rumble (supported: \(Locality.rumblePad.map(\.rawValue).joined(separator: ", ")))")
        }
        guard let engine = access.engine(pad, creating: locality) else { throw ProtocolError(.notFound, "no device \(pad)") }
        return engine
    }

    // MARK: capabilities

    /// What a pad can do, as `capabilitiesForHardware()` and `GCDeviceHaptics` tell it on Apple
    /// platforms, and what hapticd knows of its driver.
    func capabilities(_ r: Request, _ access: RenderLoop.PadAccess) throws(ProtocolError) -> JSONObject {
        let pad = try padID(r, access, connected: false)
        let record = pads[pad]!
        let p = record.profile
        let builtIn = DeviceProfile.named(p.name)
        let source = builtIn == p ? "built-in" : (builtIn == nil ? "configuration (a new profile)" : "configuration (a changed built-in)")
        let matched = p.matches.contains { $0.vendor == record.info.vendor && $0.product == record.info.product }
            ? "bus \(record.info.bus), \(record.info.usbID)" : "none: no profile names this pad, so the generic one applies"
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
        return JSONObject([
            "device": .number(Double(pad)), "name": .string(record.info.name),
            "supports_haptics": .bool(true), "supports_audio": .bool(false),
            "localities": .array(Locality.rumblePad.map { .string($0.rawValue) }),
            "unsupported_localities": .array(Locality.allCases.filter { $0.route == nil }.map { .string($0.rawValue) }),
            "motors": .array([
                .object(JSONObject(["name": .string("strong"), "side": .string("left"), "frequency": .string("low"), "localities": .array([.string("leftHandle")])])),
                .object(JSONObject(["name": .string("weak"), "side": .string("right"), "frequency": .string("high"), "localities": .array([.string("rightHandle")])])),
            ]),
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
    }

    // MARK: feedback generators

    /// UIKit's feedback vocabulary: each type and style is a pattern (`impact-heavy`, `selection`,
    /// `notification-error`, …), built in (`BuiltInPatterns`), that a user overrides by dropping a file
    /// of that name into a pattern directory.
    static let feedbackStyles: [String: (styles: [String], fallback: String?)] = [
        "impact": (["light", "medium", "heavy", "soft", "rigid"], "medium"),
        "selection": ([], nil),
        "notification": (["success", "warning", "error"], "success"),
    ]

    func feedback(_ r: Request, _ client: ClientRegistry.Client, _ access: RenderLoop.PadAccess) throws(ProtocolError) -> JSONObject {
        guard let type = try r.string("type") else {
            throw ProtocolError(.badRequest, "missing \"type\": impact, selection or notification")
        }
        guard let known = Self.feedbackStyles[type] else {
            throw ProtocolError(.badRequest, "unknown feedback type \"\(type)\" (impact, selection, notification)")
        }
        var name = type
        if let fallback = known.fallback {
            let style = try r.string("style") ?? fallback
            guard known.styles.contains(style) else {
                throw ProtocolError(.badRequest, "unknown \(type) style \"\(style)\" (\(known.styles.joined(separator: ", ")))")
            }
            name = "\(type)-\(style)"
        } else if r.optional("style") != nil {
            throw ProtocolError(.badRequest, "selection feedback has no style")
        }
        let intensity = try r.number("intensity")
        if let intensity, !(0...1).contains(intensity) {
            throw ProtocolError(.badRequest, "\"intensity\" must be within 0…1, not \(intensity)")
        }
        guard let entry = library[name] else {
            throw ProtocolError(.notFound, "no feedback pattern \"\(name)\" (none is built in by that name, and no pattern directory has \(name).ahap)")
        }
        let important = try r.bool("important") ?? false
        var result = try makePlayer(entry.pattern, r, client, access, kind: .play, important: important) { engine, local throws(ProtocolError) in
            if let intensity {
                try engineCall { () throws(EngineError) in try engine.sendParameters([(.hapticIntensityControl, intensity)], to: local) }
            }
            try engineCall { () throws(EngineError) in try engine.start(local) }
        }
        result.append("pattern", .string(name))
        return result
    }

    /// Readies a pad for feedback with the least latency: its engine started (when it may start on
    /// demand) and kept from idle shutdown for `preparedSeconds`, and its kernel effect uploaded
    /// (silent) so that the first rumble only updates it in place.
    func prepare(_ r: Request, _ access: RenderLoop.PadAccess) throws(ProtocolError) -> JSONObject {
        let pad = try padID(r, access)
        let engine = try engine(pad, try locality(r), access)
        var engineState = "running"
        if !engine.isRunning {
            if engine.isAutoShutdownEnabled {
                engine.start()
                engineState = "started"
            } else {
                engineState = "stopped"
            }
        }
        let until = engine.currentTime + Self.preparedSeconds
        engine.keepAwake(until: until)
        let effect: String
        do {
            effect = try access.prepareDevice(pad) ? "uploaded" : (pads[pad]?.simulated == true ? "simulated" : "already uploaded")
        } catch {
            throw ProtocolError(.deviceError, error.description)
        }
        return JSONObject([
            "device": .number(Double(pad)), "engine": .string(engineState), "effect": .string(effect),
            "prepared_until": .number(until), "engine_time": .number(engine.currentTime),
        ])
    }

    // MARK: plain rumble

    /// `SDL_RumbleGamepad` / `dual-rumble`: both motors at these magnitudes for `duration` seconds
    /// after `delay`. A new rumble from the connection replaces its previous one; 0/0 stops it. It is a
    /// player like any other, and stops when its connection closes.
    func rumble(_ r: Request, _ client: ClientRegistry.Client, _ access: RenderLoop.PadAccess) throws(ProtocolError) -> JSONObject {
        guard let strong = try r.number("strong"), let weak = try r.number("weak") else {
            throw ProtocolError(.badRequest, "give \"strong\" and \"weak\" (0…1) and \"duration\" (seconds)")
        }
        guard (0...1).contains(strong), (0...1).contains(weak) else {
            throw ProtocolError(.badRequest, "\"strong\" and \"weak\" must be within 0…1, not \(strong) and \(weak)")
        }
        let delay = try r.number("delay") ?? 0
        guard delay >= 0, delay <= config.limits.timeHorizon else {
            throw ProtocolError(.badRequest, "\"delay\" must be within 0…\(config.limits.timeHorizon) s (limits.time_horizon)")
        }
        // The previous rumble of this connection goes, whatever comes next.
        var replaced = false
        if let previous = client.rumble, let rec = players[previous], let engine = access.engine(rec.pad, rec.locality) {
            try? engine.destroyPlayer(rec.local)
            players.remove(previous)
            clients.removePlayer(previous, from: client.id)
            replaced = true
        }
        guard strong > 0 || weak > 0 else {
            return JSONObject(["stopped": .bool(replaced)])
        }
        guard let duration = try r.number("duration") else { throw ProtocolError(.badRequest, "missing \"duration\" (seconds)") }
        guard duration > 0 else { throw ProtocolError(.badRequest, "\"duration\" must be > 0 (0/0 magnitudes stop a rumble)") }
        let current = clients[client.id]!
        var result = try makePlayer(HapticPattern(), r, current, access, kind: .rumble, make: { engine throws(EngineError) in
            try engine.makeRumble(strong: strong, weak: weak, duration: duration)
        }) { engine, local throws(ProtocolError) in
            try engineCall { () throws(EngineError) in
                try engine.start(local, at: delay > 0 ? .at(engine.currentTime + delay) : .immediately)
            }
        }
        if case .number(let id)? = result["player"] { clients.setRumble(Int(id), of: client.id) }
        result.append("replaced", .bool(replaced))
        return result
    }
}
