/* `import CoreHaptics.CHHapticErrors`: the API is the CoreHaptics Swift module (module.modulemap). */
