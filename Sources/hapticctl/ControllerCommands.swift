import ArgumentParser
import Foundation
import HapticClient
import HapticCore
import HapticProtocol

struct Caps: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "caps", abstract: "What a pad can do: localities, motors, effect slots, resolution, pacing, profile, parameter ranges.")
    @Option(help: "Device number (see devices).") var device: Int?
    @OptionGroup var connection: Connection
    func run() throws {
        var body = JSONObject()
        if let device { body.append("device", .number(Double(device))) }
        try connection.run("capabilities", body) { r in
            func list(_ key: String) -> String {
                if case .array(let a)? = r[key] { return a.compactMap { if case .string(let s) = $0 { s } else { nil } }.joined(separator: ", ") }
                return "?"
            }
            // The profile's own; every pad's held value is re-sent after `DeviceProfile.maximumHold` besides.
            let refresh = num(r, "refresh_interval").map { "every \(Format.fixed($0, 3)) s" }
                ?? "none (a held value every \(Format.fixed(DeviceProfile.maximumHold, 0)) s)"
            // Voice-coil waveforms or motor magnitudes, through what, and why not waveforms where it could.
            var haptics = "\(str(r, "haptics") ?? "rumble") through \(str(r, "haptics_transport") ?? str(r, "backend") ?? "?")"
            if let why = str(r, "haptics_reason") { haptics += " (\(why))" }
            return [
                "device \(int(r, "device")): \(str(r, "name") ?? "?")",
                "  localities      \(list("localities")) (not: \(list("unsupported_localities")))",
                "  haptics         \(haptics)",
                "  motors          \(motors(r))",
                "  effect slots    \(int(r, "effect_slots")), FF_GAIN \(r["ff_gain"] == .bool(true) ? "yes" : "no")",
                "  resolution      \(str(r, "quantization") ?? "?") (\(int(r, "levels")) levels)",
                "  pacing          at least \(Format.fixed((num(r, "minimum_update_interval") ?? 0) * 1000, 1)) ms between writes; refresh \(refresh)",
                "  profile         \(str(r, "profile") ?? "?") (\(str(r, "profile_source") ?? "?"); matched by \(str(r, "profile_matched_by") ?? "?"))",
            ].joined(separator: "\n")
        }
    }
}

/// The pad's actuators as `capabilities` lists them (one on a Joy-Con alone, four on an Xbox pad
/// through hidraw): name (side, frequency: the localities that drive it alone).
func motors(_ r: JSONObject) -> String {
    guard case .array(let list)? = r["motors"] else { return "?" }
    return list.compactMap { m -> String? in
        guard case .object(let o) = m, let name = str(o, "name") else { return nil }
        var localities: [String] = []
        if case .array(let a)? = o["localities"] { for case .string(let l) in a { localities.append(l) } }
        return "\(name) (\(str(o, "side") ?? "?"), \(str(o, "frequency") ?? "?"): \(localities.joined(separator: ", ")))"
    }.joined(separator: ", ")
}

struct Feedback: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "UIKit-style feedback: impact [light|medium|heavy|soft|rigid], selection, notification [success|warning|error].",
        discussion: "Each plays a pattern built into hapticd (impact-heavy, selection, notification-error, …) that a file of the same name in a pattern directory overrides.")
    enum Kind: String, ExpressibleByArgument, CaseIterable { case impact, selection, notification }
    @Argument(help: "impact, selection or notification.") var type: Kind
    @Argument(help: "The style: light, medium, heavy, soft, rigid (impact); success, warning, error (notification).") var style: String?
    @Option(parsing: .unconditional, help: "0…1: scales the feedback (impact).") var intensity: Double?
    @OptionGroup var target: EngineTarget
    @OptionGroup var connection: Connection
    func run() throws {
        var body = JSONObject(["type": .string(type.rawValue)])
        if let style { body.append("style", .string(style)) }
        if let intensity { body.append("intensity", .number(intensity)) }
        target.apply(to: &body)
        try connection.run("feedback", body) { r in "\(str(r, "pattern") ?? type.rawValue) on device \(int(r, "device")) as player \(int(r, "player"))" }
    }
}

struct Prepare: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Ready a pad for feedback with the least latency (engine started, effect uploaded) for a few seconds.")
    @OptionGroup var target: EngineTarget
    @OptionGroup var connection: Connection
    func run() throws {
        var body = JSONObject()
        target.apply(to: &body)
        try connection.run("prepare", body) { r in
            "device \(int(r, "device")): engine \(str(r, "engine") ?? "?"), effect \(str(r, "effect") ?? "?"), ready until \(Format.fixed(num(r, "prepared_until") ?? 0, 3)) (engine clock)"
        }
    }
}

struct Rumble: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Plain rumble, like SDL_RumbleGamepad: the strong and weak motors at 0…1 for a time.",
        discussion: "The rumble belongs to this hapticctl run: it waits until the rumble is over (a rumble stops when its client leaves). 0 0 stops the rumble of the same connection, which a new hapticctl run never has: it says that nothing was stopped (hapticctl stop stops your players).")
    @Argument(help: "Strong (left, low-frequency) motor, 0…1.") var strong: Double
    @Argument(help: "Weak (right, high-frequency) motor, 0…1.") var weak: Double
    @Option(name: .customLong("for"), parsing: .unconditional, help: "Seconds.") var duration: Double = 0.5
    @Option(parsing: .unconditional, help: "Seconds to wait before it starts.") var delay: Double?
    @Option(help: "Device number (see devices).") var device: Int?
    @Flag(help: "Show live motor bars while it plays.") var bars = false
    @OptionGroup var connection: Connection
    func run() throws {
        var body = JSONObject(["strong": .number(strong), "weak": .number(weak), "duration": .number(duration)])
        if let delay { body.append("delay", .number(delay)) }
        if let device { body.append("device", .number(Double(device))) }
        let client = try connection.client(for: body)
        subscribeForFollowing(client, bars: bars)
        let result = try connection.call(client, "rumble", body) { r in
            if r["player"] != nil { return "rumbling on device \(int(r, "device")) for \(Format.fixed(duration, 3)) s" }
            // 0 0: the daemon says whether it stopped a rumble of this connection ({"stopped": false}
            // when there was none, which is always so for a run of its own).
            return r["stopped"] == .bool(true) ? "stopped" : "nothing to stop: this connection had no rumble playing"
        }
        guard let player = result["player"] else { return }
        try follow(client, player: player, bars: bars, json: connection.json)
    }
}
