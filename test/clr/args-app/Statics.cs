// The statics part of the argument-report program (run-statics.py, mode
// "statics"): classes with every kind of static field, and a probe method
// the shim hooks (ILMAP_SHIM_ARGS) whose leaves report them
// (ILMAP_SHIM_STATICS). Before each probe call the program writes what
// every listed static holds on the calling thread, one JSON line per call:
// {"step":N,"classes":{"Ns.Type":{"field":{"kind":K,"value":T}|{"kind":K,"status":"incomplete"}}}}
// with values tagged as Expect does.
using System;
using System.Collections.Generic;
using System.IO;
using System.Reflection;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Text;
using System.Threading;

namespace ArgsTest
{
    class Holder
    {
        public int A;
        public string B;
    }

    // Plain statics of every shape; a constant, which has no storage.
    static class Statics
    {
        public const int Answer = 42;
        public const string Greeting = "literal";
        public static bool Flag;
        public static char Letter;
        public static sbyte I1;
        public static byte U1;
        public static short I2;
        public static ushort U2;
        public static int I4;
        public static uint U4;
        public static long I8;
        public static ulong U8;
        public static nint NI;
        public static nuint NU;
        public static float R4;
        public static double R8;
        public static Color Tint;
        public static Big Huge;
        public static string Text;
        public static string Nothing = null;
        public static Point Pt;
        public static Mixed Mx;
        public static Holder Obj;
        public static object Boxed;
        public static int[] Numbers;
        public static string[] Words;
        public static DayOfWeek Day;
        public static TimeSpan Span;
        public static KeyValuePair<int, string> Pair;
        public static int[,] Grid;
        public static Point[] Points;
        // Its initializer is an RVA blob of <PrivateImplementationDetails>.
        public static readonly int[] Primes = { 2, 3, 5, 7, 11, 13, 17, 19, 23, 29 };
    }

    // A value per thread.
    static class PerThread
    {
        [ThreadStatic] public static int Id;
        [ThreadStatic] public static long Wide;
        [ThreadStatic] public static double Ratio;
        [ThreadStatic] public static string Name;
        [ThreadStatic] public static Point Pt;
        [ThreadStatic] public static Holder Obj;
    }

    // ContextStaticAttribute: one value per COM+ context on .NET Framework.
    static class PerContext
    {
        [ContextStatic] public static int Count;
        [ContextStatic] public static string Label;
    }

    // An explicit static constructor: initialized only when first touched.
    static class Late
    {
        public static int Value;
        public static string Text;

        static Late()
        {
            Value = 1234;
            Text = "late";
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Touch() => Value;
    }

    static class StaticsProbe
    {
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int At(int step) => step;
    }

    static class StaticsTest
    {
        static readonly List<string> lines = new List<string>();
        static bool lateTouched;

        static string Field(string kind, string value) =>
            "{\"kind\":\"" + kind + "\",\"value\":" + value + "}";

        static string Incomplete(string kind) =>
            "{\"kind\":\"" + kind + "\",\"status\":\"incomplete\"}";

        static string Class(string name, params string[] kv)
        {
            var sb = new StringBuilder("\"").Append(name).Append("\":{");
            for (int i = 0; i < kv.Length; i += 2)
                sb.Append(i == 0 ? "" : ",").Append('"').Append(kv[i]).Append("\":").Append(kv[i + 1]);
            return sb.Append('}').ToString();
        }

        static string PointOf(Point p) => Expect.O("ArgsTest.Point", "X", Expect.I(p.X), "Y", Expect.I(p.Y));

        static string HolderOf(Holder h) =>
            h == null ? Expect.Null() : Expect.O("ArgsTest.Holder", "A", Expect.I(h.A), "B", Expect.S(h.B));

        static string Ints(int[] a)
        {
            if (a == null)
                return Expect.Null();
            var e = new string[a.Length];
            for (int i = 0; i < a.Length; i++)
                e[i] = Expect.I(a[i]);
            return Expect.Arr(e);
        }

        static string Strings(string[] a)
        {
            if (a == null)
                return Expect.Null();
            var e = new string[a.Length];
            for (int i = 0; i < a.Length; i++)
                e[i] = Expect.S(a[i]);
            return Expect.Arr(e);
        }

        static string Hex(byte[] b)
        {
            var sb = new StringBuilder();
            foreach (byte x in b)
                sb.Append(x.ToString("x2"));
            return sb.ToString();
        }

        // Every field of <PrivateImplementationDetails> (all RVA statics),
        // read through reflection: a primitive by value, a blob by its bytes.
        static string RvaClass()
        {
            var pid = typeof(Statics).Assembly.GetType("<PrivateImplementationDetails>");
            var kv = new List<string>();
            foreach (var f in pid.GetFields(BindingFlags.Static | BindingFlags.NonPublic | BindingFlags.Public))
            {
                object v = f.GetValue(null);
                string val;
                if (f.FieldType.IsPrimitive)
                    val = v is long l ? Expect.Wide(l) : v is ulong u ? Expect.UWide(u)
                        : Expect.I(Convert.ToInt64(v));
                else
                {
                    int size = Marshal.SizeOf(f.FieldType);
                    var bytes = new byte[size];
                    var h = GCHandle.Alloc(v, GCHandleType.Pinned);
                    try { Marshal.Copy(h.AddrOfPinnedObject(), bytes, 0, size); }
                    finally { h.Free(); }
                    val = "[\"blob\",[\"" + f.FieldType.FullName + "\",\"" + Hex(bytes) + "\"]]";
                }
                kv.Add(f.Name);
                kv.Add(Field("rva", val));
            }
            return Class("<PrivateImplementationDetails>", kv.ToArray());
        }

        // What every listed static holds on this thread now, then the probe.
        static string Untouched(string value) =>
            "{\"kind\":\"thread\",\"value\":" + value + ",\"untouched\":true}";

        static void Step(int step, bool fresh = false)
        {
            var s = new StringBuilder("{\"step\":").Append(step).Append(",\"classes\":{");
            s.Append(Class("ArgsTest.Statics",
                "Flag", Field("appdomain", Expect.B(Statics.Flag)),
                "Letter", Field("appdomain", Expect.C(Statics.Letter)),
                "I1", Field("appdomain", Expect.I(Statics.I1)),
                "U1", Field("appdomain", Expect.I(Statics.U1)),
                "I2", Field("appdomain", Expect.I(Statics.I2)),
                "U2", Field("appdomain", Expect.I(Statics.U2)),
                "I4", Field("appdomain", Expect.I(Statics.I4)),
                "U4", Field("appdomain", Expect.U(Statics.U4)),
                "I8", Field("appdomain", Expect.Wide(Statics.I8)),
                "U8", Field("appdomain", Expect.UWide(Statics.U8)),
                "NI", Field("appdomain", Expect.Wide(Statics.NI)),
                "NU", Field("appdomain", Expect.UWide(Statics.NU)),
                "R4", Field("appdomain", Expect.F(Statics.R4)),
                "R8", Field("appdomain", Expect.D(Statics.R8)),
                "Tint", Field("appdomain", Expect.I((byte)Statics.Tint)),
                "Huge", Field("appdomain", Expect.Wide((long)Statics.Huge)),
                "Text", Field("appdomain", Expect.S(Statics.Text)),
                "Nothing", Field("appdomain", Expect.S(Statics.Nothing)),
                "Pt", Field("appdomain", PointOf(Statics.Pt)),
                "Mx", Field("appdomain", Expect.O("ArgsTest.Mixed", "I", Expect.I(Statics.Mx.I),
                                                   "D", Expect.D(Statics.Mx.D))),
                "Obj", Field("appdomain", HolderOf(Statics.Obj)),
                "Boxed", Field("appdomain", Statics.Boxed == null ? Expect.Null()
                    : Expect.O("System.Int32", "m_value", Expect.I((int)Statics.Boxed))),
                "Numbers", Field("appdomain", Ints(Statics.Numbers)),
                "Words", Field("appdomain", Strings(Statics.Words)),
                "Primes", Field("appdomain", Ints(Statics.Primes)),
                "Day", Field("appdomain", Expect.Reflect(Statics.Day)),
                "Span", Field("appdomain", Expect.Reflect(Statics.Span)),
                "Pair", Field("appdomain", Expect.Reflect(Statics.Pair)),
                "Grid", Field("appdomain", Statics.Grid == null ? Expect.Null()
                    : Expect.Md(new[] { 2, 2 }, Expect.I(Statics.Grid[0, 0]), Expect.I(Statics.Grid[0, 1]),
                                Expect.I(Statics.Grid[1, 0]), Expect.I(Statics.Grid[1, 1]))),
                "Points", Field("appdomain", Statics.Points == null ? Expect.Null()
                    : Expect.Arr(Array.ConvertAll(Statics.Points, PointOf)))));
            s.Append(',').Append(fresh
                ? Class("ArgsTest.PerThread", "Id", Untouched(Expect.I(0)), "Wide", Untouched(Expect.Wide(0)),
                        "Ratio", Untouched(Expect.D(0.0)), "Name", Untouched(Expect.Null()),
                        "Pt", Untouched(PointOf(default)), "Obj", Untouched(Expect.Null()))
                : Class("ArgsTest.PerThread",
                "Id", Field("thread", Expect.I(PerThread.Id)),
                "Wide", Field("thread", Expect.Wide(PerThread.Wide)),
                "Ratio", Field("thread", Expect.D(PerThread.Ratio)),
                "Name", Field("thread", Expect.S(PerThread.Name)),
                "Pt", Field("thread", PointOf(PerThread.Pt)),
                "Obj", Field("thread", HolderOf(PerThread.Obj))));
            s.Append(',').Append(Class("ArgsTest.PerContext",
                "Count", Field("context", Expect.I(PerContext.Count)),
                "Label", Field("context", Expect.S(PerContext.Label))));
            s.Append(',').Append(lateTouched
                ? Class("ArgsTest.Late", "Value", Field("appdomain", Expect.I(Late.Value)),
                        "Text", Field("appdomain", Expect.S(Late.Text)))
                : Class("ArgsTest.Late", "Value", Incomplete("appdomain"), "Text", Incomplete("appdomain")));
            s.Append(',').Append(RvaClass());
            s.Append("}}");
            lock (lines)
                lines.Add(s.ToString());
            StaticsProbe.At(step);
        }

        // Thread t's own thread statics (context statics too: a different
        // value per thread is what would show if they were per thread).
        static void SetThreadValues(int t)
        {
            PerThread.Id = 1000 + t;
            PerThread.Wide = long.MinValue + t;
            PerThread.Ratio = t / 7.0;
            PerThread.Name = "thread " + t + " \u00e9";
            PerThread.Pt = new Point { X = t, Y = -t };
            PerThread.Obj = t % 2 == 0 ? null : new Holder { A = t, B = "h" + t };
        }

        public static int Run(string path)
        {
            Step(1); // Late not initialized yet, everything else at its default
            Statics.Flag = true;
            Statics.Letter = '\u4e2d';
            Statics.I1 = sbyte.MinValue;
            Statics.U1 = byte.MaxValue;
            Statics.I2 = short.MinValue;
            Statics.U2 = ushort.MaxValue;
            Statics.I4 = int.MinValue;
            Statics.U4 = uint.MaxValue;
            Statics.I8 = long.MinValue;
            Statics.U8 = ulong.MaxValue;
            Statics.NI = nint.MaxValue;
            Statics.NU = nuint.MaxValue;
            Statics.R4 = float.NegativeInfinity;
            Statics.R8 = -0.0;
            Statics.Tint = Color.Blue;
            Statics.Huge = Big.Min;
            Statics.Text = "caf\u00e9 \U0001F600";
            Statics.Pt = new Point { X = -3, Y = 4 };
            Statics.Mx = new Mixed { I = 9, D = 0.1 };
            Statics.Obj = new Holder { A = 77, B = "holder" };
            Statics.Boxed = 42;
            Statics.Numbers = new[] { 1, -1, int.MaxValue };
            Statics.Words = new[] { "a", null, "\u00fc" };
            Statics.Day = DayOfWeek.Thursday;
            Statics.Span = TimeSpan.FromTicks(-12345);
            Statics.Pair = new KeyValuePair<int, string>(int.MinValue, "pair");
            Statics.Grid = new int[2, 2] { { 1, 2 }, { 3, -4 } };
            Statics.Points = new[] { new Point { X = 1, Y = -1 } };
            PerContext.Count = 5;
            PerContext.Label = "main";
            SetThreadValues(0);
            Step(2);
            lateTouched = Late.Touch() == 1234;
            Step(3);
            Statics.I4 = 123;
            Statics.R8 = double.NaN;
            Statics.Text = null;
            Step(4);

            var threads = new Thread[3];
            for (int t = 1; t <= threads.Length; t++)
            {
                int id = t;
                threads[t - 1] = new Thread(() =>
                {
                    SetThreadValues(id);
                    if (id == 2)
                    {
                        PerContext.Count = 500 + id;
                        PerContext.Label = "thread " + id;
                    }
                    Step(10 * id);
                    PerThread.Id = -id;
                    Step(10 * id + 1);
                });
            }
            // One after another: the context statics' values stay predictable.
            foreach (var t in threads)
            {
                t.Start();
                t.Join();
            }
            Step(5); // back on the main thread: its own thread statics again
            // A thread that never touches PerThread: its thread statics have
            // their default values, or no storage yet on that thread.
            var fresh = new Thread(() => Step(40, fresh: true));
            fresh.Start();
            fresh.Join();

            File.WriteAllLines(path, lines);
            Console.WriteLine("statics done " + lines.Count);
            return 0;
        }
    }
}
