internal import HapticCore
import Synchronization

/// A parameter's range and default: Apple's `CHHapticParameterAttributes`.
public protocol CHHapticParameterAttributes: NSObjectProtocol {
    var minValue: Float { get }
    var maxValue: Float { get }
    var defaultValue: Float { get }
}

/// What the hardware can do: Apple's `CHHapticDeviceCapability`.
public protocol CHHapticDeviceCapability: AnyObject {
    /// True when hapticd answers and has the pad (for `capabilitiesForHardware()`: any pad).
    var supportsHaptics: Bool { get }
    /// False: a pad has no speaker; audio events are skipped.
    var supportsAudio: Bool { get }
    func attributes(forEventParameter inParameter: CHHapticEvent.ParameterID, eventType type: CHHapticEvent.EventType) throws -> any CHHapticParameterAttributes
    func attributes(forDynamicParameter inParameter: CHHapticDynamicParameter.ID) throws -> any CHHapticParameterAttributes
}

final class HapticParameterAttributes: NSObject, CHHapticParameterAttributes, Sendable {
    let minValue: Float
    let maxValue: Float
    let defaultValue: Float

    init(_ range: ClosedRange<Double>, _ defaultValue: Double) {
        minValue = Float(range.lowerBound)
        maxValue = Float(range.upperBound)
        self.defaultValue = Float(defaultValue)
    }
}

/// The capabilities of a pad as hapticd reports them; the parameter ranges are hapticd's own
/// (HapticCore's, the same table the daemon's `capabilities` command reports).
final class HapticDeviceCapability: CHHapticDeviceCapability, Sendable {
    /// The pad asked about; nil: any pad.
    let device: Int?
    /// hapticd's answer, asked once, at the first read of `supportsHaptics`: the parameter ranges
    /// need no round trip (Unity's inspectors ask for them on every repaint).
    private let answer = Mutex<Bool?>(nil)
    var supportsAudio: Bool { false }

    /// The capabilities of `device` (nil: any pad), asked of hapticd when first read.
    init(device: Int?) { self.device = device }

    /// True when hapticd answers and has the pad (nil: any pad); no daemon: no haptics.
    var supportsHaptics: Bool {
        if let known = answer.withLock({ $0 }) { return known }
        let service = HapticService.shared
        let yes: Bool
        if let device {
            let r = try? service.request("capabilities", JSONObject(["device": .number(Double(device))]))
            yes = r?["supports_haptics"] == .bool(true) && r?["connected"] == .bool(true)
        } else {
            yes = service.connectedPadCount() > 0
        }
        answer.withLock { $0 = yes }
        return yes
    }

    func attributes(forEventParameter inParameter: CHHapticEvent.ParameterID, eventType type: CHHapticEvent.EventType) throws -> any CHHapticParameterAttributes {
        guard let id = EventParameterID(rawValue: inParameter.rawValue) else {
            throw CHHapticError(.invalidParameterType, "unknown event parameter \"\(inParameter.rawValue)\"")
        }
        guard EventType(rawValue: type.rawValue) != nil else {
            throw CHHapticError(.invalidEventType, "unknown event type \"\(type.rawValue)\"")
        }
        return HapticParameterAttributes(id.range, id.defaultValue)
    }

    func attributes(forDynamicParameter inParameter: CHHapticDynamicParameter.ID) throws -> any CHHapticParameterAttributes {
        guard let id = DynamicParameterID(rawValue: inParameter.rawValue) else {
            throw CHHapticError(.invalidParameterType, "unknown dynamic parameter \"\(inParameter.rawValue)\"")
        }
        return HapticParameterAttributes(id.range, id.defaultValue)
    }
}
