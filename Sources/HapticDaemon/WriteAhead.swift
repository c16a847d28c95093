import HapticCore
import HapticProtocol

/// A rumble's first frame, written ahead of its player (`render.write_ahead`).
///
/// A game's rumble from rest, or its next value while its rumble is the only thing the pad plays,
/// gives the pad an output that nothing else shares: the rumble's own magnitudes, through the
/// player's policy gain and the pad's gain and ceiling. For those two cases the daemon computes it
/// from the plain line (`RumbleLine`: on any locality whose engine the pad already has — the trigger
/// motors, a handle — routed by that engine) with the engine's own rules (`HapticEngine.rumbleOutput`) and
/// writes it through the pacer before it parses, decodes and runs the command; the command then
/// runs exactly as without it, and its render pass finds the pad already has its value. Under an
/// emulator a command touching the daemon's code cold costs a millisecond or more before its write
/// (docs/benchmarks.md, "A rumble's first frame ahead of its player"); this path touches a small part
/// of it. Whatever is not one of the two cases — another player playing on the pad, anything due on
/// its engines within `aheadMargin`, from rest a value pending in its pacer, a waveform transport,
/// a stop, a policy or a limit that could refuse the command, a line of any other shape — is left
/// to the command alone.
extension DaemonState {
    /// How far ahead the pad must have nothing due (a scheduled start, a rumble's end) for its output
    /// to be the rumble's alone until the command's own pass: well over the time from the write
    /// ahead to that pass (parsing, decoding, the handler: a millisecond under an emulator).
    static let aheadMargin = 0.02

    /// The pad and the output a plain rumble line will give it, if it is one of the two cases above
    /// and the command will be accepted; nil to leave it to the command.
    func rumbleAhead(_ line: RumbleLine, from id: ClientID, _ access: RenderLoop.PadAccess) -> (PadID, MotorMagnitudes)? {
        // (A duration: not a stop — `RumbleLine` gives none for one.)
        guard config.writeAhead, let duration = line.duration,
              let pad = try? padID(line.device, access), let pipeline = access.pipeline(pad), access.haptics(pad) == nil,
              // The locality's engine, made by an earlier command (the pad has it: `DaemonState.engine`).
              let actuators = pads[pad]?.profile.actuators, line.locality.route(for: actuators) != nil,
              let engine = pipeline.engine(for: line.locality),
              // Read after the pad's catch-up (`PadAccess`), which may have ended its players.
              let client = clients[id]
        else { return nil }
        let soon = access.now + Self.aheadMargin
        // Nothing due on any engine of the pad before the command's pass, and every other engine silent.
        for (locality, e) in pipeline.engines {
            guard (e.nextWakeup ?? .infinity) > soon, locality == line.locality || !e.isPlaying else { return nil }
        }
        let gain: Double
        if let previous = client.rumble, let rec = players[previous] {
            // In place (`RumbleRequest.run`'s first case), the rumble the only player playing.
            guard rec.pad == pad, rec.locality == line.locality, rec.requestedPriority == nil,
                  let g = engine.soleRumbleGain(rec.local, margin: Self.aheadMargin) else { return nil }
            gain = g
        } else {
            // From rest: nothing plays on the pad, it has nothing pending, and the command's player
            // will be let in.
            guard !engine.isPlaying, !pipeline.pacer.hasPendingOutput, pipeline.pacer.written.isZero,
                  (try? players.requireRoom(for: client, config.limits)) != nil
            else { return nil }
            // As the engine keeps a player's policy gain (`setPolicyGain`).
            let g = config.policy.gain(app: client.app, important: false)
            gain = g.isFinite ? min(max(g, 0), 1) : 0
        }
        guard let output = try? engine.rumbleOutput(strong: line.strong, weak: line.weak, duration: duration, gain: gain),
              !output.isZero else { return nil }
        return (pad, output)
    }
}
