/* `import CoreHaptics.CHHapticEvent`: the API is the CoreHaptics Swift module (module.modulemap). */
