// The program the clr suite runs twice: plainly and under libilmap's
// profiler shim, which rejits the methods of Shapes, Box`1 and Twins with
// probes (calls to Probe.Hit) and checks the runtime's IL maps. Its stdout
// must be the same both times; it must therefore not depend on timing,
// hashing or the probe count (which goes to stderr).
using System;
using System.Collections.Generic;
using System.Globalization;
using System.Runtime.CompilerServices;
using System.Text;

namespace IlmapShimTest
{
    public static class Program
    {
        public static int Main()
        {
            var sb = new StringBuilder();
            for (int round = 0; round < 3; round++)
            {
                sb.Append("round ").Append(round).Append('\n');
                sb.Append("loops ").Append(Shapes.Loops(10 + round)).Append('\n');
                sb.Append("nested ").Append(Shapes.NestedLoops(7 + round)).Append('\n');
                for (int x = -2; x < 12; x++)
                    sb.Append(Shapes.Classify(x + round)).Append(' ');
                sb.Append('\n');
                foreach (var word in new[] { "alpha", "beta", "gamma", "delta", "omega", "" })
                    sb.Append(Shapes.Word(word)).Append(' ');
                sb.Append('\n');
                for (int x = 0; x < 8; x++)
                    sb.Append(Shapes.Guarded(x + round)).Append(' ');
                sb.Append('\n');
                sb.Append("filter ").Append(Shapes.Filtered(round)).Append(' ')
                  .Append(Shapes.Filtered(round + 5)).Append('\n');
                sb.Append("nested-try ").Append(Shapes.NestedTry(round)).Append('\n');
                sb.Append("max ").Append(Shapes.Max(new[] { 3, 9, round, 4 })).Append(' ')
                  .Append(Shapes.Max(new[] { "pear", "apple", "zebra" })).Append('\n');
                sb.Append("box ").Append(new Box<int>(round).Describe()).Append(' ')
                  .Append(new Box<string>("s" + round).Describe()).Append('\n');
                sb.Append("twins ").Append(Twins.TwinA(round + 3)).Append(' ')
                  .Append(Twins.TwinB(round + 3)).Append(' ')
                  .Append(Twins.TwinC("k" + round, round + 2)).Append(' ')
                  .Append(Twins.TwinD("k" + round, round + 2)).Append('\n');
                sb.Append("mixed ").Append(Shapes.Mixed(round * 4 + 1)).Append('\n');
                sb.Append("late ").Append(Late.Compute(round + 6)).Append('\n');
                sb.Append("plain ").Append(Plain.Count(round + 5)).Append(' ')
                  .Append(Plain.Pick(round)).Append('\n');
                // Late.Compute's ReJIT, requested after its first
                // compilation, is made before the next round calls it
                // (without the shim: returns at once).
                IlmapTesting.ShimProgress.WaitForReJits();
            }
            sb.Append("hot ").Append(Hot.Run()).Append('\n');
            sb.Append("loop ").Append(Hot.Loop(4000000)).Append('\n');
            Unloads.Run(sb);
            Console.Write(sb.ToString());
            Frames.Write();
            Console.Error.WriteLine("probe hits: " + Probe.Count.ToString(CultureInfo.InvariantCulture));
            Console.Error.WriteLine("shim progress queries: " +
                                    (IlmapTesting.ShimProgress.Present ? "found" : "absent"));
            return 0;
        }
    }

    /// <summary>
    /// Never instrumented: the shim only records their native bodies
    /// (ILMAP_SHIM_OBSERVE), so that their frames' source lines can be
    /// checked against the runtime's own (check c_source).
    /// </summary>
    public static class Plain
    {
        public static int Count(int n)
        {
            int total = 0;
            for (int i = 0; i < n; i++)
            {
                total += i;
                if (i == 2)
                    Frames.Record();
            }
            Frames.Record();
            return total;
        }

        public static string Pick(int round)
        {
            string text;
            switch (round)
            {
                case 0: text = "zero"; Frames.Record(); break;
                case 1:
                    text = "one";
                    Frames.Record();
                    break;
                default: text = "many"; break;
            }
            try
            {
                if (round > 1)
                    throw new InvalidOperationException(text);
            }
            catch (InvalidOperationException)
            {
                Frames.Record();
            }
            return text;
        }
    }

    /// <summary>The shim's probe (ILMAP_SHIM_PROBE): a static void() method.</summary>
    public static class Probe
    {
        public static long Count;

        public static void Hit()
        {
            Count++;
        }
    }

    /// <summary>
    /// Records the runtime's own native->IL answer for the calling frame
    /// (StackFrame's native offset and IL offset) so that the shim can
    /// compare it with libilmap's (check c). Written to ILMAP_SHIM_FRAMES.
    /// </summary>
    public static class Frames
    {
        private static readonly List<string> Lines = new List<string>();

        /// <summary>
        /// One line per call: token, native offset, IL offset, method (as
        /// check c reads them), then the source: the call site's line as
        /// the compiler saw it ([CallerLineNumber], independent of the
        /// runtime's stack traces), StackFrame's line and column (0 when it
        /// has none), and, last because they may hold spaces, the file
        /// names: StackFrame's, then [CallerFilePath], tab-separated; then,
        /// tab-separated, the method's module's file name (doc/shim.md#frames).
        /// </summary>
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void Record([CallerLineNumber] int line = 0,
                                  [CallerFilePath] string file = "")
        {
            var frame = new System.Diagnostics.StackFrame(1, false);
            var method = frame.GetMethod();
            if (method == null)
                return;
            var source = new System.Diagnostics.StackFrame(1, true);
            Lines.Add(string.Format(CultureInfo.InvariantCulture,
                "{0:x8} {1} {2} {3}::{4} {5} {6} {7} {8}\t{9}\t{10}",
                method.MetadataToken, frame.GetNativeOffset(), frame.GetILOffset(),
                method.DeclaringType == null ? "?" : method.DeclaringType.FullName, method.Name,
                line, source.GetFileLineNumber(), source.GetFileColumnNumber(),
                source.GetFileName() ?? "", file, method.Module.Name));
        }

        public static void Write()
        {
            string path = Environment.GetEnvironmentVariable("ILMAP_SHIM_FRAMES");
            if (!string.IsNullOrEmpty(path))
                System.IO.File.WriteAllLines(path, Lines);
        }
    }

    public static class Shapes
    {
        public static long Loops(int n)
        {
            long sum = 0;
            for (int i = 0; i < n; i++)
            {
                sum += i * i;
                if (i % 4 == 0)
                    Frames.Record();
            }
            int j = n;
            while (j > 0)
            {
                sum ^= j;
                j -= 3;
            }
            do
            {
                sum += j;
                j++;
            } while (j < 2);
            Frames.Record();
            return sum;
        }

        public static int NestedLoops(int n)
        {
            int count = 0;
            for (int i = 0; i < n; i++)
            {
                for (int k = 0; k < n; k++)
                {
                    if (k == i)
                        continue;
                    if (k > i + 3)
                        break;
                    count += i ^ k;
                }
                if (i == n - 1)
                    Frames.Record();
            }
            return count;
        }

        public static string Classify(int x)
        {
            switch (x)
            {
                case 0: return "zero";
                case 1: return "one";
                case 2: Frames.Record(); return "two";
                case 3: return "three";
                case 4:
                case 5: return "few";
                case 7: return "seven";
                case 8: return "eight";
                default:
                    return x < 0 ? "neg" : "many";
            }
        }

        public static int Word(string s)
        {
            switch (s)
            {
                case "alpha": return 1;
                case "beta": Frames.Record(); return 2;
                case "gamma": return 3;
                case "delta": return 4;
                case "epsilon": return 5;
                case "zeta": return 6;
                case "eta": return 7;
                default: return s.Length;
            }
        }

        public static int Guarded(int x)
        {
            int result = x;
            try
            {
                Frames.Record();
                if (x % 3 == 0)
                    throw new InvalidOperationException("three");
                result += 10;
                if (x % 5 == 0)
                    throw new ArgumentException("five");
            }
            catch (InvalidOperationException)
            {
                Frames.Record();
                result += 100;
            }
            catch (ArgumentException e)
            {
                result += e.Message.Length;
            }
            finally
            {
                Frames.Record();
                result *= 2;
            }
            return result;
        }

        public static int Filtered(int x)
        {
            try
            {
                if (x > 3)
                    throw new ArgumentOutOfRangeException("x", "big");
                return x;
            }
            catch (ArgumentException e) when (e.ParamName == "x" && x > 4)
            {
                Frames.Record();
                return -x;
            }
            catch (ArgumentException)
            {
                return 1000;
            }
        }

        public static int NestedTry(int x)
        {
            int acc = 0;
            try
            {
                for (int i = 0; i < 3; i++)
                {
                    try
                    {
                        if (i == x)
                            throw new InvalidOperationException();
                        acc += i;
                    }
                    finally
                    {
                        acc += 10;
                        Frames.Record();
                    }
                }
            }
            catch (InvalidOperationException)
            {
                acc = -acc;
            }
            return acc;
        }

        public static T Max<T>(T[] items) where T : IComparable<T>
        {
            T best = items[0];
            for (int i = 1; i < items.Length; i++)
            {
                if (items[i].CompareTo(best) > 0)
                    best = items[i];
            }
            return best;
        }

        public static int Mixed(int n)
        {
            int total = 0;
            for (int i = 0; i < n; i++)
            {
                switch (i % 4)
                {
                    case 0: total += 1; break;
                    case 1: total += Guarded(i); break;
                    case 2:
                        try { total += 100 / (i - 2); }
                        catch (DivideByZeroException) { total -= 7; Frames.Record(); }
                        break;
                    default: total ^= i; break;
                }
            }
            return total;
        }
    }

    public sealed class Box<T>
    {
        private readonly T value;

        public Box(T value)
        {
            this.value = value;
        }

        public string Describe()
        {
            string text = value == null ? "null" : value.ToString();
            if (text.Length > 2)
                return "long:" + text;
            Frames.Record();
            return "short:" + text;
        }
    }

    /// <summary>
    /// Rejitted only after its first JIT compilation (ILMAP_SHIM_LATE), so
    /// that it has an original native version next to the ReJIT one. No
    /// Frames.Record here: its first call runs the original code.
    /// </summary>
    public static class Late
    {
        public static int Compute(int n)
        {
            int acc = 1;
            for (int i = 1; i <= n; i++)
            {
                if ((i & 1) == 0)
                    acc += i * 3;
                else
                    acc -= i;
                switch (acc & 3)
                {
                    case 0: acc += 7; break;
                    case 1: acc ^= 2; break;
                    default: break;
                }
            }
            return acc;
        }
    }

    /// <summary>
    /// Called often, with pauses, so that with tiered compilation kept
    /// (ILMAP_SHIM_KEEP_TIERING=1) the runtime promotes Step's ReJIT
    /// version past its first tier: one ReJIT version, several native
    /// bodies. No loop in Step (no on-stack replacement); the result does
    /// not depend on timing.
    /// </summary>
    public static class Hot
    {
        public static int Step(int x)
        {
            if (x % 97 == 0)
                Frames.Record();
            if ((x & 3) == 0)
                return x * 3 + 1;
            return x ^ 5;
        }

        public static long Run()
        {
            long sum = 0;
            for (int round = 0; round < 8; round++)
            {
                for (int i = 0; i < 200; i++)
                    sum += Step(i + round);
                System.Threading.Thread.Sleep(150);
            }
            // With tiering kept, the tier-up runs in the background: keep
            // calling until the shim has read a second body of Step's
            // ReJIT version, however busy the machine (the sum printed is
            // the 8 rounds' above). Without tiering, the shim or Step
            // selected, this returns at once.
            if (Environment.GetEnvironmentVariable("ILMAP_SHIM_KEEP_TIERING") == "1")
                IlmapTesting.ShimProgress.RunUntilBodies("IlmapShimTest.Hot::Step", 2, () =>
                {
                    for (int i = 1; i < 97; i++) // no multiple of 97: no frame recorded
                        Step(i);
                    System.Threading.Thread.Sleep(20);
                });
            return sum;
        }

        /// <summary>One call, a long loop: tier-0 code that on-stack
        /// replacement can move into an optimized body mid-loop.</summary>
        public static long Loop(int n)
        {
            long sum = 0;
            for (int i = 0; i < n; i++)
            {
                sum += (i % 7) * 3 - (i & 5);
                if (i % (n / 4) == 0)
                    Frames.Record();
            }
            return sum;
        }
    }

    /// <summary>Two methods with identical IL: the shim rejits both with
    /// the same probes and gives only TwinA the map (check b).</summary>
    public static class Twins
    {
        public static int TwinA(int n)
        {
            int acc = 0;
            for (int i = 0; i < n; i++)
            {
                switch (i % 3)
                {
                    case 0: acc += i; break;
                    case 1: acc -= 2 * i; break;
                    default: acc ^= 5; break;
                }
                try
                {
                    if (acc < -10)
                        throw new InvalidOperationException();
                }
                catch (InvalidOperationException)
                {
                    acc = -acc;
                }
            }
            return acc;
        }

        public static string TwinC(string key, int n)
        {
            var text = new StringBuilder();
            try
            {
                for (int i = 0; i < n; i++)
                {
                    switch (key + i)
                    {
                        case "k00": text.Append('a'); break;
                        case "k10": text.Append('b'); break;
                        case "k11": text.Append('c'); Frames.Record(); break;
                        case "k21": text.Append('d'); break;
                        case "k22": text.Append('e'); break;
                        default: text.Append(i); break;
                    }
                    if (i == 3)
                        throw new InvalidOperationException("four");
                }
            }
            catch (InvalidOperationException e) when (e.Message.Length == 4)
            {
                text.Append('!');
                Frames.Record();
            }
            finally
            {
                text.Append('.');
                Frames.Record();
            }
            return text.ToString();
        }

        public static string TwinD(string key, int n)
        {
            var text = new StringBuilder();
            try
            {
                for (int i = 0; i < n; i++)
                {
                    switch (key + i)
                    {
                        case "k00": text.Append('a'); break;
                        case "k10": text.Append('b'); break;
                        case "k11": text.Append('c'); Frames.Record(); break;
                        case "k21": text.Append('d'); break;
                        case "k22": text.Append('e'); break;
                        default: text.Append(i); break;
                    }
                    if (i == 3)
                        throw new InvalidOperationException("four");
                }
            }
            catch (InvalidOperationException e) when (e.Message.Length == 4)
            {
                text.Append('!');
                Frames.Record();
            }
            finally
            {
                text.Append('.');
                Frames.Record();
            }
            return text.ToString();
        }

        public static int TwinB(int n)
        {
            int acc = 0;
            for (int i = 0; i < n; i++)
            {
                switch (i % 3)
                {
                    case 0: acc += i; break;
                    case 1: acc -= 2 * i; break;
                    default: acc ^= 5; break;
                }
                try
                {
                    if (acc < -10)
                        throw new InvalidOperationException();
                }
                catch (InvalidOperationException)
                {
                    acc = -acc;
                }
            }
            return acc;
        }
    }
}
