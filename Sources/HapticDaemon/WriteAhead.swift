import HapticCore
import HapticProtocol

/// A rumble's first frame, written ahead of its player (`render.write_ahead`).
///
/// A game's rumble from rest, or its next value while its rumble is the only thing the pad plays,
/// gives the pad an output that nothing else shares: the rumble's own magnitudes, through the
/// player's policy gain and the pad's gain and ceiling. For those two cases the daemon computes it
/// from the plain line (`RumbleLine`) with the engine's own rules (`HapticEngine.rumbleOutput`) and
/// writes it through the pacer before it parses, decodes and runs the command; the command then
/// runs exactly as without it, and its render pass finds the pad already has its value. Under an
/// emulator a command touching the daemon's code cold costs a millisecond or more before its write
/// (docs/benchmarks.md, "A rumble's first frame ahead of its player"); this path touches a small part
/// of it. Whatever is not one of the two cases — another player playing on the pad, anything
/// pending in its pacer or engines, a waveform stream, a stop, a policy or a limit that could refuse
/// the command, a line of any other shape — is left to the command alone.
extension DaemonState {
    /// The pad and the output a plain rumble line will give it, if it is one of the two cases above
    /// and the command will be accepted; nil to leave it to the command.
    func rumbleAhead(_ line: RumbleLine, from id: ClientID, _ access: RenderLoop.PadAccess) -> (PadID, MotorMagnitudes)? {
        guard config.writeAhead, line.strong > 0 || line.weak > 0, let duration = line.duration,
              let client = clients[id], let pad = try? padID(line.device, access),
              let pipeline = access.pipeline(pad), access.haptics(pad) == nil
        else { return nil }
        let now = access.now
        let engine = pipeline.engine
        // Every other engine of the pad silent, with nothing due.
        for (locality, e) in pipeline.engines where locality != .default {
            guard !e.isPlaying, (e.nextWakeup ?? .infinity) > now else { return nil }
        }
        let gain: Double
        if let previous = client.rumble, let rec = players[previous] {
            // In place (`RumbleRequest.run`'s first case), the rumble the only player playing.
            guard rec.pad == pad, rec.locality == .default, rec.requestedPriority == nil,
                  let g = engine.soleRumbleGain(rec.local) else { return nil }
            gain = g
        } else {
            // From rest: nothing plays or is due on the pad, it has nothing pending, and the
            // command's player will be let in.
            guard !engine.isPlaying, (engine.nextWakeup ?? .infinity) > now, !pipeline.pacer.hasPendingOutput,
                  pipeline.pacer.written.isZero, (try? players.requireRoom(for: client, config.limits)) != nil
            else { return nil }
            gain = config.policy.gain(app: client.app, important: false)
        }
        guard let output = try? engine.rumbleOutput(strong: line.strong, weak: line.weak, duration: duration, gain: gain) else { return nil }
        return (pad, output)
    }
}
