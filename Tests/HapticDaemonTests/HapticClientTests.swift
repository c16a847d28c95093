import DaemonTestSupport
import Dispatch
import Glibc
import Foundation
import HapticClient
import HapticCore
import Synchronization
import Testing

/// The public `HapticClient` against the real daemon: many threads and tasks on one connection, the
/// three request forms, events to a handler, to the queue and as an AsyncStream, and what a lost
/// daemon does to waiting and later requests.
@Suite(.serialized) struct HapticClientTests {
    @Test func manyThreadsShareOneConnectionAndEachGetsItsOwnReply() throws {
        let daemon = try DaemonProcess()
        let client = try daemon.client()
        let wrong = Atomic<Int>(0)
        // Each thread asks for a status of a device id of its own; a reply matched to the wrong
        // request would name another device (or fail for a device that does not exist).
        DispatchQueue.concurrentPerform(iterations: 16) { thread in
            for i in 0..<50 {
                let device = (thread + i) % 2
                guard let r = try? client.request("capabilities", JSONObject(["device": .number(Double(device))])),
                      number(r, "device") == Double(device) else {
                    wrong.add(1, ordering: .relaxed)
                    continue
                }
            }
        }
        #expect(wrong.load(ordering: .relaxed) == 0)
        #expect(daemon.terminate() == 0)
    }

    @Test func asyncAndCompletionFormsAnswerToo() async throws {
        let daemon = try DaemonProcess()
        let client = try daemon.client()
        let results = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<32 { group.addTask { try await client.request("ping")["pong"] == .bool(true) } }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(results == 32)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            do {
                try client.send("devices") { result in
                    #expect((try? result.get())?["devices"] != nil)
                    done.resume()
                }
            } catch {
                Issue.record("send failed: \(error)")
                done.resume()
            }
        }
        // A daemon error comes back as .failed with the protocol's code.
        do {
            _ = try await client.request("player.start", JSONObject(["player": .number(424242)]))
            Issue.record("an unknown player started")
        } catch {
            guard case .failed(let code, _, _) = error else { Issue.record("\(error)"); return }
            #expect(code == "not_found")
        }
        #expect(daemon.terminate() == 0)
    }

    @Test func eventsReachTheHandlerTheQueueAndTheStream() async throws {
        let daemon = try DaemonProcess(control: true)
        let client = try daemon.client()
        _ = try await client.request("subscribe", JSONObject(["events": .array([.string("device.removed"), .string("device.added")])]))
        daemon.simulate("unplug 1")
        let queued = try client.nextEvent(timeout: 5)
        #expect(queued?["event"] == .string("device.removed"))

        let seen = Mutex<[String]>([])
        client.setEventHandler { event in
            if case .string(let name)? = event["event"] { seen.withLock { $0.append(name) } }
        }
        daemon.simulate("plug 1")
        #expect(waitUntil { seen.withLock { $0 } == ["device.added"] })

        let stream = client.events()
        daemon.simulate("unplug 1")
        var iterator = stream.makeAsyncIterator()
        let streamed = await iterator.next()
        #expect(streamed?["event"] == .string("device.removed"))
        #expect(daemon.terminate() == 0)
        #expect(await iterator.next() == nil, "the stream ends with the connection")
    }

    @Test func aLostDaemonFailsWaitingAndLaterRequestsAndCallsTheDisconnectHandler() throws {
        let daemon = try DaemonProcess()
        let client = try daemon.client()
        let lost = Mutex<ClientError?>(nil)
        client.setDisconnectHandler { error in lost.withLock { $0 = error } }
        #expect(client.isConnected)
        #expect(daemon.terminate() == 0)
        #expect(waitUntil { lost.withLock { $0 } != nil })
        #expect(!client.isConnected)
        #expect(throws: ClientError.self) { try client.request("ping") }
        do {
            _ = try client.request("ping")
        } catch {
            guard case .disconnected = error else { Issue.record("expected .disconnected, got \(error)"); return }
        }
    }

    @Test func noDaemonIsAnErrorThatSaysWhatToDo() {
        do {
            _ = try HapticClient(path: "/nonexistent/hapticd.sock")
            Issue.record("connected to nothing")
        } catch {
            guard case .notRunning(let path, _) = error else { Issue.record("\(error)"); return }
            #expect(path == "/nonexistent/hapticd.sock")
            #expect(error.description.contains("HAPTICD_SOCKET"))
        }
    }

    /// JSON has no NaN or infinity: a request holding one is refused before it is written, naming the
    /// member, in each of the three forms — not sent with `null` there, which the daemon reads as a
    /// member not given (a `rate` of NaN played at the default rate through hapticctl).
    @Test func aNumberThatIsNotFiniteIsRefusedBeforeSending() async throws {
        let daemon = try DaemonProcess()
        let client = try daemon.client()
        let cases: [(String, JSONObject, String)] = [
            ("gain.set", JSONObject(["gain": .number(.nan)]), "gain (nan)"),
            ("player.send_parameters", JSONObject(["player": .number(1), "parameters": .object(JSONObject(["intensity": .number(.infinity)]))]),
             "parameters.intensity (inf)"),
            ("play", JSONObject(["pattern": .object(JSONObject(["Pattern": .array([.object(JSONObject(["Event": .object(JSONObject([
                "Time": .number(-.infinity), "EventType": .string("HapticTransient")]))]))])]))]),
             "pattern.Pattern[0].Event.Time (-inf)"),
        ]
        for (command, body, path) in cases {
            #expect { try Self.blocking(client, command, body) } throws: { ($0 as? ClientError) == .invalidArgument("\(path) is not a finite number: nothing was sent") }
            await #expect { try await client.request(command, body) } throws: { ($0 as? ClientError).map { "\($0)" }?.hasPrefix(path) == true }
            #expect(throws: ClientError.self) { try client.send(command, body) { _ in Issue.record("a refused request's completion ran") } }
        }
        // Nothing of them reached the socket: the connection is whole, and the next reply is ping's.
        #expect(try await client.request("ping")["pong"] == .bool(true))
        #expect(daemon.terminate() == 0)
    }

    /// The blocking form (from async code, `request` names the async one).
    static func blocking(_ client: HapticClient, _ command: String, _ body: JSONObject) throws -> JSONObject {
        try client.request(command, body)
    }

    @Test func closeFailsWhatWaitsAndIsIdempotent() throws {
        let daemon = try DaemonProcess()
        let client = try daemon.client()
        #expect(try client.request("ping")["pong"] == .bool(true))
        client.close()
        client.close()
        #expect(!client.isConnected)
        #expect(throws: ClientError.self) { try client.request("ping") }
        #expect(daemon.terminate() == 0)
    }

    /// A request queued and then not written (the daemon does not read) is answered once, through
    /// its completion, and not thrown as well: a caller counting outcomes (a DispatchGroup's leave)
    /// must get one.
    @Test func aRequestThatCannotBeWrittenFailsOnceThroughItsCompletion() throws {
        let listener = try StandInListener("deaf")
        defer { withExtendedLifetime(listener) {} }  // listening (never accepting) to the end
        let client = try HapticClient(path: listener.path)  // accepted by the kernel's backlog; never read
        let outcomes = Mutex<[Bool]>([])
        let big = JSONObject(["blob": .string(String(repeating: "x", count: 4 << 20))])  // more than a socket buffer
        var thrown: ClientError?
        do {
            try client.send("ping", big, timeout: 0.3) { result in
                outcomes.withLock { $0.append((try? result.get()) != nil) }
            }
        } catch {
            thrown = error
        }
        #expect(thrown == nil, "queued: its failure is the completion's, not thrown too (\(String(describing: thrown)))")
        #expect(waitUntil { !outcomes.withLock { $0 }.isEmpty })
        #expect(outcomes.withLock { $0 } == [false], "one outcome, a failure")
        #expect(!client.isConnected, "half a line on the socket ends the connection")
        #expect(throws: ClientError.self) { try client.send("ping") { _ in Issue.record("a closed connection's completion ran") } }
    }

    /// A stand-in daemon that refuses: it accepts one connection, writes an error line without an id
    /// and closes — at once, or after reading the client's first request. Either way the client's
    /// request fails with the refusal's code, not a broken pipe.
    @Test(arguments: [false, true])
    func aRefusedConnectionSaysWhyEvenWhenTheRequestRacesTheClose(readFirst: Bool) throws {
        let standIn = try StandInListener("refuse")
        defer { withExtendedLifetime(standIn) {} }
        let listener = standIn.fd, path = standIn.path
        let served = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let fd = accept(listener, nil, nil)
            if readFirst {
                var byte: UInt8 = 0
                while read(fd, &byte, 1) == 1 && byte != UInt8(ascii: "\n") {}
            }
            let line = #"{"id":null,"ok":false,"error":{"code":"limit_exceeded","message":"too many clients"}}"# + "\n"
            _ = line.withCString { write(fd, $0, strlen($0)) }
            close(fd)
            served.signal()
        }
        let client = try HapticClient(path: path)
        if !readFirst { #expect(served.wait(timeout: .now() + 5) == .success) }  // closed before the request
        do {
            _ = try client.request("ping", timeout: 5)
            Issue.record("a refused connection answered")
        } catch {
            guard case .failed(let code, _, _) = error else { Issue.record("expected the refusal, got \(error)"); return }
            #expect(code == "limit_exceeded")
        }
    }
}
