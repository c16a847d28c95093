import HapticCore
import HapticProtocol

/// Client events: fan-out through each client's `ClientOutlet`, which never blocks (a client that does
/// not read its events has them dropped and counted, `events_dropped`, never buffered without end).
extension ClientRegistry {
    /// Sends the event to every client subscribed to it, or only to `owner`. The fields are made only
    /// when someone is subscribed: most events (a player's end, each write to a pad) have nobody to
    /// hear them, and some come between a command and its pad's write (a rumble's stop ends a player).
    /// The clients are read where they are stored, not copied out of the dictionary.
    func broadcast(_ name: EventName, _ fields: @autoclosure () -> JSONObject, only owner: ClientID? = nil) {
        if let owner {
            guard let i = byID.index(forKey: owner), byID.values[i].subscriptions.contains(name) else { return }
            byID.values[i].outlet.event(Reply.event(name, fields()))
            return
        }
        var line: String?
        for i in byID.indices where byID.values[i].subscriptions.contains(name) {
            if line == nil { line = Reply.event(name, fields()) }
            byID.values[i].outlet.event(line!)
        }
    }
}

/// What the render loop's engines and devices report, as the state and the clients see it (under the
/// render loop's lock). Logging, the trace and device recovery are `DaemonCore.loopEvent`'s.
extension DaemonState {
    func apply(_ event: LoopEvent) {
        switch event {
        case .playerEnded(let pad, let locality, let local, let end):
            guard let id = players.find(pad: pad, locality: locality, local: local), let rec = players[id] else { return }
            if let owner = rec.owner {
                clients.broadcast(.playerFinished, JSONObject([
                    "player": .number(Double(id)), "device": .number(Double(pad)), "locality": .string(locality.rawValue),
                    "reason": .string(end.rawValue),
                ]), only: owner)
            }
            if rec.oneShot {
                // A `play` player is done once it ends; the engine removes its own one-shots.
                players.remove(id)
                if let owner = rec.owner { clients.removePlayer(id, from: owner) }
            }
        case .engineStopped(let pad, let locality, let reason):
            clients.broadcast(.engineStopped, JSONObject([
                "device": .number(Double(pad)), "locality": .string(locality.rawValue), "reason": .string(reason.rawValue),
            ]))
        case .engineReset(let pad, let locality):
            for (id, rec) in players.invalidate(pad: pad, locality: locality) {
                if let owner = rec.owner { clients.removePlayer(id, from: owner) }
            }
            clients.broadcast(.engineReset, JSONObject(["device": .number(Double(pad)), "locality": .string(locality.rawValue)]))
        case .deviceError:
            break  // `DaemonCore.loopEvent` marks the pad disconnected and has its device reopened.
        case .wrote(let pad, let time, let value):
            clients.broadcast(.deviceOutput, Self.outputFields(pad, time, value))
        }
    }

    /// A write's `device.output` fields (made only when a client is subscribed: `broadcast`).
    static func outputFields(_ pad: Int, _ time: Double, _ value: MotorMagnitudes) -> JSONObject {
        var fields = JSONObject([
            "device": .number(Double(pad)), "time": .number(time), "strong": .number(Double(value.strong)),
            "weak": .number(Double(value.weak)),
        ])
        if value.hasSecondPair {
            fields.append("third", .number(Double(value.third)))
            fields.append("fourth", .number(Double(value.fourth)))
        }
        return fields
    }
}
