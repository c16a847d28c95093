/* `import CoreHaptics.CHHapticPattern`: the API is the CoreHaptics Swift module (module.modulemap). */
