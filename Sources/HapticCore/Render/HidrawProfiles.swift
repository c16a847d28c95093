/// The profiles of pads driven through their own reports on their hidraw node (docs/devices.md,
/// "hidraw"): tried before `builtIn` for a pad whose hidraw node the daemon can use, each naming the
/// evdev profile the pad falls back to.
extension DeviceProfile {
    /// Switch Pro Controller over USB, HD rumble, at the pad's interrupt OUT endpoint interval (8 ms),
    /// refreshed every 50 ms while non-zero as SDL's HIDAPI driver does ("to keep the motors running").
    /// SDL 2.26 holds its writes 30 ms apart on USB too (its comment: "the motors can miss the
    /// command"); no driver limit exists here, and a missed value is superseded by the next report
    /// or the refresh (docs/devices.md, "hidraw").
    public static let switchProUSBHD = DeviceProfile(
        name: "switch-pro-usb-hd", displayName: "Switch Pro Controller over USB (hidraw, HD rumble)",
        matches: [.init(bus: busUSB, vendor: 0x057E, product: 0x2009)],
        minimumUpdateInterval: 0.008, quantization: .full, refreshInterval: 0.05,
        transientPulse: .init(sharp: 0.016, dull: 0.040, minimum: 0.016),
        actuators: .hdRumble, reports: .switchHDRumble, evdevFallback: "switch-pro-usb")

    /// Over Bluetooth: SDL writes at most every 30 ms ("more often can turn the controller off") and
    /// refreshes every 50 ms.
    public static let switchProBluetoothHD = DeviceProfile(
        name: "switch-pro-bluetooth-hd", displayName: "Switch Pro Controller over Bluetooth (hidraw, HD rumble)",
        matches: [.init(bus: busBluetooth, vendor: 0x057E, product: 0x2009)],
        minimumUpdateInterval: 0.030, quantization: .full, refreshInterval: 0.05,
        transientPulse: .init(sharp: 0.030, dull: 0.060, minimum: 0.030),
        actuators: .hdRumble, reports: .switchHDRumble, evdevFallback: "switch-pro-bluetooth")

    /// A Joy-Con (L) alone over Bluetooth, HD rumble: its one actuator (the report's left half; the
    /// actuator is written to both halves, as SDL's HIDAPI driver writes every Switch pad), paced as
    /// the Switch Pro over Bluetooth (`joyCon(left:)`).
    public static let joyConLeftBluetoothHD = switchProBluetoothHD.joyCon(left: true)
    /// A Joy-Con (R) alone over Bluetooth, HD rumble (the report's right half).
    public static let joyConRightBluetoothHD = switchProBluetoothHD.joyCon(left: false)

    /// A Joy-Con (L) in the charging grip over USB, HD rumble: the grip's interface for that Joy-Con
    /// (057E:200E, the left stick's) takes the Pro's USB reports, paced as the Pro over USB (the grip's
    /// interrupt OUT endpoint: 8 ms).
    public static let joyConLeftUSBHD = switchProUSBHD.joyCon(left: true)
    /// A Joy-Con (R) in the charging grip over USB, HD rumble.
    public static let joyConRightUSBHD = switchProUSBHD.joyCon(left: false)

    /// Xbox One / Series over Bluetooth with its trigger motors: report `0x03`, 0…100 per motor.
    /// SDL's HIDAPI driver holds a Bluetooth pad busy for 50 ms after each rumble report.
    public static let xboxBluetoothTriggers = DeviceProfile(
        name: "xbox-bluetooth-triggers", displayName: "Xbox One / Series over Bluetooth (hidraw, trigger motors)",
        matches: [0x02E0, 0x02FD, 0x0B05, 0x0B13, 0x0B20, 0x0B22].map {
            .init(bus: busBluetooth, vendor: 0x045E, product: $0)
        },
        minimumUpdateInterval: 0.050, quantization: .percent,
        transientPulse: .init(sharp: 0.050, dull: 0.090, minimum: 0.050), strongFloor: 0.06, weakFloor: 0.06,
        actuators: .rumbleAndTriggers, secondPairFloor: 0.06, reports: .xboxBluetooth, evdevFallback: "xbox-bluetooth")

    /// DualSense / DualSense Edge over Bluetooth with its voice coils: report `0x32`, a waveform stream
    /// (`DualSenseBluetoothHaptics`, docs/devices.md, "DualSense voice coils over Bluetooth"). The
    /// motor fields are `dualsense-bluetooth`'s: they pace the compatible vibration (`FF_RUMBLE`
    /// through hid-playstation) the pad falls back to while the stream cannot run, with the same
    /// engines. The localities are the two handles (`rumble`): a voice coil in each.
    public static let dualSenseBluetoothWaveform = DeviceProfile(
        name: "dualsense-bluetooth-waveform", displayName: "DualSense / DualSense Edge over Bluetooth (hidraw, voice-coil waveforms)",
        matches: [0x0CE6, 0x0DF2].map { .init(bus: busBluetooth, vendor: 0x054C, product: $0) },
        minimumUpdateInterval: 0.010, quantization: .bits8, reports: .dualSenseHaptics, evdevFallback: "dualsense-bluetooth")

    /// The hidraw profiles, tried before `builtIn` where the pad's hidraw node can be used.
    public static let hidrawBuiltIn: [DeviceProfile] = [
        switchProUSBHD, switchProBluetoothHD, joyConLeftBluetoothHD, joyConRightBluetoothHD, joyConLeftUSBHD,
        joyConRightUSBHD, xboxBluetoothTriggers, dualSenseBluetoothWaveform,
    ]
}
