// libCoreHapticsWrapper.so under Mono, called as Apple's Unity plug-in calls it (Native.cs), against
// a real hapticd on a simulated pad: every exported function is P/Invoked, and what the pad did is
// read from the daemon's --trace. Run by Tests/Unity/run.sh, which starts nothing itself: this
// program starts, stops, unplugs and restarts the daemon where $HAPTICD_SOCKET says.
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Reflection;
using System.Runtime.InteropServices;
using System.Threading;

namespace HapticdUnityTests
{
    internal static class Program
    {
        static readonly string Socket = Environment.GetEnvironmentVariable("HAPTICD_SOCKET");
        static readonly string Hapticd = Environment.GetEnvironmentVariable("UNITY_TEST_HAPTICD");
        static readonly string HapticctlPath = Environment.GetEnvironmentVariable("UNITY_TEST_HAPTICTL");
        static readonly string Exports = Environment.GetEnvironmentVariable("UNITY_TEST_EXPORTS");
        static readonly string Work = Environment.GetEnvironmentVariable("UNITY_TEST_DIR");
        static string Trace { get { return Path.Combine(Work, "trace.csv"); } }
        static string Log { get { return Path.Combine(Work, "hapticd.log"); } }

        static int failures;
        static string current = "";

        static void Check(bool ok, string what)
        {
            if (ok) return;
            failures++;
            Console.Error.WriteLine("FAIL [" + current + "]: " + what);
        }

        /// Polls `condition` every 5 ms until it holds or `seconds` pass; whether it held.
        static bool Until(Func<bool> condition, double seconds = 5)
        {
            var clock = Stopwatch.StartNew();
            while (clock.Elapsed.TotalSeconds < seconds)
            {
                if (condition()) return true;
                Thread.Sleep(5);
            }
            return condition();
        }

        // MARK: what the callbacks saw (they run on the engine's handler thread, not this one)

        class Seen
        {
            readonly object gate = new object();
            readonly List<string> items = new List<string>();
            public void Add(string s) { lock (gate) items.Add(s); }
            public int Count { get { lock (gate) return items.Count; } }
            public List<string> All { get { lock (gate) return new List<string>(items); } }
            public void Clear() { lock (gate) items.Clear(); }
            public bool Has(string s) { lock (gate) return items.Contains(s); }
        }

        static readonly Seen errors = new Seen();       // "pointer:code"
        static readonly Seen stopped = new Seen();      // "pointer:reason"
        static readonly Seen resets = new Seen();       // "pointer"
        static readonly Seen finished = new Seen();     // "pointer" (advanced players)
        static readonly Seen allFinished = new Seen();  // "pointer" (NotifyWhenPlayersFinished)
        static readonly Seen createErrors = new Seen(); // "code"
        static int mainThread;
        static int callbacksOnMainThread;
        static string lastErrorText = "";

        // Held in fields, as the plug-in's static methods are: the native side keeps them.
        static readonly ErrorCallback onCreateError = e => { createErrors.Add(e.Code.ToString()); lastErrorText = e.LocalizedDescription; };
        static readonly GenericCallback<IntPtr, CHHapticEngineStoppedReason> onStopped = (p, r) => { NoteThread(); stopped.Add(p.ToInt64() + ":" + (int)r); };
        static readonly SuccessWithPointerCallback onReset = p => { NoteThread(); resets.Add(p.ToInt64().ToString()); };
        static readonly ErrorWithPointerCallback onError = (p, e) => { errors.Add(p.ToInt64() + ":" + e.Code); lastErrorText = e.LocalizedDescription; };
        static readonly SuccessWithPointerCallback onFinished = p => { NoteThread(); finished.Add(p.ToInt64().ToString()); };
        static readonly SuccessWithPointerCallback onFinishedAgain = p => { NoteThread(); finished.Add("again:" + p.ToInt64()); };
        static readonly AllPlayersFinishedStatic onAllFinished = p => { NoteThread(); allFinished.Add(p.ToInt64().ToString()); };

        static void NoteThread() { if (Thread.CurrentThread.ManagedThreadId == mainThread) Interlocked.Increment(ref callbacksOnMainThread); }

        static string Err(IntPtr p, int code) { return p.ToInt64() + ":" + code; }

        /// Runs `call` and returns the error codes its error callback reported before it returned.
        static List<string> Sync(Action call)
        {
            errors.Clear();
            call();
            return errors.All;
        }

        // MARK: the daemon

        static Process daemon;

        static void StartDaemon()
        {
            var patterns = Environment.GetEnvironmentVariable("UNITY_TEST_PATTERNS");
            var config = Path.Combine(Work, "hapticd.toml");
            File.WriteAllText(config, "[patterns]\ndirectories = [\"" + patterns + "\"]\n");
            File.WriteAllText(Log, "");
            var info = new ProcessStartInfo("/bin/sh", "-c 'exec \"$0\" --config \"$1\" --socket \"$2\" --trace \"$3\" --simulate 1 --simulate-control >>\"$4\" 2>&1' "
                + string.Join(" ", new[] { Hapticd, config, Socket, Trace, Log }.Select(a => "'" + a + "'")));
            info.UseShellExecute = false;
            info.RedirectStandardInput = true;
            daemon = Process.Start(info);
            if (!Until(() => File.ReadAllText(Log).Contains("listening on"), 10))
                throw new Exception("hapticd did not start: " + File.ReadAllText(Log));
        }

        static void StopDaemon()
        {
            kill(daemon.Id, 15);
            daemon.WaitForExit();
            Check(daemon.ExitCode == 0, "hapticd exited 0 on SIGTERM (" + daemon.ExitCode + ")");
        }

        [DllImport("libc")]
        static extern int kill(int pid, int signal);
        [DllImport("libc")]
        static extern int socket(int domain, int type, int protocol);
        [DllImport("libc")]
        static extern int bind(int fd, byte[] address, int length);
        [DllImport("libc")]
        static extern int listen(int fd, int backlog);
        [DllImport("libc")]
        static extern int close(int fd);

        /// A Unix socket at $HAPTICD_SOCKET that is listened on and never accepted from: the kernel
        /// completes every connection and nothing answers (a hung daemon, a start that never ends).
        static int SilentSocket()
        {
            File.Delete(Socket);
            var address = new byte[110];                    // struct sockaddr_un
            address[0] = 1;                                 // sun_family = AF_UNIX
            var path = System.Text.Encoding.UTF8.GetBytes(Socket);
            Array.Copy(path, 0, address, 2, path.Length);
            var fd = socket(1, 1, 0);                       // AF_UNIX, SOCK_STREAM
            if (fd < 0 || bind(fd, address, address.Length) != 0 || listen(fd, 64) != 0)
                throw new Exception("cannot listen on " + Socket);
            return fd;
        }

        static void Simulate(string line)
        {
            daemon.StandardInput.WriteLine(line);
            daemon.StandardInput.Flush();
        }

        static void Hapticctl(string args)
        {
            var p = Process.Start(new ProcessStartInfo(HapticctlPath, args + " --socket " + Socket) { UseShellExecute = false, RedirectStandardOutput = true });
            p.StandardOutput.ReadToEnd();
            p.WaitForExit();
            Check(p.ExitCode == 0, "hapticctl " + args + " exited " + p.ExitCode);
        }

        // MARK: the trace: (time, device, strong, weak) for every write to the pad

        struct Row { public double T; public int Strong, Weak; public bool On { get { return Strong > 0 || Weak > 0; } } }

        static List<Row> Rows()
        {
            var rows = new List<Row>();
            if (!File.Exists(Trace)) return rows;
            string[] lines;
            using (var s = new FileStream(Trace, FileMode.Open, FileAccess.Read, FileShare.ReadWrite))
            using (var r = new StreamReader(s)) lines = r.ReadToEnd().Split('\n');
            foreach (var line in lines.Skip(1))
            {
                var f = line.Split(',');
                double t; int d, st, w;
                if (f.Length == 4 && double.TryParse(f[0], NumberStyles.Float, CultureInfo.InvariantCulture, out t) && int.TryParse(f[1], out d)
                    && int.TryParse(f[2], out st) && int.TryParse(f[3], out w))
                    rows.Add(new Row { T = t, Strong = st, Weak = w });
            }
            return rows;
        }

        /// The motors are still (the last write was zero), waited for.
        static int Quiet(double seconds = 5)
        {
            Check(Until(() => { var r = Rows(); return r.Count == 0 || !r[r.Count - 1].On; }, seconds), "the pad fell quiet");
            return Rows().Count;
        }

        static bool OnAfter(int mark, double seconds = 3) { return Until(() => Rows().Skip(mark).Any(r => r.On), seconds); }
        static bool OffAfter(int mark, double seconds = 3) { return Until(() => { var r = Rows(); return r.Count > mark && !r[r.Count - 1].On; }, seconds); }
        static int Peak(IEnumerable<Row> rows) { return rows.Select(r => Math.Max(r.Strong, r.Weak)).DefaultIfEmpty(0).Max(); }

        /// Onset times (trace clock) after `mark`.
        static List<double> Onsets(int mark)
        {
            var result = new List<double>();
            var rows = Rows();
            bool on = mark > 0 && rows[mark - 1].On;
            foreach (var r in rows.Skip(mark)) { if (r.On && !on) result.Add(r.T); on = r.On; }
            return result;
        }

        // MARK: AHAP as the plug-in's serializer writes it (CHHapticPattern.Serialize: tabs, one key a line)

        static string F(double x) { return x.ToString(CultureInfo.InvariantCulture); }

        static string Continuous(double time, double duration, double intensity = 1, double sharpness = 0)
        {
            return "\t\t{\n\t\t\t\"Event\": {\n\t\t\t\t\"EventType\": \"HapticContinuous\",\n\t\t\t\t\"Time\": " + F(time) + ",\n\t\t\t\t\"EventDuration\": " + F(duration)
                + ",\n\t\t\t\t\"EventParameters\": [\n\t\t\t\t\t{\"ParameterID\": \"HapticIntensity\", \"ParameterValue\": " + F(intensity)
                + "},\n\t\t\t\t\t{\"ParameterID\": \"HapticSharpness\", \"ParameterValue\": " + F(sharpness) + "}\n\t\t\t\t]\n\t\t\t}\t\t}";
        }

        static string Transient(double time, double intensity = 1, double sharpness = 0.5)
        {
            return "\t\t{\n\t\t\t\"Event\": {\n\t\t\t\t\"EventType\": \"HapticTransient\",\n\t\t\t\t\"Time\": " + F(time)
                + ",\n\t\t\t\t\"EventParameters\": [\n\t\t\t\t\t{\"ParameterID\": \"HapticIntensity\", \"ParameterValue\": " + F(intensity)
                + "},\n\t\t\t\t\t{\"ParameterID\": \"HapticSharpness\", \"ParameterValue\": " + F(sharpness) + "}\n\t\t\t\t]\n\t\t\t}\t\t}";
        }

        static string Ahap(params string[] entries)
        {
            return "{\n\t\"Version\": 1,\n\t\"Metadata\": {\"Project\": \"hapticd Unity test\"},\n\t\"Pattern\": [\n" + string.Join(",\n", entries) + "\n\t]\n}";
        }

        // MARK: the tests

        static void Test(string name, Action body)
        {
            current = name;
            var before = failures;
            var clock = Stopwatch.StartNew();
            try { body(); }
            catch (Exception e) { Check(false, "threw " + e); }
            Console.WriteLine((failures == before ? "ok   " : "FAIL ") + name + " (" + clock.Elapsed.TotalSeconds.ToString("0.0", CultureInfo.InvariantCulture) + " s)");
        }

        static int Main()
        {
            mainThread = Thread.CurrentThread.ManagedThreadId;
            foreach (var v in new[] { Socket, Hapticd, HapticctlPath, Exports, Work })
                if (string.IsNullOrEmpty(v)) { Console.Error.WriteLine("run through Tests/Unity/run.sh"); return 2; }

            Test("every exported function is P/Invoked, the structs marshal at the native sizes", Declarations);
            Test("no daemon: engine creation fails through the error callback", NoDaemon);
            Test("a daemon that never answers: one call waits, the rest fail at once", SilentDaemon);
            StartDaemon();
            IntPtr engine = IntPtr.Zero;
            Test("engine: create, start, properties, clock", () => engine = EngineBasics());
            Test("one-shot patterns from JSON and from a file path", () => OneShots(engine));
            Test("bad input never crashes: null, bad and stale handles, bad JSON", () => BadInput(engine));
            Test("player: start, stop, mute, dynamic parameters, parameter curve", () => Players(engine));
            Test("advanced player: loop, rate, pause, resume, seek, mute, completion", () => AdvancedPlayers(engine));
            Test("notify when players finished", () => NotifyFinished(engine));
            Test("capabilities", Capabilities);
            Test("feedback generators: impact, selection, notification", Feedback);
            Test("callbacks: engine stop, engine reset, pad removal, daemon gone", () => Callbacks(engine));
            Test("engine stop and destroy", () => StopAndDestroy(engine));
            Check(callbacksOnMainThread == 0, "callbacks ran on the engine's handler thread, never the caller's");
            StopDaemon();
            Console.WriteLine(failures == 0 ? "Unity (Mono) tests passed" : failures + " failure(s)");
            Console.Out.Flush();
            return failures == 0 ? 0 : 1;
        }

        static void Declarations()
        {
            var declared = typeof(Native).GetMethods(BindingFlags.Static | BindingFlags.NonPublic)
                .Select(m => m.GetCustomAttributes(typeof(DllImportAttribute), false).Cast<DllImportAttribute>().FirstOrDefault())
                .Where(a => a != null).Select(a => a.EntryPoint).ToList();
            var listed = File.ReadAllLines(Exports).Where(l => l.Length > 0 && !l.StartsWith("#")).ToList();
            Check(listed.Count == 58, "the exports list has 58 functions (" + listed.Count + ")");
            Check(declared.Count == declared.Distinct().Count(), "each entry point declared once");
            foreach (var s in listed.Except(declared)) Check(false, s + " is not P/Invoked by these tests");
            foreach (var s in declared.Except(listed)) Check(false, s + " is P/Invoked but not in the exports list");
            Check(Marshal.SizeOf(typeof(CHError)) == 16, "CHError is 16 bytes");
            Check(Marshal.SizeOf(typeof(CHSendParameter)) == 12, "CHSendParameter is 12 bytes");
            Check(Marshal.SizeOf(typeof(CHSendParametersRequest)) == 16, "CHSendParametersRequest is 16 bytes");
            Check(Marshal.SizeOf(typeof(MarshallingParameterCurveControlPoint)) == 8, "a control point is 8 bytes");
            // The GCHandle field sits past the native struct's 28 bytes of data: in its padding on Mono (a
            // 4-byte handle: 32 bytes), after it where a handle is 8 bytes (40). Passed by value on the
            // stack either way, after which no argument of these calls goes on the stack.
            var curveSize = Marshal.SizeOf(typeof(CHHapticParameterCurveRequest));
            Check(curveSize == 32 || curveSize == 40, "the curve request is the native 32 bytes, or those and a GCHandle: " + curveSize);
            Check(Marshal.OffsetOf(typeof(CHHapticParameterCurveRequest), "PointsLength").ToInt32() == 24, "the curve's PointsLength at 24, as natively");
        }

        static void NoDaemon()
        {
            Check(!Native.HardwareSupportsHaptics(), "no haptics without hapticd");
            createErrors.Clear();
            var engine = Native.Create(onCreateError, onStopped, onReset);
            Check(engine == IntPtr.Zero, "no engine");
            Check(createErrors.All.SequenceEqual(new[] { "-4810" }), "serverInitFailed, reported before Create returned: " + string.Join(",", createErrors.All));
            Check(lastErrorText.Contains("hapticd"), "the error says why: " + lastErrorText);
            // The generators never fail: without hapticd nothing is felt.
            var g = Native.CreateImpactGenerator((int)UIImpactType.Medium);
            Native.PrepareGenerator(g);
            Native.TriggerImpactGenerator(g, 1);
            Native.DestroyImpactGenerator(g);
        }

        /// Apple's CHHapticPlayer component asks HardwareSupportsHaptics() on every Play(): against a
        /// socket that accepts and never answers, each call waited 5 s, and so did each new engine.
        static void SilentDaemon()
        {
            var fd = SilentSocket();
            var clock = Stopwatch.StartNew();
            Check(!Native.HardwareSupportsHaptics(), "no answer: no haptics");
            var first = clock.Elapsed.TotalSeconds;
            Check(first >= 4.5, "the first call waits the request timeout (5 s): " + first);
            var slowest = 0.0;
            for (var i = 0; i < 20; i++)
            {
                clock.Restart();
                Check(!Native.HardwareSupportsHaptics(), "still no answer: no haptics");
                createErrors.Clear();
                Check(Native.Create(onCreateError, onStopped, onReset) == IntPtr.Zero, "no engine");
                slowest = Math.Max(slowest, clock.Elapsed.TotalSeconds);
            }
            Check(slowest < 1, "later calls do not wait for the timeout: the slowest took " + slowest + " s");
            Check(createErrors.All.SequenceEqual(new[] { "-4811" }) && lastErrorText.Contains("has not answered"),
                "serverInterrupted, saying hapticd has not answered: " + string.Join(",", createErrors.All) + " " + lastErrorText);
            close(fd);
            File.Delete(Socket);
            // The library's background probe finds no socket now, and stops holding callers back.
            Check(Until(() =>
            {
                createErrors.Clear();
                Native.Create(onCreateError, onStopped, onReset);
                return createErrors.All.SequenceEqual(new[] { "-4810" });
            }, 6), "with no socket at all: serverInitFailed again: " + lastErrorText);
        }

        static IntPtr EngineBasics()
        {
            Check(Native.HardwareSupportsHaptics(), "haptics with hapticd and a pad");
            createErrors.Clear();
            var engine = Native.Create(onCreateError, onStopped, onReset);
            Check(engine != IntPtr.Zero && createErrors.Count == 0, "an engine, no error");
            Check(Sync(() => Native.Start(engine, onError)).Count == 0, "started");
            // C# bool is a 4-byte BOOL both ways: false must come back false.
            foreach (var value in new[] { true, false, true, false })
            {
                Native.Set_IsAutoShutdownEnabled(engine, value);
                Check(Native.Get_IsAutoShutdownEnabled(engine) == value, "IsAutoShutdownEnabled " + value);
                Native.Set_PlaysHapticsOnly(engine, value);
                Check(Native.Get_PlaysHapticsOnly(engine) == value, "PlaysHapticsOnly " + value);
                Native.Set_IsMutedForAudio(engine, value);
                Check(Native.Get_IsMutedForAudio(engine) == value, "IsMutedForAudio " + value);
                Native.Set_IsMutedForHaptics(engine, value);
                Check(Native.Get_IsMutedForHaptics(engine) == value, "IsMutedForHaptics " + value);
            }
            var t0 = Native.Get_CurrentTime(engine);
            // The plug-in's clock reads 100 s at the library's first use (not the machine's uptime,
            // which a float time argument would round to milliseconds): this is early in the run.
            Check(t0 >= 100 && t0 < 100 + 600, "the engine clock runs, from 100 s: " + t0);
            Check(Until(() => Native.Get_CurrentTime(engine) > t0), "and advances");
            return engine;
        }

        static void OneShots(IntPtr engine)
        {
            var mark = Quiet();
            Check(Sync(() => Native.PlayPatternFromJson(engine, Ahap(Continuous(0, 0.2)), onError)).Count == 0, "JSON played without error");
            Check(OnAfter(mark), "the pad moved for the JSON pattern");
            Check(OffAfter(mark), "and stopped at its end");

            // A file as Apple's samples are written: trailing commas.
            var path = Path.Combine(Work, "one-shot.ahap");
            File.WriteAllText(path, "{ \"Version\": 1.0, \"Pattern\": [ { \"Event\": { \"Time\": 0.0, \"EventType\": \"HapticContinuous\", \"EventDuration\": 0.2, "
                + "\"EventParameters\": [ { \"ParameterID\": \"HapticIntensity\", \"ParameterValue\": 0.8 }, ] } }, ] }");
            mark = Quiet();
            Check(Sync(() => Native.PlayPatternFromUrl(engine, path, onError)).Count == 0, "the file played without error");
            Check(OnAfter(mark), "the pad moved for the file");
            var missing = Sync(() => Native.PlayPatternFromUrl(engine, Path.Combine(Work, "no-such.ahap"), onError));
            Check(missing.SequenceEqual(new[] { Err(engine, -4851) }), "a missing file: fileNotFound, synchronously: " + string.Join(",", missing));

            // Muted for haptics: a one-shot is not felt; unmuted again it is.
            mark = Quiet();
            Native.Set_IsMutedForHaptics(engine, true);
            Native.PlayPatternFromJson(engine, Ahap(Continuous(0, 0.3)), onError);
            Check(!OnAfter(mark, 0.5), "muted for haptics: not felt");
            Native.Set_IsMutedForHaptics(engine, false);
            mark = Rows().Count;
            Native.PlayPatternFromJson(engine, Ahap(Continuous(0, 0.1)), onError);
            Check(OnAfter(mark), "unmuted, felt");
        }

        static void BadInput(IntPtr engine)
        {
            var bogus = new IntPtr(0x1234);
            foreach (var p in new[] { IntPtr.Zero, bogus })
            {
                Check(Sync(() => Native.Start(p, onError)).SequenceEqual(new[] { Err(p, -4816) }), "Start on a bad engine: invalidEngineParameter");
                Check(Sync(() => Native.Stop(p, onError)).SequenceEqual(new[] { Err(p, -4816) }), "Stop on a bad engine");
                Check(Sync(() => Native.PlayPatternFromJson(p, Ahap(Transient(0)), onError)).Count == 1, "PlayPatternFromJson on a bad engine");
                Check(Sync(() => Native.PlayPatternFromUrl(p, "/nonexistent", onError)).Count == 1, "PlayPatternFromUrl on a bad engine");
                Check(Native.MakePlayer(p, Ahap(Transient(0)), onError) == IntPtr.Zero, "no player from a bad engine");
                Check(Native.MakeAdvancedPlayer(p, Ahap(Transient(0)), onFinished, onError) == IntPtr.Zero, "no advanced player from a bad engine");
                Check(Sync(() => Native.NotifyWhenPlayersFinished(p, true, onAllFinished, onError)).Count == 1, "NotifyWhenPlayersFinished on a bad engine");
                Native.Set_IsMutedForHaptics(p, true);
                Check(!Native.Get_IsMutedForHaptics(p) && !Native.Get_IsAutoShutdownEnabled(p) && Native.Get_CurrentTime(p) == 0, "getters of a bad engine: false, 0");
                Native.Destroy(p);
                Check(Sync(() => Native.PlayerStart(p, 0, onError)).SequenceEqual(new[] { Err(p, -4812) }), "Start on a bad player: invalidPatternPlayer");
                Check(Sync(() => Native.AdvSeek(p, 0, onError)).SequenceEqual(new[] { Err(p, -4812) }), "Seek on a bad player");
                Check(!Native.PlayerGetIsMuted(p) && !Native.AdvGetLoopEnabled(p) && Native.AdvGetPlaybackRate(p) == 0 && Native.AdvGetLoopEnd(p) == 0, "getters of a bad player");
                Native.AdvSetLoopEnabled(p, true);
                Native.PlayerSetIsMuted(p, true);
                Check(Native.PlayerDestroy(p) == IntPtr.Zero && Native.AdvDestroy(p) == IntPtr.Zero, "Destroy of a bad player returns null");
                Native.TriggerImpactGenerator(p, 1);
                Native.TriggerSelectionGenerator(p);
                Native.TriggerNotificationGenerator(p, 0);
                Native.PrepareGenerator(p);
                Native.DestroyImpactGenerator(p);
                Native.DestroySelectionGenerator(p);
                Native.DestroyNotificationGenerator(p);
            }
            // Null strings, bad JSON, JSON that is not a pattern.
            Check(Sync(() => Native.PlayPatternFromJson(engine, null, onError)).SequenceEqual(new[] { Err(engine, -4816) }), "null JSON");
            Check(Sync(() => Native.PlayPatternFromUrl(engine, null, onError)).SequenceEqual(new[] { Err(engine, -4816) }), "null path");
            Check(Sync(() => Native.PlayPatternFromJson(engine, "{\"Pattern\": [", onError)).SequenceEqual(new[] { Err(engine, -4813) }), "truncated JSON: invalidPatternData");
            Check(Sync(() => Native.PlayPatternFromJson(engine, "", onError)).Count == 1, "empty JSON");
            IntPtr made = IntPtr.Zero;
            var e = Sync(() => made = Native.MakePlayer(engine, "not json", onError));
            Check(made == IntPtr.Zero && e.SequenceEqual(new[] { Err(engine, -4813) }), "MakePlayer with bad JSON: no player, the error with the engine's pointer: " + string.Join(",", e));
            Check(lastErrorText != null && lastErrorText.Contains("malformed JSON at line 1, column "), "MakePlayer with bad JSON: the error says where it stops parsing: " + lastErrorText);
            e = Sync(() => made = Native.MakePlayer(engine, "[1, 2]", onError));
            Check(made == IntPtr.Zero && e.SequenceEqual(new[] { Err(engine, -4814) }), "MakePlayer with a JSON array: invalidPatternDictionary: " + string.Join(",", e));
            e = Sync(() => made = Native.MakeAdvancedPlayer(engine, "{\"Pattern\": [{\"Event\": {\"EventType\": \"Bogus\", \"Time\": 0}}]}", onFinished, onError));
            Check(made == IntPtr.Zero && e.Count == 1, "MakeAdvancedPlayer with an unknown event type: " + string.Join(",", e));
            Check(Sync(() => made = Native.MakePlayer(engine, null, onError)).Count == 1 && made == IntPtr.Zero, "MakePlayer with null JSON");
            // Null callbacks: nothing is called, nothing crashes.
            Native.Start(IntPtr.Zero, null);
            Native.PlayPatternFromJson(engine, "bad", null);
            // A stale handle: destroyed, then used.
            var player = Native.MakePlayer(engine, Ahap(Transient(0)), onError);
            Check(player != IntPtr.Zero, "a player");
            Native.PlayerDestroy(player);
            Check(Sync(() => Native.PlayerStart(player, 0, onError)).SequenceEqual(new[] { Err(player, -4812) }), "a destroyed player: invalidPatternPlayer");
            Native.PlayerDestroy(player);  // twice: refused, not freed again
            // An engine handle is not a player, nor a player an engine.
            var adv = Native.MakeAdvancedPlayer(engine, Ahap(Transient(0)), onFinished, onError);
            Check(Sync(() => Native.PlayerStart(engine, 0, onError)).SequenceEqual(new[] { Err(engine, -4812) }), "an engine used as a player");
            Check(Sync(() => Native.Start(adv, onError)).SequenceEqual(new[] { Err(adv, -4816) }), "a player used as an engine");
            var plain = Native.MakePlayer(engine, Ahap(Transient(0)), onError);
            Check(Sync(() => Native.AdvPause(plain, 0, onError)).SequenceEqual(new[] { Err(plain, -4812) }), "a plain player used as an advanced one");
            // Bad curves and parameter requests.
            var request = new CHSendParametersRequest { Parameters = IntPtr.Zero, ParametersLength = 3, AtTime = 0 };
            Check(Sync(() => Native.PlayerSendParameters(plain, request, onError)).Count == 1, "parameters: null array with a length");
            request.ParametersLength = -1;
            Check(Sync(() => Native.PlayerSendParameters(plain, request, onError)).Count == 1, "parameters: negative length");
            var curve = new CHHapticParameterCurveRequest { ParameterID = 0, Points = IntPtr.Zero, PointsLength = 2 };
            Check(Sync(() => Native.PlayerScheduleParameterCurve(plain, curve, 0, onError)).Count == 1, "curve: null points with a length");
            Check(Sync(() => Native.PlayerStart(plain, float.NaN, onError)).Count == 1, "a NaN time");
            Native.PlayerDestroy(plain);
            Native.AdvDestroy(adv);
        }

        static IntPtr MakeStarted(IntPtr engine, string ahap)
        {
            var player = Native.MakePlayer(engine, ahap, onError);
            Check(player != IntPtr.Zero, "a player");
            Check(Sync(() => Native.PlayerStart(player, 0, onError)).Count == 0, "started");
            return player;
        }

        static void Players(IntPtr engine)
        {
            // Start and stop: a 5 s event stops when told.
            var mark = Quiet();
            var player = MakeStarted(engine, Ahap(Continuous(0, 5)));
            Check(OnAfter(mark), "the pad moved");
            Check(Sync(() => Native.PlayerStop(player, 0, onError)).Count == 0, "stopped without error");
            Check(OffAfter(mark, 1.5), "and fell still long before the event's end");

            // Mute while playing, unmute.
            mark = Quiet();
            Check(Sync(() => Native.PlayerStart(player, 0, onError)).Count == 0, "started again");
            Check(OnAfter(mark), "moving");
            Native.PlayerSetIsMuted(player, true);
            Check(Native.PlayerGetIsMuted(player), "muted");
            Check(OffAfter(mark, 1.5), "muted: still");
            mark = Rows().Count;
            Native.PlayerSetIsMuted(player, false);
            Check(!Native.PlayerGetIsMuted(player), "unmuted");
            Check(OnAfter(mark, 1.5), "unmuted: moving again");

            // Dynamic parameters: intensity control 0.2 scales the event down.
            var full = Peak(Rows().Skip(mark));
            var parameters = new[] { new CHSendParameter { ParameterID = (int)CHHapticDynamicParameterID.HapticIntensityControl, RelativeTime = 0, Value = 0.2f } };
            var handle = GCHandle.Alloc(parameters, GCHandleType.Pinned);
            var request = new CHSendParametersRequest { Parameters = handle.AddrOfPinnedObject(), ParametersLength = 1, AtTime = 0 };
            mark = Rows().Count;
            Check(Sync(() => Native.PlayerSendParameters(player, request, onError)).Count == 0, "parameters sent");
            handle.Free();
            Check(full > 0 && Until(() => { var r = Rows(); return r.Count > mark && r[r.Count - 1].On && Math.Max(r[r.Count - 1].Strong, r[r.Count - 1].Weak) < full / 2; }, 2),
                "intensity control 0.2 took the pad below half of " + full);
            Native.PlayerStop(player, 0, onError);
            Native.PlayerDestroy(player);

            // A parameter curve: intensity control from 1 down to 0 over 0.3 s, on a 5 s event.
            mark = Quiet();
            player = MakeStarted(engine, Ahap(Continuous(0, 5)));
            Check(OnAfter(mark), "moving for the curve");
            var points = new[] { new MarshallingParameterCurveControlPoint { Time = 0, ParameterValue = 1 }, new MarshallingParameterCurveControlPoint { Time = 0.3f, ParameterValue = 0 } };
            var pin = GCHandle.Alloc(points, GCHandleType.Pinned);
            var curve = new CHHapticParameterCurveRequest { ParameterID = (int)CHHapticDynamicParameterID.HapticIntensityControl, Time = 0, Points = pin.AddrOfPinnedObject(), PointsLength = 2, _pointsHandle = pin };
            Check(Sync(() => Native.PlayerScheduleParameterCurve(player, curve, 0, onError)).Count == 0, "curve scheduled");
            pin.Free();
            Check(OffAfter(mark, 2), "the curve took the pad to still while the event plays on");
            Native.PlayerStop(player, 0, onError);
            Native.PlayerDestroy(player);

            // A start at a later engine time, 0.4 s after one made at once: the trace's clock is the
            // daemon's, so the two onsets are compared with each other.
            mark = Quiet();
            var now = Native.MakePlayer(engine, Ahap(Transient(0)), onError);
            player = Native.MakePlayer(engine, Ahap(Transient(0)), onError);
            var at = Native.Get_CurrentTime(engine) + 0.4;
            Check(Sync(() => Native.PlayerStart(now, 0, onError)).Count == 0, "a start at once");
            Check(Sync(() => Native.PlayerStart(player, (float)at, onError)).Count == 0, "scheduled start");
            Check(Until(() => Onsets(mark).Count >= 2, 3), "both played");
            var onsets = Onsets(mark);
            var apart = onsets.Count >= 2 ? onsets[1] - onsets[0] : -1;
            Check(apart >= 0.3 && apart <= 0.5, "the scheduled one 0.4 s after the one at once: " + F(apart));
            Native.PlayerDestroy(now);
            Native.PlayerDestroy(player);
        }

        static void AdvancedPlayers(IntPtr engine)
        {
            // As Apple's own plug-in test has it (Test_AdvancedPlayer_LoopEnd_DefaultIsPatternLength):
            // an unset loop end reads as the pattern's length.
            var sized = Native.MakeAdvancedPlayer(engine, Ahap(Transient(0), Continuous(0.5, 1)), onFinished, onError);
            Check(Math.Abs(Native.AdvGetLoopEnd(sized) - 1.5) < 1e-6, "an unset loop end is the pattern's length: " + F(Native.AdvGetLoopEnd(sized)));
            Native.AdvDestroy(sized);

            // Loop and rate: a transient at 0, loop end 0.4 s, rate 2: a tap every 0.2 s.
            var mark = Quiet();
            var player = Native.MakeAdvancedPlayer(engine, Ahap(Transient(0)), onFinished, onError);
            Check(player != IntPtr.Zero, "an advanced player");
            Native.AdvSetLoopEnabled(player, true);
            Check(Native.AdvGetLoopEnabled(player), "loop enabled");
            Native.AdvSetLoopEnd(player, 0.4);
            Check(Math.Abs(Native.AdvGetLoopEnd(player) - 0.4) < 1e-9, "loop end 0.4");
            Native.AdvSetPlaybackRate(player, 2);
            Check(Native.AdvGetPlaybackRate(player) == 2, "rate 2");
            Check(Sync(() => Native.AdvStart(player, 0, onError)).Count == 0, "started");
            Check(Until(() => Onsets(mark).Count >= 4, 3), "it loops");
            var o = Onsets(mark);
            var gaps = o.Zip(o.Skip(1), (a, b) => b - a).ToList();
            // On average (a loaded machine delays a tap now and then): 0.2 s, not the 0.4 s of rate 1.
            Check(gaps.Count > 0 && Math.Abs(gaps.Average() - 0.2) < 0.05, "a tap every 0.4 / 2 s: " + string.Join(" ", gaps.Select(F)));

            // Pause: the taps stop (and stay stopped: the pad is quiet after the last one); resume: they go on.
            Check(Sync(() => Native.AdvPause(player, 0, onError)).Count == 0, "paused");
            Check(OffAfter(mark, 1), "still");
            var resumeMark = Quiet();
            Check(!Until(() => Onsets(resumeMark).Count > 0, 0.6), "no tap for 0.6 s (three loop periods) while paused");
            resumeMark = Rows().Count;
            Check(Sync(() => Native.AdvResume(player, 0, onError)).Count == 0, "resumed");
            Check(OnAfter(resumeMark, 2), "taps again after resume");

            // Mute and unmute an advanced player.
            // Marked before the mute (sent without waiting): the zero it writes may land at once.
            var muted = Rows().Count;
            Native.AdvSetIsMuted(player, true);
            Check(Native.AdvGetIsMuted(player) && Native.PlayerGetIsMuted(player), "muted (seen by both interfaces)");
            Check(OffAfter(muted, 1.5), "muted: still");
            var silent = Quiet();
            Check(!Until(() => Onsets(silent).Count > 0, 0.6), "no tap for 0.6 s (three loop periods) while muted");
            Native.AdvSetIsMuted(player, false);
            Check(!Native.AdvGetIsMuted(player), "unmuted");
            Check(OnAfter(silent, 2), "taps again unmuted");

            // Dynamic parameters on an advanced player: sent without error.
            var parameters = new[] { new CHSendParameter { ParameterID = (int)CHHapticDynamicParameterID.HapticSharpnessControl, RelativeTime = 0, Value = 0.5f } };
            var handle = GCHandle.Alloc(parameters, GCHandleType.Pinned);
            var request = new CHSendParametersRequest { Parameters = handle.AddrOfPinnedObject(), ParametersLength = 1, AtTime = 0 };
            Check(Sync(() => Native.AdvSendParameters(player, request, onError)).Count == 0, "parameters sent");
            handle.Free();

            finished.Clear();
            Check(Sync(() => Native.AdvStop(player, 0, onError)).Count == 0, "stopped");
            Check(Until(() => finished.Has(player.ToInt64().ToString())), "stopping called its completion callback with its pointer");
            Native.AdvDestroy(player);

            // Seek: nothing until 2 s, then an event; seeking to 1.9 s plays it at once.
            mark = Quiet();
            finished.Clear();  // before the start: its end may come while the seek is checked
            player = Native.MakeAdvancedPlayer(engine, Ahap(Transient(0, 0.6), Continuous(2, 0.3)), onFinished, onError);
            Check(Sync(() => Native.AdvStart(player, 0, onError)).Count == 0, "started");
            Check(OnAfter(mark), "the transient at 0");
            var startT = Onsets(mark)[0];
            Check(Sync(() => Native.AdvSeek(player, 1.9f, onError)).Count == 0, "seeked");
            Check(Until(() => Onsets(mark).Count >= 2, 3), "the event after the seek");
            o = Onsets(mark);
            Check(o.Count >= 2 && o[1] - startT < 1.2, "played well before 2 s after the start: " + (o.Count >= 2 ? F(o[1] - startT) : "-"));

            // Completion at the pattern's end, and a completion handler registered later.
            Check(Until(() => finished.Has(player.ToInt64().ToString()), 3), "the end of the pattern called the completion callback");
            Check(Sync(() => Native.AdvRegisterCompletionHandler(player, onFinishedAgain, onError)).Count == 0, "a new completion handler");
            finished.Clear();
            Native.AdvStart(player, 0, onError);
            Native.AdvSeek(player, 2.2f, onError);
            Check(Until(() => finished.Has("again:" + player.ToInt64()), 3), "the new handler ran: " + string.Join(",", finished.All));
            Check(!finished.Has(player.ToInt64().ToString()), "and replaced the first");
            // The plug-in's base class destroys advanced players through the plain player's Destroy.
            Check(Native.PlayerDestroy(player) == IntPtr.Zero, "destroyed");
            Check(Sync(() => Native.AdvStart(player, 0, onError)).Count == 1, "and gone");
        }

        static void NotifyFinished(IntPtr engine)
        {
            // Nothing plays: at once. Leave the engine running.
            allFinished.Clear();
            stopped.Clear();
            Check(Sync(() => Native.NotifyWhenPlayersFinished(engine, true, onAllFinished, onError)).Count == 0, "registered");
            Check(Until(() => allFinished.Has(engine.ToInt64().ToString())), "called with the engine's pointer");
            // A player plays 0.3 s; then the callback, and the engine stops (leaveEngineRunning false).
            allFinished.Clear();
            var player = MakeStarted(engine, Ahap(Continuous(0, 0.3)));
            Native.NotifyWhenPlayersFinished(engine, false, onAllFinished, onError);
            Check(Until(() => allFinished.Count == 1, 3), "called when the player finished");
            Check(Until(() => stopped.Has(engine.ToInt64() + ":" + (int)CHHapticEngineStoppedReason.NotifyWhenFinished)), "and the engine stopped: NotifyWhenFinished (4): " + string.Join(",", stopped.All));
            Check(Sync(() => Native.PlayerStart(player, 0, onError)).SequenceEqual(new[] { Err(player, -4805) }), "a stopped engine plays nothing: engineNotRunning");
            Check(Sync(() => Native.Start(engine, onError)).Count == 0, "started again");
            Native.PlayerDestroy(player);
        }

        static void Capabilities()
        {
            int intensity = (int)CHHapticEventParameterID.HapticIntensity, transient = (int)CHHapticEventType.HapticTransient;
            Check(Native.MinValueForEventParameter(intensity, transient) == 0 && Native.MaxValueForEventParameter(intensity, transient) == 1, "event intensity 0…1");
            var d = Native.DefaultValueForEventParameter((int)CHHapticEventParameterID.Sustained, (int)CHHapticEventType.HapticContinuous);
            Check(d == 1, "Sustained defaults to 1: " + d);
            Check(Native.MinValueForDynamicParameter((int)CHHapticDynamicParameterID.HapticSharpnessControl) == -1
                && Native.MaxValueForDynamicParameter((int)CHHapticDynamicParameterID.HapticSharpnessControl) == 1
                && Native.DefaultValueForDynamicParameter((int)CHHapticDynamicParameterID.HapticSharpnessControl) == 0, "sharpness control −1…1, 0");
            Check(Native.DefaultValueForDynamicParameter((int)CHHapticDynamicParameterID.HapticIntensityControl) == 1, "intensity control defaults to 1");
            Check(Native.MinValueForEventParameter((int)CHHapticEventParameterID.AudioPan, (int)CHHapticEventType.AudioContinuous) == -1, "audio pan from −1");
            Check(Native.MaxValueForDynamicParameter(999) == 1, "an unknown id: as intensity, as Apple's");
        }

        static void Feedback()
        {
            // Heavy (C# 0) must be the heavy pattern, Light (C# 1) the light one.
            var peaks = new Dictionary<UIImpactType, int>();
            foreach (var style in new[] { UIImpactType.Heavy, UIImpactType.Light })
            {
                var g = Native.CreateImpactGenerator((int)style);
                Check(g != IntPtr.Zero, "an impact generator");
                Native.PrepareGenerator(g);
                var mark = Quiet();
                Native.TriggerImpactGenerator(g, 1);
                Check(OnAfter(mark), style + " impact felt");
                Quiet();
                peaks[style] = Peak(Rows().Skip(mark));
                Native.DestroyImpactGenerator(g);
                Native.TriggerImpactGenerator(g, 1);  // destroyed: nothing, no crash
            }
            Check(peaks[UIImpactType.Heavy] > peaks[UIImpactType.Light], "Heavy (C# 0) is heavier than Light (C# 1): " + peaks[UIImpactType.Heavy] + " vs " + peaks[UIImpactType.Light]);

            var s = Native.CreateSelectionGenerator();
            var m = Quiet();
            Native.TriggerSelectionGenerator(s);
            Check(OnAfter(m), "selection felt");
            Native.DestroySelectionGenerator(s);

            var n = Native.CreateNotificationGenerator();
            foreach (var style in new[] { UINotificationStyle.Error, UINotificationStyle.Success, UINotificationStyle.Warning })
            {
                m = Quiet();
                Native.TriggerNotificationGenerator(n, (int)style);
                Check(OnAfter(m), style + " notification felt");
            }
            // Error (C# 0) is hapticd's notification-error, low taps over a rumble (the strong motor),
            // Success (C# 1) its notification-success, bright taps (the weak motor).
            var share = new Dictionary<UINotificationStyle, double>();
            foreach (var style in new[] { UINotificationStyle.Error, UINotificationStyle.Success })
            {
                m = Quiet();
                Native.TriggerNotificationGenerator(n, (int)style);
                Check(OnAfter(m), style + " felt");
                Quiet();
                var rows = Rows().Skip(m).ToList();
                double strong = rows.Sum(r => (double)r.Strong), weak = rows.Sum(r => (double)r.Weak);
                share[style] = strong / Math.Max(1, strong + weak);
            }
            Check(share[UINotificationStyle.Error] > share[UINotificationStyle.Success],
                "Error (C# 0) is the rumbling one, Success (C# 1) the bright one: strong-motor share " + F(share[UINotificationStyle.Error]) + " vs " + F(share[UINotificationStyle.Success]));
            Native.DestroyNotificationGenerator(n);
            Native.DestroyNotificationGenerator(n);  // twice: refused
        }

        static void Callbacks(IntPtr engine)
        {
            var key = engine.ToInt64().ToString();
            // An administrator stops the pad's engine: stopped, SystemError (the C#'s 1).
            stopped.Clear();
            finished.Clear();
            var adv = Native.MakeAdvancedPlayer(engine, Ahap(Continuous(0, 10)), onFinished, onError);
            Native.AdvStart(adv, 0, onError);
            Hapticctl("engine stop");
            Check(Until(() => stopped.Has(key + ":1")), "engine stop: stopped with SystemError (1): " + string.Join(",", stopped.All));
            Check(Until(() => finished.Has(adv.ToInt64().ToString()), 3), "engine stop: the playing advanced player's completion callback: " + string.Join(",", finished.All));
            Check(Sync(() => Native.PlayPatternFromJson(engine, Ahap(Transient(0)), onError)).Count == 1, "a stopped pad engine refuses to play");
            Hapticctl("engine start");
            Check(Sync(() => Native.Start(engine, onError)).Count == 0, "started again");

            // An administrator resets it: reset; players made before are invalid.
            Native.AdvDestroy(adv);
            resets.Clear();
            finished.Clear();
            var player = MakeStarted(engine, Ahap(Continuous(0, 10)));
            adv = Native.MakeAdvancedPlayer(engine, Ahap(Continuous(0, 10)), onFinished, onError);
            Native.AdvStart(adv, 0, onError);
            Hapticctl("engine reset");
            Check(Until(() => resets.Has(key)), "engine reset: reset callback with the engine's pointer");
            Check(Until(() => finished.Has(adv.ToInt64().ToString()), 3), "engine reset: the playing advanced player's completion callback: " + string.Join(",", finished.All));
            Check(Sync(() => Native.PlayerStart(player, 0, onError)).SequenceEqual(new[] { Err(player, -4812) }), "a player from before the reset: invalidPatternPlayer");
            Native.PlayerDestroy(player);
            Native.AdvDestroy(adv);
            Check(Sync(() => Native.Start(engine, onError)).Count == 0, "started after the reset");

            // The pad is unplugged: stopped, GameControllerDisconnect (6); plugged back: reset.
            stopped.Clear();
            resets.Clear();
            finished.Clear();
            adv = Native.MakeAdvancedPlayer(engine, Ahap(Continuous(0, 10)), onFinished, onError);
            Native.AdvStart(adv, 0, onError);
            Simulate("unplug 0");
            Check(Until(() => stopped.Has(key + ":6")), "pad removal: stopped with GameControllerDisconnect (6): " + string.Join(",", stopped.All));
            Check(Until(() => finished.Has(adv.ToInt64().ToString()), 3), "pad removal: the advanced player's completion callback: " + string.Join(",", finished.All));
            Check(!Native.HardwareSupportsHaptics(), "no pad: no haptics");
            Check(Sync(() => Native.Start(engine, onError)).Count == 1, "no pad: the engine does not start");
            Simulate("plug 0");
            Check(Until(() => resets.Has(key)), "pad back: reset callback");
            Check(Until(() => Native.HardwareSupportsHaptics()), "pad back: haptics");
            Check(Sync(() => Native.Start(engine, onError)).Count == 0, "pad back: started");
            Native.AdvDestroy(adv);

            // hapticd goes away: stopped, SystemError; calls fail through the error callback; when it
            // is back at its socket, reset.
            stopped.Clear();
            resets.Clear();
            finished.Clear();
            adv = Native.MakeAdvancedPlayer(engine, Ahap(Continuous(0, 10)), onFinished, onError);
            Native.AdvStart(adv, 0, onError);
            StopDaemon();
            Check(Until(() => stopped.Has(key + ":1")), "daemon gone: stopped with SystemError (1): " + string.Join(",", stopped.All));
            Check(Until(() => finished.Has(adv.ToInt64().ToString()), 3), "daemon gone: the advanced player's completion callback: " + string.Join(",", finished.All));
            var e = Sync(() => Native.Start(engine, onError));
            Check(e.Count == 1, "daemon gone: Start fails through the error callback: " + string.Join(",", e));
            Check(Sync(() => Native.PlayPatternFromJson(engine, Ahap(Transient(0)), onError)).Count == 1, "daemon gone: a one-shot fails through the error callback");
            Check(Sync(() => Native.Stop(engine, onError)).Count == 0, "daemon gone: Stop still stops");
            Check(!Native.HardwareSupportsHaptics(), "daemon gone: no haptics");
            var g = Native.CreateSelectionGenerator();
            Native.TriggerSelectionGenerator(g);
            Native.DestroySelectionGenerator(g);
            createErrors.Clear();
            Check(Native.Create(onCreateError, onStopped, onReset) == IntPtr.Zero && createErrors.Count == 1, "daemon gone: no new engine");
            Native.AdvDestroy(adv);
            StartDaemon();
            Check(Until(() => resets.Has(key), 6), "daemon back: reset callback");
            Check(Sync(() => Native.Start(engine, onError)).Count == 0, "daemon back: started");
            var mark = Quiet();
            Native.PlayPatternFromJson(engine, Ahap(Continuous(0, 0.1)), onError);
            Check(OnAfter(mark), "daemon back: felt");
        }

        static void StopAndDestroy(IntPtr engine)
        {
            var player = MakeStarted(engine, Ahap(Continuous(0, 5)));
            var mark = Rows().Count;
            Check(OnAfter(0), "playing");
            stopped.Clear();
            Check(Sync(() => Native.Stop(engine, onError)).Count == 0, "stopped without error");
            Check(OffAfter(mark, 1.5), "the engine's stop stopped its player");
            Check(Sync(() => Native.PlayerStart(player, 0, onError)).SequenceEqual(new[] { Err(player, -4805) }), "engineNotRunning after Stop");
            Check(stopped.Count == 0, "an explicit stop calls no stopped callback");
            Native.PlayerDestroy(player);
            Native.Destroy(engine);
            Check(Sync(() => Native.Start(engine, onError)).SequenceEqual(new[] { Err(engine, -4816) }), "a destroyed engine is refused");
            Native.Destroy(engine);  // twice: refused
        }
    }
}
