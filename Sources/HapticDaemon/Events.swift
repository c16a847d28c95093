import HapticCore
import HapticProtocol

/// Engine and device events, turned into client events, under the render loop's lock.
///
/// Fan-out goes through each client's `ClientOutlet`, which never blocks: a client that does not
/// read its events has them dropped and counted (`events_dropped`), never buffered without end.
extension DaemonCore {
    func broadcast(_ name: EventName, _ fields: JSONObject, only owner: ClientID? = nil) {
        var line: String?
        if let owner {
            guard let c = clients[owner], c.subscriptions.contains(name) else { return }
            c.outlet.event(Reply.event(name, fields))
            return
        }
        for c in clients.byID.values where c.subscriptions.contains(name) {
            if line == nil { line = Reply.event(name, fields) }
            c.outlet.event(line!)
        }
    }

    func loopEvent(_ event: LoopEvent) {
        switch event {
        case .playerEnded(let pad, let locality, let local, let end):
            guard let id = players.find(pad: pad, locality: locality, local: local), let rec = players[id] else { return }
            if let owner = rec.owner {
                broadcast(.playerFinished, JSONObject([
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
            logger.info("pad \(pad) (\(locality.rawValue)): engine stopped (\(reason.rawValue))")
            broadcast(.engineStopped, JSONObject([
                "device": .number(Double(pad)), "locality": .string(locality.rawValue), "reason": .string(reason.rawValue),
            ]))
        case .engineReset(let pad, let locality):
            for (id, rec) in players.invalidate(pad: pad, locality: locality) {
                if let owner = rec.owner { clients.removePlayer(id, from: owner) }
            }
            logger.info("pad \(pad) (\(locality.rawValue)): engine reset; its players must be created again")
            broadcast(.engineReset, JSONObject(["device": .number(Double(pad)), "locality": .string(locality.rawValue)]))
        case .deviceError(let pad, let message, let disconnected):
            logger.error("pad \(pad): \(message)")
            commandDeviceErrors.append("device \(pad): \(message)")
            // A device that failed but is still there is reopened (by `deviceRecovery`); re-attaching
            // it resets its engine. An unplugged one is left to hot-plug.
            if !disconnected, let path = pads.failed(pad) { deviceRecovery?(path) }
        case .wrote(let pad, let time, let value):
            trace?.record(time: time, device: pad, value: value)
            writeObserver?(pad, time, value)
            broadcast(.deviceOutput, JSONObject([
                "device": .number(Double(pad)), "time": .number(time), "strong": .number(Double(value.strong)),
                "weak": .number(Double(value.weak)),
            ]))
        }
    }
}
