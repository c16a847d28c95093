import HapticProtocol
import NIOConcurrencyHelpers

/// The patterns connections are sending in pieces (`pattern.upload`): a pattern too long for one
/// request line (`limits.max_line_bytes`) — a song's worth of transients, 1.4–2.2 MB exported — is
/// sent as the text of its document, piece by piece, under a number of the sender's choosing, and a
/// `play` or `player.create` then names it (`"upload": n`), which takes it.
///
/// Both happen on the connection's socket thread, outside the render loop's lock: pieces are
/// answered there (as `ping`), and a `play` decodes its pattern there, as an inline one. The lock
/// here is for the table across connections; each connection's uploads are its own.
///
/// Bounded per connection: all its uploads' text together at most `limits.max_upload_bytes`, at
/// most `limits.max_uploads` at once; going over either is `limit_exceeded` naming the key, and drops
/// that upload (its pieces so far are freed; a later piece under its number starts it again). What a
/// connection holds is freed when it closes.
final class PatternUploads: Sendable {
    private struct Held {
        var texts: [Int: [UInt8]] = [:]
        var bytes = 0
    }

    private let held = NIOLockedValueBox<[ClientID: Held]>([:])

    /// Adds a piece to the client's upload `number`; returns that upload's length so far.
    func append(_ piece: String, to number: Int, of client: ClientID, _ limits: DaemonConfig.Limits) throws(ProtocolError) -> Int {
        let count = piece.utf8.count
        return try held.withLockedValue { all -> Result<Int, ProtocolError> in
            var h = all[client] ?? Held()
            defer { all[client] = h.texts.isEmpty ? nil : h }
            if h.texts[number] == nil, h.texts.count >= limits.maxUploads {
                return .failure(ProtocolError(
                    .limitExceeded, "a connection holds at most \(limits.maxUploads) uploads at once (limits.max_uploads): play one of them first"))
            }
            guard h.bytes + count <= limits.maxUploadBytes else {
                h.bytes -= h.texts.removeValue(forKey: number)?.count ?? 0
                return .failure(ProtocolError(
                    .limitExceeded, "a connection's uploads hold at most \(limits.maxUploadBytes) bytes together (limits.max_upload_bytes); upload \(number) is dropped"))
            }
            h.texts[number, default: []].append(contentsOf: piece.utf8)
            h.bytes += count
            return .success(h.texts[number]!.count)
        }.get()
    }

    /// Takes the client's upload `number`: its text, no longer held.
    func take(_ number: Int, of client: ClientID) -> Result<[UInt8], ProtocolError> {
        held.withLockedValue { all in
            guard var h = all[client], let text = h.texts.removeValue(forKey: number) else {
                return .failure(ProtocolError(.notFound, "no upload \(number) on this connection: send its text with pattern.upload first"))
            }
            h.bytes -= text.count
            all[client] = h.texts.isEmpty ? nil : h
            return .success(text)
        }
    }

    /// The client's connection closed: what it held goes.
    func drop(_ client: ClientID) {
        _ = held.withLockedValue { $0.removeValue(forKey: client) }
    }

    /// The bytes the client's uploads hold (for tests).
    func bytes(of client: ClientID) -> Int { held.withLockedValue { $0[client]?.bytes ?? 0 } }
}
