// The unload scenario (ILMAP_TEST_UNLOADS=n cycles): each cycle loads a
// second copy of this program's own assembly into a collectible
// AssemblyLoadContext, calls its Plugin methods (which the shim selects and
// rejits in that copy like in any module), and unloads the context: drops
// every reference and collects until a WeakReference to the context dies
// (bounded). The runtime then unloads the copy's module, and the shim must
// drop everything it held for it (ModuleUnloadStarted). Output: one line
// per cycle on stdout (the same with and without the shim), the copy's
// probe hits on stderr (they show that its instrumented code ran).
using System;
using System.Globalization;
using System.Reflection;
using System.Runtime.CompilerServices;
using System.Runtime.Loader;
using System.Text;

namespace IlmapShimTest
{
    /// <summary>Called only in the collectible copies.</summary>
    public static class Plugin
    {
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Work(int cycle)
        {
            int s = 0;
            for (int i = 0; i < 10 + cycle; i++)
            {
                if (i % 3 == 0)
                    s += i * (cycle + 1);
                else
                    s -= i;
            }
            return s;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static string Describe(int cycle)
        {
            // Work is called often enough to tier up when tiering is kept
            // (collectible code is not rejitted: its tiers are the original
            // code's bodies).
            int acc = 0;
            for (int k = 0; k < 50; k++)
                acc += Work(cycle + k % 3);
            var sb = new StringBuilder();
            sb.Append("work ").Append(acc.ToString(CultureInfo.InvariantCulture));
            try
            {
                if (cycle % 2 == 1)
                    throw new InvalidOperationException("odd");
                sb.Append(" even");
            }
            catch (InvalidOperationException e)
            {
                sb.Append(' ').Append(e.Message);
            }
            return sb.ToString();
        }
    }

    public static class Unloads
    {
        public static int Cycles()
        {
            string v = Environment.GetEnvironmentVariable("ILMAP_TEST_UNLOADS");
            return int.TryParse(v, NumberStyles.Integer, CultureInfo.InvariantCulture, out int n) && n > 0 ? n : 0;
        }

        public static void Run(StringBuilder output)
        {
            int cycles = Cycles();
            for (int cycle = 0; cycle < cycles; cycle++)
            {
                WeakReference alive = LoadCallUnload(cycle, output, out long hits);
                int collections = 0;
                while (alive.IsAlive && collections < 100)
                {
                    GC.Collect();
                    GC.WaitForPendingFinalizers();
                    collections++;
                }
                output.Append("unload cycle ").Append(cycle).Append(": ")
                      .Append(alive.IsAlive ? "still alive" : "unloaded").Append('\n');
                Console.Error.WriteLine("plugin probe hits " + cycle.ToString(CultureInfo.InvariantCulture) +
                                        ": " + hits.ToString(CultureInfo.InvariantCulture));
            }
            // The module's own unload comes after the context's death;
            // give the runtime a few more collections to finish it.
            for (int i = 0; i < 3 && cycles > 0; i++)
            {
                GC.Collect();
                GC.WaitForPendingFinalizers();
            }
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static WeakReference LoadCallUnload(int cycle, StringBuilder output, out long hits)
        {
            var context = new AssemblyLoadContext("plugin" + cycle.ToString(CultureInfo.InvariantCulture),
                                                  isCollectible: true);
            Assembly copy = context.LoadFromAssemblyPath(typeof(Unloads).Assembly.Location);
            Type plugin = copy.GetType("IlmapShimTest.Plugin", true);
            MethodInfo describe = plugin.GetMethod("Describe");
            for (int call = 0; call < 3; call++)
            {
                string line = (string)describe.Invoke(null, new object[] { cycle + call });
                output.Append("plugin ").Append(cycle).Append('.').Append(call).Append(' ')
                      .Append(line).Append('\n');
            }
            hits = (long)copy.GetType("IlmapShimTest.Probe", true).GetField("Count").GetValue(null);
            context.Unload();
            return new WeakReference(context);
        }
    }
}
