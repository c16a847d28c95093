/* `import CoreHaptics.CHHapticParameter`: the API is the CoreHaptics Swift module (module.modulemap). */
