/* `import CoreHaptics.CHHapticDeviceCapability`: the API is the CoreHaptics Swift module (module.modulemap). */
