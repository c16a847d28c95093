// Apple's Unity plug-in Apple.CoreHaptics calls its native library CoreHapticsWrapper through C
// functions (DllImport); this target is that library for Linux, over the CoreHaptics module and so
// over hapticd (docs/clients.md, "Unity"). The functions are `@_cdecl`, one file per part of the
// plug-in; CoreHapticsWrapper.exports lists them. This file: handles, errors and conversions.
import CCoreHapticsWrapper
import CoreHaptics
import Glibc
import Synchronization

/// What a handle given to C# is.
enum HandleKind: Sendable {
    case engine, player, advancedPlayer, impactGenerator, selectionGenerator, notificationGenerator
}

/// The handles given to C#: retained objects (`Unmanaged`), as Apple's are, plus a table of the live
/// ones, so that a null, stale (destroyed) or foreign pointer is refused instead of dereferenced.
/// (A pointer that was freed and then reused by a new handle of the same kind cannot be told apart
/// by C#'s calls; a callback queued for the old handle can: see `Token`.)
enum Handles {
    private struct Entry {
        let kind: HandleKind
        let serial: UInt64
    }

    private struct Table {
        var live: [UInt: Entry] = [:]
        var next: UInt64 = 0
    }

    private static let table = Mutex(Table())

    /// One handle's identity: its address and the serial it got when made. A callback queued for a
    /// handle checks it is still that one — the allocator may give a destroyed handle's address to
    /// the next one made, and its callbacks must not reach the new one's C# object.
    struct Token: Sendable {
        let address: UInt
        fileprivate let serial: UInt64
        var pointer: UnsafeRawPointer? { UnsafeRawPointer(bitPattern: address) }
        /// Whether the handle still lives (not destroyed, its address not reused since).
        var isLive: Bool { Handles.table.withLock { $0.live[address]?.serial == serial } }
    }

    /// A new handle that keeps `object` until `release`.
    static func retain(_ object: AnyObject, as kind: HandleKind) -> UnsafeMutableRawPointer {
        let pointer = Unmanaged.passRetained(object).toOpaque()
        table.withLock { t in
            t.next &+= 1
            t.live[UInt(bitPattern: pointer)] = Entry(kind: kind, serial: t.next)
        }
        return pointer
    }

    /// The identity of a live handle, for callbacks to check later.
    static func token(_ pointer: UnsafeRawPointer) -> Token? {
        let address = UInt(bitPattern: pointer)
        return table.withLock { t in t.live[address].map { Token(address: address, serial: $0.serial) } }
    }

    /// The object behind `pointer` if it is a live handle of one of `kinds`.
    static func object<T: AnyObject & Sendable>(_ pointer: UnsafeRawPointer?, _ kinds: Set<HandleKind>, as type: T.Type) -> T? {
        guard let pointer else { return nil }
        // Looked up and retained under the lock: a concurrent `release` cannot free it in between.
        return table.withLock { t -> T? in
            guard let entry = t.live[UInt(bitPattern: pointer)], kinds.contains(entry.kind) else { return nil }
            return Unmanaged<AnyObject>.fromOpaque(pointer).takeUnretainedValue() as? T
        }
    }

    /// Releases a live handle of one of `kinds`; false (and nothing done) for anything else.
    @discardableResult
    static func release(_ pointer: UnsafeRawPointer?, _ kinds: Set<HandleKind>) -> Bool {
        guard let pointer else { return false }
        let found = table.withLock { t -> Bool in
            guard let entry = t.live[UInt(bitPattern: pointer)], kinds.contains(entry.kind) else { return false }
            t.live[UInt(bitPattern: pointer)] = nil
            return true
        }
        if found { Unmanaged<AnyObject>.fromOpaque(pointer).release() }
        return found
    }
}

/// An error the wrapper itself finds (a bad handle, a null pointer, JSON that is no pattern).
struct WrapperError: Error {
    let code: CHHapticError.Code
    let message: String
    init(_ code: CHHapticError.Code, _ message: String) {
        self.code = code
        self.message = message
    }
}

/// The texts of errors given to C#. The C# marshaller copies a callback's `char *` into a managed
/// string and frees nothing (Apple's native side leaks a copy per error); here each distinct text
/// is kept once for the life of the process, so that a game that fails every frame leaks nothing.
enum ErrorTexts {
    private static let texts = Mutex<[String: UnsafeMutablePointer<CChar>]>([:])
    /// Past this many distinct texts, only the code's generic text is kept.
    static let limit = 256

    static func pointer(_ text: String, code: Int32) -> UnsafePointer<CChar> {
        texts.withLock { table in
            let key = table[text] != nil || table.count < limit ? text : "Core Haptics error \(code)"
            if let p = table[key] { return UnsafePointer(p) }
            let p = strdup(key)!
            table[key] = p
            return UnsafePointer(p)
        }
    }
}

/// An error carried to the callback thread (its text is kept for the process's life: ErrorTexts).
struct CHWErrorBox: @unchecked Sendable {
    let error: CHWError
    init(_ error: CHWError) { self.error = error }
}

extension CHWError {
    init(_ error: any Error) {
        let code: Int32, text: String
        switch error {
        case let e as CHHapticError:
            code = Int32(e.code.rawValue)
            text = e.userInfo[NSLocalizedDescriptionKey] as? String ?? "\(e.code)"
        case let e as WrapperError:
            code = Int32(e.code.rawValue)
            text = e.message
        default:
            code = Int32(CHHapticError.Code.unknownError.rawValue)
            text = "\(error)"
        }
        self.init(code: code, localizedDescription: ErrorTexts.pointer(text, code: code))
    }
}

/// The plug-in's clock: the engines' clock (`CHHapticEngine.currentTime`, hapticd's, which is
/// `CLOCK_MONOTONIC`: the machine's uptime) less `epoch`, so that it reads 100 s when the library
/// first needs it. The plug-in's C# reads `CurrentTime` as a double but passes every time back as a
/// `float`, whose step at an uptime of 11 hours is 3.9 ms, of a week 62.5 ms: a game's
/// `Start((float)(CurrentTime + 0.05))` would land up to half that early or late. Counted from 100
/// s, a float's step is at most 0.24 ms during the game's first hour and 1 ms during its first 4.5;
/// small constants a game may pass stay in the past, as they are on Apple's platforms.
enum PluginClock {
    /// Engine time at plug-in time 0 (seconds), fixed at the first use.
    static let epoch: Double = {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) - 100
    }()

    /// An engine's time as the plug-in reads it.
    static func reading(_ engineTime: TimeInterval) -> Double { engineTime - epoch }
}

/// A time argument, on the plug-in's clock: 0 is "immediately" (`CHHapticTimeImmediate`), as in
/// Apple's wrapper, and so is a negative one, as `CoreHaptics` takes it (a request's relative times
/// then count from now). NaN stays NaN, refused by the call.
func time(_ t: Float) -> TimeInterval { t <= 0 ? CHHapticTimeImmediate : TimeInterval(t) + PluginClock.epoch }

/// C# `bool` arrives and leaves as a 4-byte BOOL (its default marshalling), not a C `bool`.
func bool(_ b: Int32) -> Bool { b != 0 }
func bool(_ b: Bool) -> Int32 { b ? 1 : 0 }

/// A C string argument, or an error for null.
func string(_ p: UnsafePointer<CChar>?, _ what: String) throws(WrapperError) -> String {
    guard let p else { throw WrapperError(.invalidEngineParameter, "\(what) is null") }
    return String(cString: p)
}

/// The C# enum `CHHapticDynamicParameterID` (0…11); anything else is intensity, as in Apple's wrapper.
func dynamicParameter(_ id: Int32) -> CHHapticDynamicParameter.ID {
    switch id {
    case 1: .hapticSharpnessControl
    case 2: .hapticAttackTimeControl
    case 3: .hapticDecayTimeControl
    case 4: .hapticReleaseTimeControl
    case 5: .audioVolumeControl
    case 6: .audioPanControl
    case 7: .audioPitchControl
    case 8: .audioBrightnessControl
    case 9: .audioAttackTimeControl
    case 10: .audioDecayTimeControl
    case 11: .audioReleaseTimeControl
    default: .hapticIntensityControl
    }
}

/// The C# enum `CHHapticEventParameterID` (0…9); anything else is intensity, as in Apple's wrapper.
func eventParameter(_ id: Int32) -> CHHapticEvent.ParameterID {
    switch id {
    case 1: .hapticSharpness
    case 2: .attackTime
    case 3: .decayTime
    case 4: .releaseTime
    case 5: .sustained
    case 6: .audioVolume
    case 7: .audioPan
    case 8: .audioPitch
    case 9: .audioBrightness
    default: .hapticIntensity
    }
}

/// The C# enum `CHHapticEventType` (0…3); anything else is a transient, as in Apple's wrapper.
func eventType(_ type: Int32) -> CHHapticEvent.EventType {
    switch type {
    case 1: .hapticContinuous
    case 2: .audioContinuous
    case 3: .audioCustom
    default: .hapticTransient
    }
}
