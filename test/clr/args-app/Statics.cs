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
        public static OptBox Opt; // generic structs as fields of a struct static
        public static int[,] Grid;
        public static Point[] Points;
        // Generic instantiations held by a plain static: their fields over
        // the class's own T (Wrap<T>.Inner is a Cell<T>, Nest<T>.In too)
        // read with T from the object's or struct's instantiation.
        public static Wrap<int> WrapInt;
        public static Wrap<string> WrapText;
        public static object WrapPoint;
        public static Nest<string> Nest;
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

    // Generic statics (ILMAP_SHIM_STATICS names the type definition,
    // "ArgsTest.Gen`1"): one set of statics per instantiation.
    struct Cell<T>
    {
        public T Item;
        public int Tag;
    }

    struct Nest<T>
    {
        public Cell<T> In; // a generic struct over the enclosing struct's T
        public T V;
    }

    class Wrap<T>
    {
        public Cell<T> Inner; // an instance field over the class's own T
        public T Direct;
    }

    static class Gen<T>
    {
        public const int Const = 1; // no storage
        public static T Value;
        public static int Count;
        public static string Label;
        public static Point Pt;
        public static Cell<T> Cell; // a generic struct over T
        public static Wrap<T> Wrap;
        [ThreadStatic] public static T Mine;
        [ThreadStatic] public static int MineCount;
    }

    // A generic class with an explicit static constructor: each
    // instantiation is initialized only when first touched.
    static class LateGen<T>
    {
        public static T Value;
        public static Cell<T> Cell;

        static LateGen()
        {
            Value = default;
            Cell.Tag = 99;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Touch() => Cell.Tag;
    }

    // Sets and describes the generic statics. Kept out of StaticsTest.Run so
    // that its compilation loads none of the instantiations: they load in
    // the order Load asks for them.
    static class GenericStatics
    {
        static string Field(string kind, string value) =>
            "{\"kind\":\"" + kind + "\",\"value\":" + value + "}";

        static string Incomplete(string kind) =>
            "{\"kind\":\"" + kind + "\",\"status\":\"incomplete\"}";

        static string Untouched(string value) =>
            "{\"kind\":\"thread\",\"value\":" + value + ",\"untouched\":true}";

        static string Fields(params string[] kv)
        {
            var sb = new StringBuilder("{");
            for (int i = 0; i < kv.Length; i += 2)
                sb.Append(i == 0 ? "" : ",").Append('"').Append(kv[i]).Append("\":").Append(kv[i + 1]);
            return sb.Append('}').ToString();
        }

        static string Inst(Type t, string fields) =>
            "{\"type_args\":[\"" + t.FullName + "\"],\"fields\":" + fields + "}";

        // The instantiations in the order the runtime loads them (the
        // reports' order): Gen over int, string, a struct, object (string
        // and object share code but not statics), then LateGen over int and
        // string, loaded but not initialized.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void Load()
        {
            foreach (var t in new[] { typeof(int), typeof(string), typeof(Point), typeof(object) })
                RuntimeHelpers.RunClassConstructor(typeof(Gen<>).MakeGenericType(t).TypeHandle);
            foreach (var t in new[] { typeof(int), typeof(string) })
                GC.KeepAlive(typeof(LateGen<>).MakeGenericType(t).TypeHandle.Value);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void Set()
        {
            Gen<int>.Value = int.MinValue;
            Gen<int>.Count = 1;
            Gen<int>.Label = "int \u00e9";
            Gen<int>.Pt = new Point { X = 1, Y = -1 };
            Gen<int>.Cell = new Cell<int> { Item = -5, Tag = 10 };
            Gen<int>.Wrap = new Wrap<int> { Inner = new Cell<int> { Item = 6, Tag = 11 }, Direct = int.MaxValue };
            Gen<string>.Value = "gen \U0001F600";
            Gen<string>.Count = 2;
            Gen<string>.Label = null;
            Gen<string>.Pt = new Point { X = 2, Y = -2 };
            Gen<string>.Cell = new Cell<string> { Item = "cell", Tag = 20 };
            Gen<string>.Wrap = new Wrap<string> { Inner = new Cell<string> { Item = null, Tag = 21 }, Direct = "direct" };
            Gen<Point>.Value = new Point { X = -3, Y = 3 };
            Gen<Point>.Count = 3;
            Gen<Point>.Label = "point";
            Gen<Point>.Pt = new Point { X = 3, Y = -3 };
            Gen<Point>.Cell = new Cell<Point> { Item = new Point { X = 30, Y = 31 }, Tag = 32 };
            Gen<Point>.Wrap = new Wrap<Point> { Inner = new Cell<Point> { Item = new Point { X = 33, Y = 34 }, Tag = 35 },
                                                Direct = new Point { X = 36, Y = 37 } };
            Gen<object>.Value = new Holder { A = 4, B = "held" };
            Gen<object>.Count = 4;
            Gen<object>.Label = "object";
            Gen<object>.Pt = new Point { X = 4, Y = -4 };
            Gen<object>.Cell = new Cell<object> { Item = "a string as object", Tag = 40 };
            Gen<object>.Wrap = new Wrap<object> { Inner = new Cell<object> { Item = new Holder { A = 41, B = null }, Tag = 42 },
                                                  Direct = null };
        }

        // Plain statics holding generic instantiations (Statics.Wrap*, Nest).
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void SetHeld()
        {
            Statics.WrapInt = new Wrap<int> { Inner = new Cell<int> { Item = int.MinValue, Tag = 1 }, Direct = -1 };
            Statics.WrapText = new Wrap<string> { Inner = new Cell<string> { Item = "inner \u00e9", Tag = 2 },
                                                  Direct = null };
            Statics.WrapPoint = new Wrap<Point> { Inner = new Cell<Point> { Item = new Point { X = 7, Y = -7 }, Tag = 3 },
                                                  Direct = new Point { X = 8, Y = -8 } };
            Statics.Nest = new Nest<string> { In = new Cell<string> { Item = "nested", Tag = 4 }, V = "v" };
        }

        // Thread t's own generic thread statics.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void SetThread(int t)
        {
            Gen<int>.Mine = 100 + t;
            Gen<int>.MineCount = t;
            Gen<string>.Mine = "mine " + t;
            Gen<string>.MineCount = -t;
            Gen<Point>.Mine = new Point { X = t, Y = t * t };
            Gen<Point>.MineCount = 1000 + t;
            Gen<object>.Mine = t % 2 == 0 ? null : (object)("object " + t);
            Gen<object>.MineCount = 2000 + t;
        }

        static string GenOf<T>(bool fresh) => Inst(typeof(T), Fields(
            "Value", Field("appdomain", Expect.Reflect(Gen<T>.Value)),
            "Count", Field("appdomain", Expect.I(Gen<T>.Count)),
            "Label", Field("appdomain", Expect.S(Gen<T>.Label)),
            "Pt", Field("appdomain", Expect.Reflect(Gen<T>.Pt)),
            "Cell", Field("appdomain", Expect.Reflect(Gen<T>.Cell)),
            "Wrap", Field("appdomain", Expect.Reflect(Gen<T>.Wrap)),
            "Mine", fresh ? Untouched(Expect.Reflect(default(T))) : Field("thread", Expect.Reflect(Gen<T>.Mine)),
            "MineCount", fresh ? Untouched(Expect.I(0)) : Field("thread", Expect.I(Gen<T>.MineCount))));

        static string LateOf<T>(bool touched) => Inst(typeof(T), touched
            ? Fields("Value", Field("appdomain", Expect.Reflect(LateGen<T>.Value)),
                     "Cell", Field("appdomain", Expect.Reflect(LateGen<T>.Cell)))
            : Fields("Value", Incomplete("appdomain"), "Cell", Incomplete("appdomain")));

        // The two classes' entries of a step line: each a list, one element
        // per instantiation in load order.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static string Expected(bool fresh, bool lateTouched) =>
            "\"ArgsTest.Gen`1\":[" + GenOf<int>(fresh) + "," + GenOf<string>(fresh) + "," +
            GenOf<Point>(fresh) + "," + GenOf<object>(fresh) + "]," +
            "\"ArgsTest.LateGen`1\":[" + LateOf<int>(lateTouched) + "," + LateOf<string>(false) + "]";

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static bool TouchLate() => LateGen<int>.Touch() == 99;
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
                "Opt", Field("appdomain", Expect.O("ArgsTest.OptBox", "N", Expect.Reflect(Statics.Opt.N),
                                                    "P", Expect.Reflect(Statics.Opt.P), "B", Expect.I(Statics.Opt.B))),
                "Grid", Field("appdomain", Statics.Grid == null ? Expect.Null()
                    : Expect.Md(new[] { 2, 2 }, Expect.I(Statics.Grid[0, 0]), Expect.I(Statics.Grid[0, 1]),
                                Expect.I(Statics.Grid[1, 0]), Expect.I(Statics.Grid[1, 1]))),
                "Points", Field("appdomain", Statics.Points == null ? Expect.Null()
                    : Expect.Arr(Array.ConvertAll(Statics.Points, PointOf))),
                "WrapInt", Field("appdomain", Expect.Reflect(Statics.WrapInt)),
                "WrapText", Field("appdomain", Expect.Reflect(Statics.WrapText)),
                "WrapPoint", Field("appdomain", Expect.Reflect(Statics.WrapPoint)),
                "Nest", Field("appdomain", Expect.Reflect(Statics.Nest))));
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
            s.Append(',').Append(GenericStatics.Expected(fresh, lateTouched));
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
            GenericStatics.SetThread(t);
        }

        public static int Run(string path)
        {
            GenericStatics.Load();
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
            Statics.Opt = new OptBox { N = int.MinValue, P = new KeyValuePair<string, int>("opt \u00e9", -1), B = 7 };
            Statics.Grid = new int[2, 2] { { 1, 2 }, { 3, -4 } };
            Statics.Points = new[] { new Point { X = 1, Y = -1 } };
            GenericStatics.SetHeld();
            PerContext.Count = 5;
            PerContext.Label = "main";
            SetThreadValues(0);
            GenericStatics.Set();
            Step(2);
            lateTouched = Late.Touch() == 1234 && GenericStatics.TouchLate();
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
