import HapticClient
import HapticCore

/// A client of the hapticd listening on `path`, once it answers a `ping` (nil: not within `timeout`
/// seconds). Every VM program that starts hapticd waits for it this way.
public func answeringClient(at path: String, within timeout: Double = 15) -> HapticClient? {
    firstValue(within: timeout) { () -> HapticClient? in
        guard let c = try? HapticClient(path: path), (try? c.request("ping")) != nil else { return nil }
        return c
    }
}

/// When a played pattern started, from the `play` reply: its `engine_time` less the player's
/// `offset`, both read when the reply was made — after the first write, which under TCG can be
/// milliseconds after the start (the emulated pad's process takes the one vCPU when the report
/// lands), so `engine_time` alone is late. `fallback` when the reply has no engine time.
public func patternStart(_ reply: JSONObject, fallback: Double) -> Double {
    guard case .number(let time)? = reply["engine_time"] else { return fallback }
    if case .number(let offset)? = reply["offset"] { return time - offset }
    return time
}
