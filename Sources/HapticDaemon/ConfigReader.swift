import HapticCore

/// Reads the TOML tree (as `JSONValue`) into a `DaemonConfig`: every key known, every value checked
/// against its range, every error naming its key.
struct ConfigReader {
    func table(_ v: JSONValue, _ key: String) throws(ConfigError) -> JSONObject {
        guard case .object(let o) = v else { throw ConfigError(key, "expected a table, found \(v.kindName)") }
        return o
    }

    func number(_ v: JSONValue, _ key: String, _ range: ClosedRange<Double>) throws(ConfigError) -> Double {
        guard case .number(let x) = v, x.isFinite else { throw ConfigError(key, "expected a number, found \(v.kindName)") }
        guard range.contains(x) else { throw ConfigError(key, "\(x) is out of range \(range.lowerBound)…\(range.upperBound)") }
        return x
    }

    func int(_ v: JSONValue, _ key: String, _ range: ClosedRange<Int>) throws(ConfigError) -> Int {
        guard case .number(let x) = v, x.isFinite else { throw ConfigError(key, "expected a number, found \(v.kindName)") }
        guard x == x.rounded() else { throw ConfigError(key, "expected a whole number, found \(x)") }
        // Named as written (`0`, not `0.0`); a value beyond Int's range is named as a Double, never converted.
        guard let n = Int(exactly: x), range.contains(n) else {
            throw ConfigError(key, "\(Int(exactly: x).map(String.init) ?? "\(x)") is out of range \(range.lowerBound)…\(range.upperBound)")
        }
        return n
    }

    func string(_ v: JSONValue, _ key: String) throws(ConfigError) -> String {
        guard case .string(let s) = v else { throw ConfigError(key, "expected a string, found \(v.kindName)") }
        return s
    }

    func bool(_ v: JSONValue, _ key: String) throws(ConfigError) -> Bool {
        guard case .bool(let b) = v else { throw ConfigError(key, "expected true or false, found \(v.kindName)") }
        return b
    }

    func array(_ v: JSONValue, _ key: String) throws(ConfigError) -> [JSONValue] {
        guard case .array(let a) = v else { throw ConfigError(key, "expected an array, found \(v.kindName)") }
        return a
    }

    /// A list of user or group ids (at most 1024 of them).
    func ids(_ v: JSONValue, _ key: String) throws(ConfigError) -> [UInt32] {
        let list = try array(v, key)
        guard list.count <= 1024 else { throw ConfigError(key, "at most 1024 ids") }
        return try list.map { v throws(ConfigError) in UInt32(try int(v, key, 0...Int(UInt32.max))) }
    }

    func checkKeys(_ o: JSONObject, _ prefix: String, _ known: [String]) throws(ConfigError) {
        for key in o.keys where !known.contains(key) {
            throw ConfigError(prefix.isEmpty ? key : "\(prefix).\(key)", "unknown key (known here: \(known.joined(separator: ", ")))")
        }
    }

    mutating func read(_ root: JSONValue) throws(ConfigError) -> DaemonConfig {
        var c = DaemonConfig()
        let top = try table(root, "")
        try checkKeys(top, "", ["socket", "render", "engine", "limits", "clients", "patterns", "devices", "policy"])
        if let v = top["socket"] {
            let s = try table(v, "socket")
            try checkKeys(s, "socket", ["path", "mode", "group", "threads"])
            if let p = s["path"] {
                let path = try string(p, "socket.path")
                guard path.hasPrefix("/") else { throw ConfigError("socket.path", "must be an absolute path") }
                c.socketPath = path
            }
            if let m = s["mode"] {
                let text = try string(m, "socket.mode")
                guard let mode = UInt32(text, radix: 8), mode <= 0o777 else {
                    throw ConfigError("socket.mode", "expected an octal mode such as \"0660\", found \"\(text)\"")
                }
                c.socketMode = mode
            }
            if let g = s["group"] {
                let group = try string(g, "socket.group")
                c.socketGroup = group.isEmpty ? nil : group
            }
            if let t = s["threads"] { c.socketThreads = try int(t, "socket.threads", DaemonConfig.socketThreadsRange) }
        }
        if let v = top["render"] {
            let r = try table(v, "render")
            try checkKeys(r, "render", ["mode", "tick_period", "realtime_priority", "onset_lead", "write_ahead"])
            if let m = r["mode"] {
                let name = try string(m, "render.mode")
                guard let mode = RenderMode(rawValue: name) else {
                    throw ConfigError("render.mode", "expected \"event\" or \"fixed\", found \"\(name)\"")
                }
                c.renderMode = mode
            }
            if let t = r["tick_period"] { c.tickPeriod = try number(t, "render.tick_period", 0.001...0.1) }
            if let p = r["realtime_priority"] {
                c.realtimePriority = try int(p, "render.realtime_priority", DaemonConfig.realtimePriorityRange)
            }
            if let l = r["onset_lead"] { c.onsetLead = try number(l, "render.onset_lead", RenderLoop.onsetLeadRange) }
            if let w = r["write_ahead"] { c.writeAhead = try bool(w, "render.write_ahead") }
        }
        if let v = top["engine"] {
            let e = try table(v, "engine")
            try checkKeys(e, "engine", ["idle_shutdown"])
            if let t = e["idle_shutdown"] { c.idleShutdown = try number(t, "engine.idle_shutdown", 0...86_400) }
        }
        if let v = top["limits"] {
            let l = try table(v, "limits")
            try checkKeys(l, "limits", [
                "max_line_bytes", "output_buffer_bytes", "output_stall_timeout", "max_clients", "max_clients_per_uid",
                "admin_reserved_clients", "max_players_per_client", "max_players_per_uid", "max_players",
                "max_scheduled_per_player", "max_scheduled_per_client", "time_horizon", "min_rate", "max_rate", "max_curve_points",
                "max_pattern_bytes", "max_pattern_events", "max_upload_bytes", "max_uploads",
            ])
            if let x = l["max_line_bytes"] { c.limits.maxLineBytes = try int(x, "limits.max_line_bytes", 1024...(64 << 20)) }
            if let x = l["output_buffer_bytes"] { c.limits.outputBufferBytes = try int(x, "limits.output_buffer_bytes", 4096...(64 << 20)) }
            if let x = l["output_stall_timeout"] { c.limits.outputStallTimeout = try number(x, "limits.output_stall_timeout", 0.1...3600) }
            if let x = l["max_clients"] { c.limits.maxClients = try int(x, "limits.max_clients", 1...10_000) }
            if let x = l["max_clients_per_uid"] { c.limits.maxClientsPerUID = try int(x, "limits.max_clients_per_uid", 1...10_000) }
            if let x = l["admin_reserved_clients"] { c.limits.adminReservedClients = try int(x, "limits.admin_reserved_clients", 0...1000) }
            if let x = l["max_players_per_client"] { c.limits.maxPlayersPerClient = try int(x, "limits.max_players_per_client", 1...10_000) }
            if let x = l["max_players_per_uid"] { c.limits.maxPlayersPerUID = try int(x, "limits.max_players_per_uid", 1...100_000) }
            if let x = l["max_players"] { c.limits.maxPlayers = try int(x, "limits.max_players", 1...100_000) }
            if let x = l["max_scheduled_per_player"] { c.limits.maxScheduledPerPlayer = try int(x, "limits.max_scheduled_per_player", 1...100_000) }
            if let x = l["max_scheduled_per_client"] { c.limits.maxScheduledPerClient = try int(x, "limits.max_scheduled_per_client", 1...1_000_000) }
            if let x = l["time_horizon"] {
                c.limits.timeHorizon = try number(x, "limits.time_horizon", 1...31_536_000)
                c.patternLimits.maximumPatternTime = c.limits.timeHorizon  // one horizon for commands and patterns
            }
            if let x = l["max_curve_points"] { c.limits.maxCurvePoints = try int(x, "limits.max_curve_points", 2...1_000_000) }
            if let x = l["min_rate"] { c.limits.minRate = try number(x, "limits.min_rate", 0.0001...1) }
            if let x = l["max_rate"] { c.limits.maxRate = try number(x, "limits.max_rate", 1...10_000) }
            if let x = l["max_pattern_bytes"] { c.patternLimits.maximumFileBytes = try int(x, "limits.max_pattern_bytes", 1024...(256 << 20)) }
            if let x = l["max_upload_bytes"] { c.limits.maxUploadBytes = try int(x, "limits.max_upload_bytes", 0...(256 << 20)) }
            if let x = l["max_uploads"] { c.limits.maxUploads = try int(x, "limits.max_uploads", 0...1000) }
            if let x = l["max_pattern_events"] { c.patternLimits.maximumEvents = try int(x, "limits.max_pattern_events", 1...1_000_000) }
        }
        if let v = top["clients"] {
            let cl = try table(v, "clients")
            try checkKeys(cl, "clients", [
                "stop_players_on_disconnect", "orphan_max_seconds", "allow_uids", "allow_gids", "admin_uids", "admin_gids",
            ])
            if let x = cl["stop_players_on_disconnect"] { c.stopPlayersOnDisconnect = try bool(x, "clients.stop_players_on_disconnect") }
            if let x = cl["orphan_max_seconds"] { c.orphanMaxSeconds = try number(x, "clients.orphan_max_seconds", 0...86_400) }
            if let x = cl["allow_uids"] { c.allowUIDs = try ids(x, "clients.allow_uids") }
            if let x = cl["allow_gids"] { c.allowGIDs = try ids(x, "clients.allow_gids") }
            if let x = cl["admin_uids"] { c.adminUIDs = try ids(x, "clients.admin_uids") }
            if let x = cl["admin_gids"] { c.adminGIDs = try ids(x, "clients.admin_gids") }
        }
        if let v = top["patterns"] {
            let p = try table(v, "patterns")
            try checkKeys(p, "patterns", ["directories"])
            if let x = p["directories"] {
                c.patternDirectories = try array(x, "patterns.directories").map { v throws(ConfigError) in try string(v, "patterns.directories") }
            }
        }
        if let v = top["policy"] { c.policy = try policy(v) }
        if let v = top["devices"] {
            let d = try table(v, "devices")
            try checkKeys(d, "devices", ["gain", "profile", "backend", "dualsense_haptics", "hidraw_wait"])
            if let w = d["hidraw_wait"] { c.hidrawWait = try number(w, "devices.hidraw_wait", DaemonConfig.hidrawWaitRange) }
            if let b = d["backend"] {
                let name = try string(b, "devices.backend")
                guard let backend = DeviceBackendSetting(rawValue: name) else {
                    throw ConfigError("devices.backend", "expected \"auto\" or \"evdev\", found \"\(name)\"")
                }
                c.backend = backend
            }
            if let h = d["dualsense_haptics"] {
                func setting(_ v: JSONValue, _ key: String) throws(ConfigError) -> DualSenseHapticsSetting {
                    let name = try string(v, key)
                    guard let setting = DualSenseHapticsSetting(rawValue: name) else {
                        throw ConfigError(key, "expected \"waveform\" or \"rumble\", found \"\(name)\"")
                    }
                    return setting
                }
                // One setting for every DualSense, or a table per pad ("vvvv:pppp", name, "default").
                if case .object(let perPad) = h {
                    for m in perPad.members { c.dualSenseHapticsByPad[m.key] = try setting(m.value, "devices.dualsense_haptics.\(m.key)") }
                } else {
                    c.dualSenseHaptics = try setting(h, "devices.dualsense_haptics")
                }
            }
            if let g = d["gain"] {
                for m in try table(g, "devices.gain").members {
                    c.gains[m.key] = try number(m.value, "devices.gain.\(m.key)", 0...1)
                }
            }
            if let p = d["profile"] {
                var configured: [DeviceProfile] = []
                for (i, item) in try array(p, "devices.profile").enumerated() {
                    configured.append(try profile(item, "devices.profile[\(i)]", builtIn: c.profiles))
                }
                let names = Set(configured.map(\.name))
                c.profiles = configured + c.profiles.filter { !names.contains($0.name) }
            }
        }
        return c
    }

    /// `[policy]` and its `[[policy.app]]` rules.
    func policy(_ v: JSONValue) throws(ConfigError) -> PolicyConfig {
        var p = PolicyConfig()
        let t = try table(v, "policy")
        try checkKeys(t, "policy", ["mode", "profile", "max_strength", "duck", "app"])
        // `profile` is the mode's name until hapticd 0.5, still read; not both.
        if t["mode"] != nil && t["profile"] != nil { throw ConfigError("policy.profile", "the old name of policy.mode: give one of them") }
        if let (x, key) = t["mode"].map({ ($0, "policy.mode") }) ?? t["profile"].map({ ($0, "policy.profile") }) {
            let name = try string(x, key)
            guard let mode = PolicyConfig.Mode(rawValue: name) else {
                throw ConfigError(key, "expected \"full\", \"quiet\" or \"silent\", found \"\(name)\"")
            }
            p.mode = mode
        }
        if let x = t["max_strength"] { p.maxStrength = try number(x, "policy.max_strength", 0...1) }
        if let x = t["duck"] { p.duck = try number(x, "policy.duck", 0...1) }
        if let x = t["app"] {
            let list = try array(x, "policy.app")
            guard list.count <= 1024 else { throw ConfigError("policy.app", "at most 1024 app rules") }
            for (i, item) in list.enumerated() {
                let key = "policy.app[\(i)]"
                let o = try table(item, key)
                try checkKeys(o, key, ["id", "enabled", "gain", "priority", "important_allowed", "uids"])
                guard let idValue = o["id"] else { throw ConfigError("\(key).id", "missing: every app rule names its app") }
                var rule = PolicyConfig.AppRule(id: try string(idValue, "\(key).id"))
                guard !rule.id.isEmpty, p.rule(for: rule.id) == nil else { throw ConfigError("\(key).id", "empty, or a second rule for \"\(rule.id)\"") }
                if let x = o["enabled"] { rule.enabled = try bool(x, "\(key).enabled") }
                if let x = o["gain"] { rule.gain = try number(x, "\(key).gain", 0...1) }
                if let x = o["priority"] { rule.priority = try int(x, "\(key).priority", PolicyConfig.priorities) }
                if let x = o["important_allowed"] { rule.importantAllowed = try bool(x, "\(key).important_allowed") }
                if let x = o["uids"] { rule.uids = try ids(x, "\(key).uids") }
                p.apps.append(rule)
            }
        }
        return p
    }

    /// A `[[devices.profile]]` entry: a new profile, or (same name as a built-in) changes to it.
    func profile(_ v: JSONValue, _ key: String, builtIn: [DeviceProfile]) throws(ConfigError) -> DeviceProfile {
        let o = try table(v, key)
        try checkKeys(o, key, [
            "name", "base", "bus", "vendor", "product", "name_contains", "minimum_update_interval", "quantization", "weak_quantization",
            "refresh_interval", "keeps_effect_playing", "update_method", "settles",
            "transient_sharp", "transient_dull", "transient_minimum", "strong_floor", "weak_floor",
        ])
        guard let n = o["name"] else { throw ConfigError("\(key).name", "missing: every profile has a name") }
        let name = try string(n, "\(key).name")
        var p: DeviceProfile
        if let b = o["base"] {
            let base = try string(b, "\(key).base")
            guard let found = DeviceProfile.named(base, in: builtIn) else {
                throw ConfigError("\(key).base", "no built-in profile named \"\(base)\" (known: \(builtIn.map(\.name).joined(separator: ", ")))")
            }
            p = found
        } else {
            p = DeviceProfile.named(name, in: builtIn) ?? DeviceProfile.generic
        }
        if DeviceProfile.named(name, in: builtIn) == nil { p.matches = [] }
        p.name = name
        p.displayName = name
        if o["vendor"] != nil || o["product"] != nil {
            guard let vendor = o["vendor"], let product = o["product"] else {
                throw ConfigError(key, "vendor and product go together")
            }
            let bus = try o["bus"].map { v throws(ConfigError) in UInt16(try int(v, "\(key).bus", 0...0xFFFF)) }
            // Part of the device's name (EVIOCGNAME: at most 255 bytes), for pads that share an ID.
            let named = try o["name_contains"].map { v throws(ConfigError) in
                let text = try string(v, "\(key).name_contains")
                guard (1...255).contains(text.utf8.count) else {
                    throw ConfigError("\(key).name_contains", "expected 1…255 bytes of a device name, found \(text.utf8.count)")
                }
                return text
            }
            p.matches = [.init(bus: bus, vendor: UInt16(try int(vendor, "\(key).vendor", 0...0xFFFF)),
                               product: UInt16(try int(product, "\(key).product", 0...0xFFFF)), name: named)] + p.matches
        } else if o["bus"] != nil || o["name_contains"] != nil {
            throw ConfigError("\(key).\(o["bus"] != nil ? "bus" : "name_contains")", "needs vendor and product")
        }
        if let x = o["minimum_update_interval"] { p.minimumUpdateInterval = try number(x, "\(key).minimum_update_interval", 0...1) }
        func quantization(_ x: JSONValue, _ k: String) throws(ConfigError) -> DeviceProfile.Quantization {
            let q = try string(x, k)
            guard let quant = DeviceProfile.Quantization(rawValue: q) else {
                let kinds = DeviceProfile.Quantization.allCases.map { "\"\($0.rawValue)\"" }
                throw ConfigError(k, "expected \(kinds.dropLast().joined(separator: ", ")) or \(kinds.last!), found \"\(q)\"")
            }
            return quant
        }
        if let x = o["quantization"] { p.quantization = try quantization(x, "\(key).quantization") }
        if let x = o["weak_quantization"] { p.weakQuantization = try quantization(x, "\(key).weak_quantization") }
        if let x = o["keeps_effect_playing"] { p.keepsEffectPlaying = try bool(x, "\(key).keeps_effect_playing") }
        if let x = o["settles"] { p.settles = try bool(x, "\(key).settles") }
        if let x = o["update_method"] {
            let name = try string(x, "\(key).update_method")
            guard let method = DeviceProfile.UpdateMethod(rawValue: name) else {
                let kinds = DeviceProfile.UpdateMethod.allCases.map { "\"\($0.rawValue)\"" }
                throw ConfigError("\(key).update_method", "expected \(kinds.joined(separator: " or ")), found \"\(name)\"")
            }
            p.updateMethod = method
        }
        if let x = o["refresh_interval"] {
            let r = try number(x, "\(key).refresh_interval", 0...3600)
            p.refreshInterval = r == 0 ? nil : r
        }
        if let x = o["transient_sharp"] { p.transientPulse.sharp = try number(x, "\(key).transient_sharp", 0.001...1) }
        if let x = o["transient_dull"] { p.transientPulse.dull = try number(x, "\(key).transient_dull", 0.001...1) }
        if let x = o["transient_minimum"] { p.transientPulse.minimum = try number(x, "\(key).transient_minimum", 0...1) }
        if let x = o["strong_floor"] { p.strongFloor = try number(x, "\(key).strong_floor", 0...0.9) }
        if let x = o["weak_floor"] { p.weakFloor = try number(x, "\(key).weak_floor", 0...0.9) }
        return p
    }
}
