import HapticProtocol
import NIOConcurrencyHelpers

/// The patterns connections are sending in pieces (`pattern.upload`): a pattern too long for one
/// request line (`limits.max_line_bytes`) — a song's worth of transients, 1.4–2.2 MB exported — is
/// sent as the text of its document, piece by piece, under a number of the sender's choosing, and a
/// `play` or `player.create` then names it (`"upload": n`), which takes it.
///
/// Both happen outside the render loop's lock, where the connection's turn is prepared (its socket
/// thread, or a decoding thread: `DaemonCore.answer`): pieces are answered there without the lock,
/// as `ping`, and a `play` decodes its pattern there, as an inline one. One turn of a connection at
/// a time; the lock here is for the table across connections.
///
/// Bounded per connection: all its uploads' text together at most `limits.max_upload_bytes`, at
/// most `limits.max_uploads` at once; going over either is `limit_exceeded` naming the key. An upload
/// that went over the bytes is failed: its text so far is freed, and its later pieces and the
/// request that takes it fail the same way — the rest of a document must not play as if it were the
/// whole. What a connection holds is freed when it closes.
final class PatternUploads: Sendable {
    private enum Upload {
        case text([UInt8])
        /// Went over `limits.max_upload_bytes`: the error every later use of its number gets.
        case failed(ProtocolError)
    }

    private struct Held {
        var uploads: [Int: Upload] = [:]
        var bytes = 0
    }

    private let held = NIOLockedValueBox<[ClientID: Held]>([:])

    /// Adds a piece to the client's upload `number`; returns that upload's length so far.
    func append(_ piece: String, to number: Int, of client: ClientID, _ limits: DaemonConfig.Limits) throws(ProtocolError) -> Int {
        let count = piece.utf8.count
        return try held.withLockedValue { all -> Result<Int, ProtocolError> in
            // Taken out while it changes: a copy left in the table would make each piece copy the
            // whole upload (copy on write).
            var h = all.removeValue(forKey: client) ?? Held()
            defer { if !h.uploads.isEmpty { all[client] = h } }
            var text: [UInt8]
            switch h.uploads.removeValue(forKey: number) {
            case .failed(let error)?:
                h.uploads[number] = .failed(error)
                return .failure(error)
            case .text(let t)?:
                text = t
            case nil:
                guard h.uploads.count < limits.maxUploads else {
                    return .failure(ProtocolError(
                        .limitExceeded, "a connection holds at most \(limits.maxUploads) uploads at once (limits.max_uploads): play one of them first"))
                }
                text = []
            }
            guard h.bytes + count <= limits.maxUploadBytes else {
                h.bytes -= text.count
                let error = ProtocolError(
                    .limitExceeded, "upload \(number) went over limits.max_upload_bytes (\(limits.maxUploadBytes) bytes for a connection's uploads together); it cannot be played")
                h.uploads[number] = .failed(error)
                return .failure(error)
            }
            text.append(contentsOf: piece.utf8)
            h.bytes += count
            h.uploads[number] = .text(text)
            return .success(text.count)
        }.get()
    }

    /// Takes the client's upload `number`: its text (or the error of an upload that failed), no
    /// longer held.
    func take(_ number: Int, of client: ClientID) -> Result<[UInt8], ProtocolError> {
        held.withLockedValue { all in
            guard var h = all.removeValue(forKey: client), let upload = h.uploads.removeValue(forKey: number) else {
                return .failure(ProtocolError(.notFound, "no upload \(number) on this connection: send its text with pattern.upload first"))
            }
            defer { if !h.uploads.isEmpty { all[client] = h } }
            switch upload {
            case .failed(let error):
                return .failure(error)
            case .text(let text):
                h.bytes -= text.count
                return .success(text)
            }
        }
    }

    /// The client's connection closed: what it held goes.
    func drop(_ client: ClientID) {
        _ = held.withLockedValue { $0.removeValue(forKey: client) }
    }

    /// The bytes the client's uploads hold (for tests).
    func bytes(of client: ClientID) -> Int { held.withLockedValue { $0[client]?.bytes ?? 0 } }
}
