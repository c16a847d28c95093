import Foundation
import HapticCore
import Testing

/// The repository root, found from this file's path (Tests/HapticCoreTests/Support.swift).
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// ../shared beside the project: the AHAP files users bring.
let sharedAHAPDirectory = repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared/ahap")

func allSharedAHAPFiles() -> [URL] {
    guard let e = FileManager.default.enumerator(at: sharedAHAPDirectory, includingPropertiesForKeys: nil) else { return [] }
    return e.compactMap { $0 as? URL }.filter { $0.pathExtension.lowercased() == "ahap" }
        .sorted { $0.path < $1.path }
}

/// Loads a document that must load.
func mustLoad(_ text: String, limits: AHAPLimits = .default) throws -> LoadedPattern {
    try AHAPLoader.load(text: text, limits: limits)
}

/// Loads a document that must fail, returning its errors.
func loadErrors(_ text: String, limits: AHAPLimits = .default) -> [AHAPDiagnostic] {
    do {
        _ = try AHAPLoader.load(text: text, limits: limits)
        Issue.record("expected the document to fail to load")
        return []
    } catch {
        return error.errors
    }
}

/// A document with these pattern elements (JSON text, comma-separated).
func doc(_ elements: String) -> String {
    "{\"Version\": 1.0, \"Pattern\": [\(elements)]}"
}

func event(_ type: String, time: Double = 0, duration: Double? = nil, _ params: [(String, Double)] = []) -> String {
    let ps = params.map { "{\"ParameterID\": \"\($0.0)\", \"ParameterValue\": \($0.1)}" }.joined(separator: ",")
    let d = duration.map { ", \"EventDuration\": \($0)" } ?? ""
    return "{\"Event\": {\"EventType\": \"\(type)\", \"Time\": \(time)\(d), \"EventParameters\": [\(ps)]}}"
}
