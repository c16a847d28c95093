/* `import CoreHaptics.CHHapticEngine`: the API is the CoreHaptics Swift module (module.modulemap). */
