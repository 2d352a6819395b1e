// What a test program asks the libilmap shim it runs under, so that it
// waits for the shim's work instead of guessing how long that work takes
// (doc/shim.md#progress). The shim exports two plain C functions; the
// program finds them in the profiler library the runtime loaded (the same
// path, so the same module). Without the shim every query answers
// "nothing to wait for", and the program's output never depends on them.
// Compiled into each test program (clr_common.py copies this folder).
using System;
using System.Runtime.InteropServices;

namespace IlmapTesting
{
    public static class ShimProgress
    {
        /// <summary>How long a program waits for the shim before it gives
        /// up with a message and exit code 4: far above what a busy machine
        /// needs (a ReJIT request takes milliseconds, a tier-up seconds).</summary>
        public const int TimeoutMs = 300000;

        [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
        private delegate int WaitReJits(uint timeoutMs);

        [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
        private delegate int MostBodiesOf([MarshalAs(UnmanagedType.LPUTF8Str)] string method);

        private static readonly WaitReJits Wait = Find<WaitReJits>("ilmap_shim_wait_rejits");
        private static readonly MostBodiesOf Bodies = Find<MostBodiesOf>("ilmap_shim_most_bodies");

        /// <summary>Whether the program runs under the shim.</summary>
        public static bool Present => Wait != null;

        private static T Find<T>(string name) where T : Delegate
        {
            if (Environment.GetEnvironmentVariable("CORECLR_ENABLE_PROFILING") != "1")
                return null;
            foreach (var v in new[] { "CORECLR_PROFILER_PATH", "CORECLR_PROFILER_PATH_64",
                                      "CORECLR_PROFILER_PATH_32", "CORECLR_PROFILER_PATH_ARM64" })
            {
                string path = Environment.GetEnvironmentVariable(v);
                if (string.IsNullOrEmpty(path) || !NativeLibrary.TryLoad(path, out IntPtr lib))
                    continue;
                if (NativeLibrary.TryGetExport(lib, name, out IntPtr f))
                    return Marshal.GetDelegateForFunctionPointer<T>(f);
            }
            return null;
        }

        private static void GiveUp(string what)
        {
            Console.Error.WriteLine("[test program] " + what + " within " + (TimeoutMs / 1000) +
                                    " s: giving up");
            Console.Error.Flush();
            Environment.Exit(4);
        }

        /// <summary>Returns once every ReJIT request the shim has queued
        /// so far has been made, so that the next call of each requested
        /// method compiles its new version. No shim: returns at once.</summary>
        public static void WaitForReJits()
        {
            if (Wait != null && Wait((uint)TimeoutMs) == 0)
                GiveUp("the shim's ReJIT requests were not all made");
        }

        /// <summary>Runs step (which must not change the program's
        /// output) until the shim has read at least `least` native bodies
        /// for one ReJIT version of `method` ("Ns.Type::Method"). No shim,
        /// or a method the shim did not select: returns at once.</summary>
        public static void RunUntilBodies(string method, int least, Action step)
        {
            if (Bodies == null || Bodies(method) < 0)
                return;
            var clock = System.Diagnostics.Stopwatch.StartNew();
            while (Bodies(method) < least)
            {
                if (clock.ElapsedMilliseconds > TimeoutMs)
                    GiveUp(method + " did not get " + least + " native bodies");
                step();
            }
        }
    }
}
