/* `import CoreHaptics.CHHapticPatternPlayer`: the API is the CoreHaptics Swift module (module.modulemap). */
