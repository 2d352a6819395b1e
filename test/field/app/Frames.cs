// Frames for the shim's checks c and c_source (doc/shim.md#frames): where
// third-party and framework code calls back into the program (a JSON
// converter, a comparer, a regex evaluator, a LINQ key selector), the
// program's own frame and the frames above it, which belong to
// Newtonsoft.Json and the framework, one line each in the file
// ILMAP_SHIM_FRAMES names. Each line names the method's module: with
// selectors over several modules most tokens exist in more than one. Only
// when ILMAP_SHIM_FRAMES is set; never on stdout.
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.Runtime.CompilerServices;

namespace IlmapField
{
    public static class Frames
    {
        /// <summary>Frames above the program's own, per recording.</summary>
        private const int Above = 4;

        /// <summary>Recordings per call site: the same stacks repeat.</summary>
        private const int PerSite = 12;

        private static readonly string Path = System.Environment.GetEnvironmentVariable("ILMAP_SHIM_FRAMES");
        private static readonly List<string> Lines = new List<string>();
        private static readonly Dictionary<string, int> Sites = new Dictionary<string, int>();

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void Here([CallerLineNumber] int line = 0, [CallerFilePath] string file = "")
        {
            if (string.IsNullOrEmpty(Path))
                return;
            lock (Lines)
            {
                string site = file + ":" + line.ToString(CultureInfo.InvariantCulture);
                Sites.TryGetValue(site, out int seen);
                if (seen >= PerSite)
                    return;
                Sites[site] = seen + 1;
                var trace = new StackTrace(1, true);
                for (int i = 0; i < trace.FrameCount && i <= Above; i++)
                {
                    var frame = trace.GetFrame(i);
                    var method = frame?.GetMethod();
                    if (method == null)
                        continue;
                    // The call site's line belongs to the first frame only.
                    Lines.Add(string.Format(CultureInfo.InvariantCulture,
                        "{0:x8} {1} {2} {3}::{4} {5} {6} {7} {8}\t{9}\t{10}",
                        method.MetadataToken, frame.GetNativeOffset(), frame.GetILOffset(),
                        method.DeclaringType == null ? "?" : method.DeclaringType.FullName, method.Name,
                        i == 0 ? line : 0, frame.GetFileLineNumber(), frame.GetFileColumnNumber(),
                        frame.GetFileName() ?? "", i == 0 ? file : "", method.Module.Name));
                }
            }
        }

        public static void Write()
        {
            if (!string.IsNullOrEmpty(Path))
                System.IO.File.WriteAllLines(Path, Lines);
        }
    }
}
