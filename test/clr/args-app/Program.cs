// The clr suite's argument-report program (run-args.py): calls methods
// with primitives at their edge values, strings (non-ASCII, surrogates,
// escapes, null), objects and structs, and writes what each call passed
// and returned to the file named by its first argument, one JSON line per
// call: {"method":"Ns.Type::M","this":T,"args":[T,...],"ret":T} with every
// value tagged as [kind, text] so that the runner can build the value the
// shim must report (floats as their bits, strings as UTF-16 code units).
using System;
using System.Collections.Generic;
using System.IO;
using System.Runtime.CompilerServices;
using System.Text;
using System.Threading;

namespace ArgsTest
{
    static class Expect
    {
        static readonly List<string> lines = new List<string>();

        public static string I(long v) => "[\"int\",\"" + v + "\"]";
        public static string U(ulong v) => "[\"int\",\"" + v + "\"]";
        public static string Wide(long v) => "[\"wide\",\"" + v + "\"]";
        public static string UWide(ulong v) => "[\"wide\",\"" + v + "\"]";
        public static string B(bool v) => "[\"bool\",\"" + (v ? "true" : "false") + "\"]";
        public static string C(char v) => "[\"str\",[" + (int)v + "]]";
        public static string F(float v) => "[\"r4\",\"" + BitConverter.SingleToInt32Bits(v) + "\"]";
        public static string D(double v) => "[\"r8\",\"" + BitConverter.DoubleToInt64Bits(v) + "\"]";
        public static string Obj(string cls) => "[\"class\",\"" + cls + "\"]";
        public static string Null() => "[\"null\",\"\"]";
        // An object or struct: its class and its fields, name then value.
        public static string O(string cls, params string[] kv)
        {
            var sb = new StringBuilder("[\"obj\",[\"").Append(cls).Append("\",{");
            for (int i = 0; i < kv.Length; i += 2)
                sb.Append(i == 0 ? "" : ",").Append('"').Append(kv[i]).Append("\":").Append(kv[i + 1]);
            return sb.Append("}]]").ToString();
        }
        public static string Ref(string inner) => "[\"ref\"," + inner + "]";
        public static string Hex(ulong v) => "[\"hex\",\"0x" + v.ToString("x") + "\"]";
        public static string Arr(params string[] elems) =>
            "[\"arr\",[" + string.Join(",", elems) + "]]";
        // A value of another module's type as the shim must write it: an
        // enum as its underlying integer, a struct by every instance field
        // (read through reflection, private ones included).
        public static string Reflect(object v)
        {
            if (v == null)
                return Null();
            var type = v.GetType();
            if (type.IsEnum)
                return Enum.GetUnderlyingType(type) == typeof(ulong) ? UWide(Convert.ToUInt64(v))
                    : Enum.GetUnderlyingType(type) == typeof(long) ? Wide(Convert.ToInt64(v))
                    : I(Convert.ToInt64(v));
            switch (v)
            {
                case bool b: return B(b);
                case char c: return C(c);
                case sbyte x: return I(x);
                case byte x: return I(x);
                case short x: return I(x);
                case ushort x: return I(x);
                case int x: return I(x);
                case uint x: return U(x);
                case long x: return Wide(x);
                case ulong x: return UWide(x);
                case float x: return F(x);
                case double x: return D(x);
                case string x: return S(x);
            }
            var kv = new List<string>();
            string name = type.IsGenericType ? type.GetGenericTypeDefinition().FullName : type.FullName;
            foreach (var f in type.GetFields(System.Reflection.BindingFlags.Instance |
                                             System.Reflection.BindingFlags.Public |
                                             System.Reflection.BindingFlags.NonPublic))
            {
                kv.Add(f.Name);
                kv.Add(Reflect(f.GetValue(v)));
            }
            return O(name, kv.ToArray());
        }

        // A Nullable<T> by its two fields (boxing would lose them).
        public static string Reflect(int? v) =>
            O("System.Nullable`1", "hasValue", B(v.HasValue), "value", I(v.GetValueOrDefault()));

        // A typed reference: the referenced value's class and the value.
        public static string TRef(string cls, string value) =>
            "[\"tref\",[\"" + cls + "\"," + value + "]]";

        // A multi-dimensional array: its lengths, its elements row-major.
        public static string Md(int[] lengths, params string[] elems) =>
            "[\"md\",[[" + string.Join(",", lengths) + "],[" + string.Join(",", elems) + "]]]";
        public static string S(string v)
        {
            if (v == null)
                return "[\"null\",\"\"]";
            var sb = new StringBuilder("[\"str\",[");
            for (int i = 0; i < v.Length; i++)
                sb.Append(i == 0 ? "" : ",").Append((int)v[i]);
            return sb.Append("]]").ToString();
        }

        public static void Call(string method, string self, string ret, params string[] args)
        {
            var sb = new StringBuilder("{\"method\":\"").Append(method).Append('"');
            if (self != null)
                sb.Append(",\"this\":").Append(self);
            sb.Append(",\"args\":[").Append(string.Join(",", args)).Append(']');
            if (ret != null)
                sb.Append(",\"ret\":").Append(ret);
            lock (lines)
                lines.Add(sb.Append('}').ToString());
        }

        public static void Write(string path) => File.WriteAllLines(path, lines);
    }

    static class Prims
    {
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long Ints(sbyte a, byte b, short c, ushort d, int e, uint f, long g, ulong h,
                                nint i, nuint j)
        {
            return a + b + c + d + e + (long)f + g + (long)h + i + (long)j;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static double Floats(float a, double b)
        {
            return a * 2.0 + b;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static float Single(float a)
        {
            return a / 3.0f;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static char NextChar(char c, bool up)
        {
            return up ? (char)(c + 1) : (char)(c - 1);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static bool Not(bool b)
        {
            return !b;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static ulong MaxU(ulong a, ulong b)
        {
            return a > b ? a : b;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static string Join(string a, string b)
        {
            if (a == null || b == null)
                return null;
            return a + "|" + b;
        }

        public static int sink;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Seven()
        {
            return 7;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void Nothing(int x, string s)
        {
            sink += x + (s == null ? 0 : s.Length);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Fact(int n)
        {
            int r = n <= 1 ? 1 : n * Fact(n - 1);
            return r;
        }

        // An object and a struct by their fields, an array.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Other(object o, Point p, int[] a)
        {
            return p.X + (a == null ? 0 : a.Length) + (o == null ? 0 : 1);
        }
    }

    class Box
    {
        public int Value;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public int Add(int x)
        {
            Value += x;
            return Value;
        }
    }

    class Counter
    {
        int n;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public int Next()
        {
            return ++n;
        }
    }

    class DerivedBox : Box
    {
    }

    struct Point
    {
        public int X, Y;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public int Sum(int k)
        {
            return X + Y + k;
        }
    }

    enum Color : byte { Red = 1, Green = 2, Blue = 200 }
    enum Big : long { Min = long.MinValue, Max = long.MaxValue }
    enum Neg : short { A = -5, B = short.MaxValue }
    enum Plain { Zero, One, Many = int.MinValue }
    enum Wide : ulong { Top = ulong.MaxValue }

    // Enums, byrefs, pointers and one-dimension arrays (issue 13 item 2).
    static unsafe class More
    {
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static Color Enums(Color c, Big b, Neg n, Plain p, Wide w)
        {
            return c == Color.Red ? Color.Blue : (Color)((byte)c + (int)p + (int)n + (long)b + (long)w);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Refs(ref int a, in double d, out string s, ref Color c, ref long l,
                               ref string r)
        {
            a += 1;
            s = "set " + d;
            c = Color.Green;
            l = -l;
            r = null;
            return a;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static ref int Pick(int[] a, int i)
        {
            return ref a[i];
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int* Pointers(int* p, byte* q, delegate*<int, int> f)
        {
            return p + (q == null ? 0 : 1) + (f == null ? 0 : 1);
        }

        public static int Twice(int x) => 2 * x;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Arrays(int[] i, string[] s, Color[] c, double[] d, char[] ch, bool[] b,
                                 long[] l, byte[] empty)
        {
            return (i == null ? 0 : i.Length) + (s == null ? 0 : s.Length) + c.Length + d.Length +
                   ch.Length + b.Length + l.Length + empty.Length;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static string[] Split(string s)
        {
            return s == null ? null : s.Split(',');
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Objects(object o, Node n, Mixed m, Large l, Outer outer)
        {
            return (o == null ? 0 : 1) + n.Id + m.I + (int)l.B + outer.B;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static Mixed MakeMixed(int i, double d)
        {
            return new Mixed { I = i, D = d };
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static Node MakeNode(int id, string name)
        {
            return new Node { Id = id, Name = name };
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Jagged(int[][] j, object[] o)
        {
            return j.Length + o.Length;
        }

        // Multi-dimensional arrays of integers, strings, structs, enums; an
        // empty one.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Grids(int[,] g, string[,,] s, Point[,] p, Color[,] c, double[,] empty)
        {
            return g.Length + s.Length + p.Length + c.Length + empty.Length;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int[,] MakeGrid(int rows, int cols)
        {
            var g = new int[rows, cols];
            for (int r = 0; r < rows; r++)
                for (int c = 0; c < cols; c++)
                    g[r, c] = r * 10 + c;
            return g;
        }

        // Arrays of arrays, three deep; null and empty inner arrays.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Deep(int[][][] d, string[][] s)
        {
            return d.Length + s.Length;
        }

        // Arrays of structs: small, mixed, with a reference, nested; a ref
        // to a struct.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Structs(Point[] p, Mixed[] m, Large[] l, Outer[] o, ref Point r)
        {
            r.X += 1;
            return p.Length + m.Length + l.Length + o.Length;
        }

        // Enums and structs of CoreLib (TypeRefs in this module's metadata).
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Foreign(DayOfWeek d, DateTimeKind k, TimeSpan ts, Guid g, DateTime dt,
                                  ConsoleKey key, DayOfWeek[] days, TimeSpan[] spans, ref TimeSpan r)
        {
            return (int)d + (int)k + (int)ts.Ticks + g.GetHashCode() + dt.Day + (int)key + days.Length +
                   spans.Length + r.Days;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static TimeSpan MakeSpan(long ticks)
        {
            return new TimeSpan(ticks);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static DayOfWeek Tomorrow(DayOfWeek d)
        {
            return (DayOfWeek)(((int)d + 1) % 7);
        }

        // Generic structs instantiated over value and reference types.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Instances(KeyValuePair<int, string> kv, KeyValuePair<string, Point>[] pairs,
                                    ValueTuple<long, Color> t, int? maybe, int? none)
        {
            return kv.Key + pairs.Length + (int)t.Item1 + (maybe ?? 0) + (none ?? 0);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static KeyValuePair<string, int> MakePair(string k, int v) => new KeyValuePair<string, int>(k, v);

        // Generic structs as fields of a class and of a struct.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int GenericFields(PairHolder h, OptBox o)
        {
            return h.Kv.Key + h.Tail + (o.N ?? 0) + o.P.Value + o.B;
        }

        // Generic structs over the enclosing instantiation's T: Cell<T>
        // fields of Wrap<T> objects and of a Nest<T> struct (Statics.cs).
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Wrapped(Wrap<int> a, Wrap<string> b, Nest<Point> c, object d)
        {
            return a.Inner.Item + b.Inner.Tag + c.In.Item.X + (d == null ? 0 : 1);
        }

        // Typed references (TYPEDBYREF).
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Typed(TypedReference a, TypedReference b, TypedReference c)
        {
            return __reftype(a) == typeof(int) ? __refvalue(a, int) : -1;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static Point[] MakePoints(int n)
        {
            var ps = new Point[n];
            for (int i = 0; i < n; i++)
                ps[i] = new Point { X = i, Y = -i };
            return ps;
        }
    }

    // Generic code over value and reference types: a class's type
    // parameter, a method's, both; shared code for reference types.
    // A class and a struct with generic struct instantiations as fields.
    class PairHolder
    {
        public KeyValuePair<int, string> Kv;
        public int Tail;
    }

    struct OptBox
    {
        public int? N;
        public KeyValuePair<string, int> P;
        public byte B;
    }

    class Holder<T>
    {
        public T Item;
        public int Count;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public T Swap(T next)
        {
            T old = Item;
            Item = next;
            Count++;
            return old;
        }
    }

    // Fields that are arrays of the class's type parameter.
    class Bag<T>
    {
        public T[] Items;
        public T[][] Rows;
        public T[,] Grid;
    }

    // A generic struct's instance method: `this` is the instantiation.
    struct Slot<T>
    {
        public T Value;
        public int Hits;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public int Hit(T probe)
        {
            return ++Hits + (probe == null ? 0 : 1);
        }
    }

    static class Generic
    {
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static U Echo<U>(U u, int k)
        {
            return k >= 0 ? u : default;
        }

        // A generic struct over the method's own type parameter.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static KeyValuePair<int, V> Flip<V>(KeyValuePair<V, int> kv)
        {
            return new KeyValuePair<int, V>(kv.Value, kv.Key);
        }

        // Byrefs to a generic parameter.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Refer<R>(ref R r, in R i, R[] box)
        {
            r = i;
            return box == null ? 0 : box.Length;
        }

        // Generic parameters deeper than one array: arrays of arrays of W,
        // an array of a generic class over W.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static W[][] Deeper<W>(W[][] jag, Holder<W>[] holders, W[][][] three, Bag<W> bag)
        {
            return jag == null || jag.Length == 0 ? null : jag;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static string Both<A, B>(A a, B b, A[] many)
        {
            return a + "/" + b + "/" + (many == null ? 0 : many.Length);
        }
    }

    class Node
    {
        public int Id;
        public string Name;
        public Node Next;
    }

    class Heavy : Node
    {
        public double Weight;
        public Color Tint;
        public int[] Data;
    }

    // Split across an integer and a floating register on SysV.
    struct Mixed
    {
        public int I;
        public double D;
    }

    // Larger than two registers: passed by reference to a copy.
    struct Large
    {
        public long A, B, C;
        public string S;
    }

    struct Outer
    {
        public Mixed M;
        public byte B;
    }

    static class Many
    {
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Counted(int i)
        {
            return i * 3;
        }
    }

    static class Program
    {
        const string P = "ArgsTest.Prims::";

        static void Ints(sbyte a, byte b, short c, ushort d, int e, uint f, long g, ulong h,
                         nint i, nuint j)
        {
            long r = Prims.Ints(a, b, c, d, e, f, g, h, i, j);
            Expect.Call(P + "Ints", null, Expect.Wide(r), Expect.I(a), Expect.U(b), Expect.I(c),
                        Expect.U(d), Expect.I(e), Expect.U(f), Expect.Wide(g), Expect.UWide(h),
                        Expect.Wide(i), Expect.UWide(j));
        }

        static void Floats(float a, double b)
        {
            double r = Prims.Floats(a, b);
            Expect.Call(P + "Floats", null, Expect.D(r), Expect.F(a), Expect.D(b));
        }

        static void Single(float a)
        {
            float r = Prims.Single(a);
            Expect.Call(P + "Single", null, Expect.F(r), Expect.F(a));
        }

        static void Join(string a, string b)
        {
            string r = Prims.Join(a, b);
            Expect.Call(P + "Join", null, Expect.S(r), Expect.S(a), Expect.S(b));
        }

        const string M = "ArgsTest.More::";

        static string E(Color c) => Expect.I((byte)c);

        static unsafe void MoreCalls()
        {
            foreach (var (c, b, n, p, w) in new[] {
                         (Color.Red, Big.Min, Neg.A, Plain.Zero, Wide.Top),
                         (Color.Blue, Big.Max, Neg.B, Plain.Many, (Wide)0),
                         ((Color)7, (Big)0, (Neg)0, (Plain)(-1), (Wide)1) })
            {
                Color r = More.Enums(c, b, n, p, w);
                Expect.Call(M + "Enums", null, E(r), E(c), Expect.Wide((long)b), Expect.I((short)n),
                            Expect.I((int)p), Expect.UWide((ulong)w));
            }

            int a = 41;
            double d = -0.5;
            string s = "before \u00e9";
            Color col = Color.Blue;
            long l = long.MinValue + 1;
            string r2 = null;
            int ra = a;
            double rd = d;
            string rs = s;
            Color rc = col;
            long rl = l;
            int ret = More.Refs(ref a, in d, out s, ref col, ref l, ref r2);
            Expect.Call(M + "Refs", null, Expect.I(ret), Expect.Ref(Expect.I(ra)),
                        Expect.Ref(Expect.D(rd)), Expect.Ref(Expect.S(rs)), Expect.Ref(E(rc)),
                        Expect.Ref(Expect.Wide(rl)), Expect.Ref(Expect.Null()));
            // A byref into an object (a field), and one returned.
            var box = new Box { Value = -3 };
            string before = Expect.Ref(Expect.I(box.Value));
            ret = More.Refs(ref box.Value, in d, out s, ref col, ref l, ref s);
            Expect.Call(M + "Refs", null, Expect.I(ret), before, Expect.Ref(Expect.D(d)),
                        Expect.Ref(Expect.S("set -0.5")), Expect.Ref(E(Color.Green)),
                        Expect.Ref(Expect.Wide(-rl)), Expect.Ref(Expect.S("set -0.5")));
            var arr = new[] { 5, 6, 7 };
            ref int picked = ref More.Pick(arr, 2);
            Expect.Call(M + "Pick", null, Expect.Ref(Expect.I(picked)),
                        Expect.Arr(Expect.I(5), Expect.I(6), Expect.I(7)), Expect.I(2));

            int local = 9;
            byte* bp = (byte*)0x1234;
            delegate*<int, int> f = &More.Twice;
            int* pr = More.Pointers(&local, bp, f);
            Expect.Call(M + "Pointers", null, Expect.Hex((ulong)pr), Expect.Hex((ulong)&local),
                        Expect.Hex((ulong)bp), Expect.Hex((ulong)(nint)f));
            pr = More.Pointers(null, null, null);
            Expect.Call(M + "Pointers", null, Expect.Hex((ulong)pr), Expect.Hex(0), Expect.Hex(0),
                        Expect.Hex(0));

            int n2 = More.Arrays(new[] { int.MinValue, 0, int.MaxValue },
                                 new[] { "a", null, "\u4e2d\"\\", "" },
                                 new[] { Color.Red, Color.Blue },
                                 new[] { 0.25, double.NaN, double.NegativeInfinity, -0.0 },
                                 new[] { 'x', '\u00e9' }, new[] { true, false },
                                 new[] { long.MinValue, long.MaxValue }, new byte[0]);
            Expect.Call(M + "Arrays", null, Expect.I(n2),
                        Expect.Arr(Expect.I(int.MinValue), Expect.I(0), Expect.I(int.MaxValue)),
                        Expect.Arr(Expect.S("a"), Expect.Null(), Expect.S("\u4e2d\"\\"), Expect.S("")),
                        Expect.Arr(E(Color.Red), E(Color.Blue)),
                        Expect.Arr(Expect.D(0.25), Expect.D(double.NaN),
                                   Expect.D(double.NegativeInfinity), Expect.D(-0.0)),
                        Expect.Arr(Expect.C('x'), Expect.C('\u00e9')),
                        Expect.Arr(Expect.B(true), Expect.B(false)),
                        Expect.Arr(Expect.Wide(long.MinValue), Expect.Wide(long.MaxValue)),
                        Expect.Arr());
            n2 = More.Arrays(null, null, new Color[0], new double[0], new char[0], new bool[0],
                             new long[0], new byte[0]);
            Expect.Call(M + "Arrays", null, Expect.I(n2), Expect.Null(), Expect.Null(),
                        Expect.Arr(), Expect.Arr(), Expect.Arr(), Expect.Arr(), Expect.Arr(),
                        Expect.Arr());
            More.Split("p,q,\u00fc");
            Expect.Call(M + "Split", null, Expect.Arr(Expect.S("p"), Expect.S("q"), Expect.S("\u00fc")),
                        Expect.S("p,q,\u00fc"));
            More.Split(null);
            Expect.Call(M + "Split", null, Expect.Null(), Expect.Null());
            // Arrays of arrays by their elements; an array of objects has
            // each object by its fields.
            n2 = More.Jagged(new[] { new[] { 1 } }, new object[] { 1, "s", null });
            Expect.Call(M + "Jagged", null, Expect.I(n2), Expect.Arr(Expect.Arr(Expect.I(1))),
                        Expect.Arr(Expect.O("System.Int32", "m_value", Expect.I(1)), Expect.S("s"),
                                   Expect.Null()));
            ArrayCalls();
            GenericCalls();

            ObjectCalls();
        }

        static string EPoint(Point p) => Expect.O("ArgsTest.Point", "X", Expect.I(p.X), "Y", Expect.I(p.Y));

        static void GenericCalls()
        {
            const string G = "ArgsTest.Generic::";
            foreach (int v in new[] { int.MinValue, 7 })
                Expect.Call(G + "Echo", null, Expect.I(Generic.Echo(v, 1)), Expect.I(v), Expect.I(1));
            Expect.Call(G + "Echo", null, Expect.S(Generic.Echo("caf\u00e9", 2)), Expect.S("caf\u00e9"),
                        Expect.I(2));
            Expect.Call(G + "Echo", null, Expect.Null(), Expect.S(null), Expect.I(3));
            Generic.Echo<string>(null, 3);
            var pt = new Point { X = -5, Y = 6 };
            Expect.Call(G + "Echo", null, EPoint(Generic.Echo(pt, 4)), EPoint(pt), Expect.I(4));
            Expect.Call(G + "Echo", null, Expect.Wide(Generic.Echo(long.MaxValue, 5)),
                        Expect.Wide(long.MaxValue), Expect.I(5));
            Expect.Call(G + "Echo", null, Expect.I((byte)Generic.Echo(Color.Blue, 6)), Expect.I(200),
                        Expect.I(6));
            Expect.Call(G + "Echo", null, Expect.D(Generic.Echo(-0.0, 7)), Expect.D(-0.0), Expect.I(7));
            var node = new Node { Id = 3, Name = "n" };
            Expect.Call(G + "Echo", null, Expect.O("ArgsTest.Node", "Id", Expect.I(3), "Name", Expect.S("n"),
                                                   "Next", Expect.Null()),
                        Expect.O("ArgsTest.Node", "Id", Expect.I(3), "Name", Expect.S("n"), "Next", Expect.Null()),
                        Expect.I(8));
            Generic.Echo(node, 8);
            // Arrays as type arguments and as objects: by their runtime class.
            Expect.Call(G + "Echo", null, Expect.Arr(Expect.I(1), Expect.I(-2)),
                        Expect.Arr(Expect.I(1), Expect.I(-2)), Expect.I(9));
            Generic.Echo(new[] { 1, -2 }, 9);
            var grid = new string[1, 2] { { "g", null } };
            Expect.Call(G + "Echo", null, Expect.Md(new[] { 1, 2 }, Expect.S("g"), Expect.Null()),
                        Expect.Md(new[] { 1, 2 }, Expect.S("g"), Expect.Null()), Expect.I(10));
            Generic.Echo(grid, 10);
            object boxedArrays = new object[] { new[] { 7L }, new Point[] { pt } };
            Expect.Call(G + "Echo", null,
                        Expect.Arr(Expect.Arr(Expect.Wide(7)), Expect.Arr(EPoint(pt))),
                        Expect.Arr(Expect.Arr(Expect.Wide(7)), Expect.Arr(EPoint(pt))), Expect.I(11));
            Generic.Echo(boxedArrays, 11);
            foreach (var (k, v) in new[] { ("x", 1), (null, -1) })
            {
                var kvs = new KeyValuePair<string, int>(k, v);
                Expect.Call(G + "Flip", null, Expect.Reflect(Generic.Flip(kvs)), Expect.Reflect(kvs));
            }
            var kvp = new KeyValuePair<Point, int>(pt, 3);
            Expect.Call(G + "Flip", null, Expect.Reflect(Generic.Flip(kvp)), Expect.Reflect(kvp));
            var kvd = new KeyValuePair<double, int>(-0.0, int.MinValue);
            Expect.Call(G + "Flip", null, Expect.Reflect(Generic.Flip(kvd)), Expect.Reflect(kvd));
            {
                long rl = long.MinValue;
                Expect.Call(G + "Refer", null, Expect.I(0), Expect.Ref(Expect.Wide(long.MinValue)),
                            Expect.Ref(Expect.Wide(9)), Expect.Null());
                Generic.Refer(ref rl, 9L, null);
                string rs = "r\u00e9";
                Expect.Call(G + "Refer", null, Expect.I(1), Expect.Ref(Expect.S("r\u00e9")), Expect.Ref(Expect.Null()),
                            Expect.Arr(Expect.S("b")));
                Generic.Refer(ref rs, null, new[] { "b" });
                Point rp = pt;
                Expect.Call(G + "Refer", null, Expect.I(0), Expect.Ref(EPoint(pt)), Expect.Ref(EPoint(default)),
                            Expect.Arr());
                Generic.Refer(ref rp, default(Point), new Point[0]);
            }
            var jag = new[] { new[] { int.MinValue, 2 }, null, new int[0] };
            var hold = new[] { new Holder<int> { Item = -3, Count = 1 }, null };
            var three = new[] { new[] { new[] { 7 }, null }, null };
            Expect.Call(G + "Deeper", null,
                        Expect.Arr(Expect.Arr(Expect.I(int.MinValue), Expect.I(2)), Expect.Null(), Expect.Arr()),
                        Expect.Arr(Expect.Arr(Expect.I(int.MinValue), Expect.I(2)), Expect.Null(), Expect.Arr()),
                        Expect.Arr(Expect.O("ArgsTest.Holder`1", "Item", Expect.I(-3), "Count", Expect.I(1)),
                                   Expect.Null()),
                        Expect.Arr(Expect.Arr(Expect.Arr(Expect.I(7)), Expect.Null()), Expect.Null()),
                        Expect.O("ArgsTest.Bag`1", "Items", Expect.Arr(Expect.I(4), Expect.I(-4)),
                                 "Rows", Expect.Arr(Expect.Arr(Expect.I(5)), Expect.Null()),
                                 "Grid", Expect.Md(new[] { 1, 2 }, Expect.I(6), Expect.I(-6))));
            Generic.Deeper(jag, hold, three, new Bag<int> { Items = new[] { 4, -4 }, Rows = new[] { new[] { 5 }, null },
                                                            Grid = new[,] { { 6, -6 } } });
            var sjag = new[] { new[] { "w\u00e9", null } };
            var shold = new[] { new Holder<string> { Item = "h", Count = 2 } };
            Expect.Call(G + "Deeper", null, Expect.Arr(Expect.Arr(Expect.S("w\u00e9"), Expect.Null())),
                        Expect.Arr(Expect.Arr(Expect.S("w\u00e9"), Expect.Null())),
                        Expect.Arr(Expect.O("ArgsTest.Holder`1", "Item", Expect.S("h"), "Count", Expect.I(2))),
                        Expect.Null(),
                        Expect.O("ArgsTest.Bag`1", "Items", Expect.Arr(Expect.S("i"), Expect.Null()),
                                 "Rows", Expect.Null(), "Grid", Expect.Md(new[] { 0, 0 })));
            Generic.Deeper(sjag, shold, null, new Bag<string> { Items = new[] { "i", null }, Grid = new string[0, 0] });
            var pjag = new[] { new[] { pt } };
            Expect.Call(G + "Deeper", null, Expect.Arr(Expect.Arr(EPoint(pt))), Expect.Arr(Expect.Arr(EPoint(pt))),
                        Expect.Arr(), Expect.Arr(Expect.Arr(Expect.Arr(EPoint(pt)))), Expect.Null());
            Generic.Deeper(pjag, new Holder<Point>[0], new[] { new[] { new[] { pt } } }, null);
            string both = Generic.Both(42, "s", new[] { 1, 2 });
            Expect.Call(G + "Both", null, Expect.S(both), Expect.I(42), Expect.S("s"),
                        Expect.Arr(Expect.I(1), Expect.I(2)));
            both = Generic.Both("t", pt, null);
            Expect.Call(G + "Both", null, Expect.S(both), Expect.S("t"), EPoint(pt), Expect.Null());

            var si = new Slot<int> { Value = 9, Hits = 1 };
            Expect.Call("ArgsTest.Slot`1::Hit", Expect.O("ArgsTest.Slot`1", "Value", Expect.I(9), "Hits", Expect.I(1)),
                        Expect.I(si.Hit(3)), Expect.I(3));
            var ss = new Slot<string> { Value = "v", Hits = 0 };
            Expect.Call("ArgsTest.Slot`1::Hit", Expect.O("ArgsTest.Slot`1", "Value", Expect.S("v"), "Hits", Expect.I(0)),
                        Expect.I(ss.Hit(null)), Expect.Null());

            const string H = "ArgsTest.Holder`1::";
            var hi = new Holder<int> { Item = 1 };
            Expect.Call(H + "Swap", Expect.O("ArgsTest.Holder`1", "Item", Expect.I(1), "Count", Expect.I(0)),
                        Expect.I(hi.Swap(-2)), Expect.I(-2));
            var hs = new Holder<string> { Item = "a" };
            Expect.Call(H + "Swap", Expect.O("ArgsTest.Holder`1", "Item", Expect.S("a"), "Count", Expect.I(0)),
                        Expect.S(hs.Swap("b")), Expect.S("b"));
            var hp = new Holder<Point> { Item = pt };
            Expect.Call(H + "Swap", Expect.O("ArgsTest.Holder`1", "Item", EPoint(pt), "Count", Expect.I(0)),
                        EPoint(hp.Swap(new Point { X = 1, Y = 1 })), EPoint(new Point { X = 1, Y = 1 }));
        }

        static void ArrayCalls()
        {
            const string M = "ArgsTest.More::";
            var g = new int[2, 3] { { 1, 2, 3 }, { 4, 5, int.MinValue } };
            var s3 = new string[2, 1, 2] { { { "a", null } }, { { "\u00e9", "" } } };
            var pg = new Point[1, 2] { { new Point { X = 1, Y = 2 }, new Point { X = -3, Y = 4 } } };
            var cg = new Color[2, 2] { { Color.Red, Color.Blue }, { Color.Green, Color.Red } };
            int n = More.Grids(g, s3, pg, cg, new double[0, 3]);
            Expect.Call(M + "Grids", null, Expect.I(n),
                        Expect.Md(new[] { 2, 3 }, Expect.I(1), Expect.I(2), Expect.I(3), Expect.I(4),
                                  Expect.I(5), Expect.I(int.MinValue)),
                        Expect.Md(new[] { 2, 1, 2 }, Expect.S("a"), Expect.Null(), Expect.S("\u00e9"),
                                  Expect.S("")),
                        Expect.Md(new[] { 1, 2 }, EPoint(pg[0, 0]), EPoint(pg[0, 1])),
                        Expect.Md(new[] { 2, 2 }, Expect.I(1), Expect.I(200), Expect.I(2), Expect.I(1)),
                        Expect.Md(new[] { 0, 3 }));
            n = More.Grids(new int[0, 0], new string[1, 1, 1], new Point[0, 1], new Color[1, 0],
                           new double[1, 1] { { double.NegativeInfinity } });
            Expect.Call(M + "Grids", null, Expect.I(n), Expect.Md(new[] { 0, 0 }),
                        Expect.Md(new[] { 1, 1, 1 }, Expect.Null()), Expect.Md(new[] { 0, 1 }),
                        Expect.Md(new[] { 1, 0 }), Expect.Md(new[] { 1, 1 }, Expect.D(double.NegativeInfinity)));
            More.MakeGrid(3, 2);
            Expect.Call(M + "MakeGrid",
                        null, Expect.Md(new[] { 3, 2 }, Expect.I(0), Expect.I(1), Expect.I(10), Expect.I(11),
                                        Expect.I(20), Expect.I(21)),
                        Expect.I(3), Expect.I(2));

            var deep = new int[][][] { new[] { new[] { 1, 2 }, null, new int[0] }, null, new int[0][] };
            var ss = new string[][] { new[] { "x" }, null, new string[] { null, "y\u4e2d" } };
            n = More.Deep(deep, ss);
            Expect.Call(M + "Deep", null, Expect.I(n),
                        Expect.Arr(Expect.Arr(Expect.Arr(Expect.I(1), Expect.I(2)), Expect.Null(), Expect.Arr()),
                                   Expect.Null(), Expect.Arr()),
                        Expect.Arr(Expect.Arr(Expect.S("x")), Expect.Null(),
                                   Expect.Arr(Expect.Null(), Expect.S("y\u4e2d"))));

            var ps = new[] { new Point { X = int.MaxValue, Y = int.MinValue }, new Point { X = 0, Y = 7 } };
            var ms = new[] { new Mixed { I = -1, D = -0.0 }, new Mixed { I = 2, D = double.NaN },
                             new Mixed { I = 3, D = 1e-310 } };
            var ls = new[] { new Large { A = long.MinValue, B = 0, C = long.MaxValue, S = "big" },
                             new Large { S = null } };
            var os = new[] { new Outer { M = new Mixed { I = 5, D = 0.5 }, B = 255 } };
            var r = new Point { X = 10, Y = 20 };
            n = More.Structs(ps, ms, ls, os, ref r);
            Expect.Call(M + "Structs", null, Expect.I(n),
                        Expect.Arr(EPoint(ps[0]), EPoint(ps[1])),
                        Expect.Arr(EMixed(ms[0]), EMixed(ms[1]), EMixed(ms[2])),
                        Expect.Arr(Expect.O("ArgsTest.Large", "A", Expect.Wide(long.MinValue), "B", Expect.Wide(0),
                                            "C", Expect.Wide(long.MaxValue), "S", Expect.S("big")),
                                   Expect.O("ArgsTest.Large", "A", Expect.Wide(0), "B", Expect.Wide(0),
                                            "C", Expect.Wide(0), "S", Expect.Null())),
                        Expect.Arr(Expect.O("ArgsTest.Outer", "M", EMixed(os[0].M), "B", Expect.I(255))),
                        Expect.Ref(EPoint(new Point { X = 10, Y = 20 })));
            var guid = new Guid("00112233-4455-6677-8899-aabbccddeeff");
            var dt = new DateTime(2026, 11, 24, 8, 0, 0, DateTimeKind.Utc);
            var rs = TimeSpan.FromDays(-3);
            var spans = new[] { TimeSpan.MaxValue, TimeSpan.Zero, TimeSpan.FromMilliseconds(-1.5) };
            n = More.Foreign(DayOfWeek.Saturday, DateTimeKind.Local, TimeSpan.MinValue, guid, dt, ConsoleKey.Escape,
                             new[] { DayOfWeek.Sunday, DayOfWeek.Friday }, spans, ref rs);
            Expect.Call(M + "Foreign", null, Expect.I(n), Expect.Reflect(DayOfWeek.Saturday),
                        Expect.Reflect(DateTimeKind.Local), Expect.Reflect(TimeSpan.MinValue),
                        Expect.Reflect(guid), Expect.Reflect(dt), Expect.Reflect(ConsoleKey.Escape),
                        Expect.Arr(Expect.Reflect(DayOfWeek.Sunday), Expect.Reflect(DayOfWeek.Friday)),
                        Expect.Arr(Expect.Reflect(spans[0]), Expect.Reflect(spans[1]), Expect.Reflect(spans[2])),
                        Expect.Ref(Expect.Reflect(TimeSpan.FromDays(-3))));
            Expect.Call(M + "MakeSpan", null, Expect.Reflect(More.MakeSpan(long.MinValue + 1)),
                        Expect.Wide(long.MinValue + 1));
            Expect.Call(M + "Tomorrow", null, Expect.Reflect(More.Tomorrow(DayOfWeek.Saturday)),
                        Expect.Reflect(DayOfWeek.Saturday));
            var kv = new KeyValuePair<int, string>(-4, "four");
            var pairs = new[] { new KeyValuePair<string, Point>("p", new Point { X = 1, Y = 2 }),
                                new KeyValuePair<string, Point>(null, default) };
            var tup = (long.MinValue, Color.Green);
            n = More.Instances(kv, pairs, tup, 12, null);
            Expect.Call(M + "Instances", null, Expect.I(n), Expect.Reflect(kv),
                        Expect.Arr(Expect.Reflect(pairs[0]), Expect.Reflect(pairs[1])), Expect.Reflect(tup),
                        Expect.Reflect((int?)12), Expect.Reflect(default(Nullable<int>)));
            Expect.Call(M + "MakePair", null, Expect.Reflect(More.MakePair("k\u00e9", int.MaxValue)),
                        Expect.S("k\u00e9"), Expect.I(int.MaxValue));
            var ph = new PairHolder { Kv = new KeyValuePair<int, string>(int.MinValue, "kv \u00e9"), Tail = 5 };
            var ob = new OptBox { N = -12, P = new KeyValuePair<string, int>("p", int.MaxValue), B = 255 };
            var ob0 = new OptBox { N = null, P = default, B = 1 };
            foreach (var o in new[] { ob, ob0 })
            {
                n = More.GenericFields(ph, o);
                Expect.Call(M + "GenericFields", null, Expect.I(n), Expect.Reflect(ph),
                            Expect.O("ArgsTest.OptBox", "N", Expect.Reflect(o.N), "P", Expect.Reflect(o.P),
                                     "B", Expect.I(o.B)));
            }
            {
                var wa = new Wrap<int> { Inner = new Cell<int> { Item = -12, Tag = 13 }, Direct = 14 };
                var wb = new Wrap<string> { Inner = new Cell<string> { Item = "wrapped \u00e9", Tag = 15 }, Direct = null };
                var wc = new Nest<Point> { In = new Cell<Point> { Item = new Point { X = 16, Y = -17 }, Tag = 18 },
                                           V = new Point { X = 19, Y = 20 } };
                object wd = new Wrap<long> { Inner = new Cell<long> { Item = long.MinValue, Tag = 21 }, Direct = 22 };
                n = More.Wrapped(wa, wb, wc, wd);
                Expect.Call(M + "Wrapped", null, Expect.I(n), Expect.Reflect(wa), Expect.Reflect(wb),
                            Expect.Reflect(wc), Expect.Reflect(wd));
            }
            int ti = -77;
            string ts = "typed \u00e9";
            var tp = new Point { X = 8, Y = -9 };
            n = More.Typed(__makeref(ti), __makeref(ts), __makeref(tp));
            Expect.Call(M + "Typed", null, Expect.I(n), Expect.TRef("System.Int32", Expect.I(-77)),
                        Expect.TRef("System.String", Expect.S(ts)), Expect.TRef("ArgsTest.Point", EPoint(tp)));
            More.MakePoints(3);
            Expect.Call(M + "MakePoints", null,
                        Expect.Arr(EPoint(new Point { X = 0, Y = 0 }), EPoint(new Point { X = 1, Y = -1 }),
                                   EPoint(new Point { X = 2, Y = -2 })),
                        Expect.I(3));
        }

        static string ENode(Node n, int depth)
        {
            if (n == null)
                return Expect.Null();
            string cls = n is Heavy ? "ArgsTest.Heavy" : "ArgsTest.Node";
            if (depth > 3)
                return Expect.Obj(cls);
            var kv = new List<string> { "Id", Expect.I(n.Id), "Name", Expect.S(n.Name),
                                        "Next", ENode(n.Next, depth + 1) };
            if (n is Heavy h)
                kv.AddRange(new[] { "Weight", Expect.D(h.Weight), "Tint", E(h.Tint),
                                    "Data", h.Data == null ? Expect.Null()
                                                           : Expect.Arr(Expect.I(h.Data[0])) });
            return Expect.O(cls, kv.ToArray());
        }

        static string EMixed(Mixed m) =>
            Expect.O("ArgsTest.Mixed", "I", Expect.I(m.I), "D", Expect.D(m.D));

        static void ObjectCalls()
        {
            var chain = new Node { Id = 1, Name = "one", Next = new Heavy { Id = 2, Name = null,
                Weight = -2.5, Tint = Color.Blue, Data = new[] { 9 },
                Next = new Node { Id = 3, Name = "\u00fe", Next = new Node { Id = 4 } } } };
            var mixed = new Mixed { I = -7, D = 0.125 };
            var large = new Large { A = long.MinValue, B = 2, C = -3, S = "large" };
            var outer = new Outer { M = new Mixed { I = 5, D = double.NaN }, B = 255 };
            foreach (object o in new object[] { 42, Color.Blue, "text", 3.5, null, chain })
            {
                int r = More.Objects(o, chain, mixed, large, outer);
                string eo = o == null ? Expect.Null()
                    : o is int i ? Expect.O("System.Int32", "m_value", Expect.I(i))
                    : o is Color c ? Expect.O("ArgsTest.Color", "value__", E(c))
                    : o is string str ? Expect.S(str)
                    : o is double d ? Expect.O("System.Double", "m_value", Expect.D(d))
                    : ENode((Node)o, 1);
                Expect.Call(M + "Objects", null, Expect.I(r), eo, ENode(chain, 1), EMixed(mixed),
                            Expect.O("ArgsTest.Large", "A", Expect.Wide(large.A), "B",
                                     Expect.Wide(large.B), "C", Expect.Wide(large.C), "S",
                                     Expect.S(large.S)),
                            Expect.O("ArgsTest.Outer", "M", EMixed(outer.M), "B", Expect.I(outer.B)));
            }
            Mixed mr = More.MakeMixed(11, -0.0);
            Expect.Call(M + "MakeMixed", null, EMixed(mr), Expect.I(11), Expect.D(-0.0));
            Node nr = More.MakeNode(8, "eight");
            Expect.Call(M + "MakeNode", null, ENode(nr, 1), Expect.I(8), Expect.S("eight"));
        }

        static int Main(string[] argv)
        {
            if (argv.Length == 2 && argv[0] == "statics")
                return StaticsTest.Run(argv[1]);
            if (argv.Length != 1)
            {
                Console.Error.WriteLine("usage: IlmapArgsTest <expected.jsonl> | statics <expected.jsonl>");
                return 2;
            }
            Ints(sbyte.MinValue, byte.MaxValue, short.MinValue, ushort.MaxValue, int.MinValue,
                 uint.MaxValue, long.MinValue, ulong.MaxValue, nint.MinValue, nuint.MaxValue);
            Ints(sbyte.MaxValue, byte.MinValue, short.MaxValue, ushort.MinValue, int.MaxValue,
                 uint.MinValue, long.MaxValue, ulong.MinValue, nint.MaxValue, nuint.MinValue);
            Ints(-1, 1, -1, 1, -1, 1, -1, 1, -1, 1);

            double[] doubles = { 0.0, -0.0, 1.0, -1.5, 0.1, 1.0 / 3.0, double.MaxValue,
                                 double.MinValue, double.Epsilon, 1e-310, double.NaN,
                                 double.PositiveInfinity, double.NegativeInfinity, 123456789.125 };
            float[] floats = { 0.0f, -0.0f, 1.0f, 0.1f, float.MaxValue, float.MinValue,
                               float.Epsilon, 1e-40f, float.NaN, float.PositiveInfinity,
                               float.NegativeInfinity, 16777217.0f, 3.14159274f, -2.5e-20f };
            for (int k = 0; k < doubles.Length; k++)
                Floats(floats[k], doubles[k]);
            foreach (float f in floats)
                Single(f);

            foreach (var (c, up) in new[] { ('a', true), ('\0', true), ('"', false), ('\\', true),
                                            ('\u00e9', true), ('\u4e2d', false), ('\ud800', true),
                                            ('\uffff', false), ('\n', true) })
            {
                char r = Prims.NextChar(c, up);
                Expect.Call(P + "NextChar", null, Expect.C(r), Expect.C(c), Expect.B(up));
            }
            foreach (bool b in new[] { true, false })
                Expect.Call(P + "Not", null, Expect.B(Prims.Not(b)), Expect.B(b));
            Expect.Call(P + "MaxU", null, Expect.UWide(Prims.MaxU(ulong.MaxValue, 1)),
                        Expect.UWide(ulong.MaxValue), Expect.UWide(1));

            Join("plain", "ascii");
            Join("caf\u00e9 \u00fcber \u4e2d\u6587 \u0440\u0443\u0441", "\U0001F600 emoji");
            Join("quote \" backslash \\ slash / tab \t nl \n cr \r nul \0 bell \a", "\u007f\u0080");
            Join("lone \ud800 high", "lone \udc00 low");
            Join("", "");
            Join(null, "x");
            Join("y", null);
            Join(new string('x', 3000), "\u2028\u2029");

            Expect.Call(P + "Seven", null, Expect.I(Prims.Seven()));
            var counter = new Counter();
            for (int k = 0; k < 3; k++)
                Expect.Call("ArgsTest.Counter::Next", Expect.O("ArgsTest.Counter", "n", Expect.I(k)),
                            Expect.I(counter.Next()));
            Prims.Nothing(7, "seven");
            Expect.Call(P + "Nothing", null, null, Expect.I(7), Expect.S("seven"));
            Prims.Nothing(-7, null);
            Expect.Call(P + "Nothing", null, null, Expect.I(-7), Expect.S(null));

            Prims.Fact(5);
            for (int n = 1, f = 1; n <= 5; n++, f *= n)
                Expect.Call(P + "Fact", null, Expect.I(f), Expect.I(n));

            var pt = new Point { X = 3, Y = 4 };
            int o = Prims.Other(new Box(), pt, new int[] { 1, 2 });
            string ept = Expect.O("ArgsTest.Point", "X", Expect.I(3), "Y", Expect.I(4));
            Expect.Call(P + "Other", null, Expect.I(o), Expect.O("ArgsTest.Box", "Value", Expect.I(0)),
                        ept, Expect.Arr(Expect.I(1), Expect.I(2)));
            o = Prims.Other(null, pt, null);
            Expect.Call(P + "Other", null, Expect.I(o), "[\"null\",\"\"]", ept,
                        "[\"null\",\"\"]");

            var box = new Box();
            Expect.Call("ArgsTest.Box::Add", Expect.O("ArgsTest.Box", "Value", Expect.I(0)),
                        Expect.I(box.Add(5)),
                        Expect.I(5));
            Box derived = new DerivedBox();
            Expect.Call("ArgsTest.Box::Add", Expect.O("ArgsTest.DerivedBox", "Value", Expect.I(0)),
                        Expect.I(derived.Add(-9)), Expect.I(-9));
            Expect.Call("ArgsTest.Point::Sum", EPoint(pt), Expect.I(pt.Sum(10)),
                        Expect.I(10));

            MoreCalls();

            // More calls than ILMAP_SHIM_ARGS_MAX, on four threads at once:
            // the runner checks that calls 1..max are each reported once.
            var threads = new Thread[4];
            long total = 0;
            for (int t = 0; t < threads.Length; t++)
            {
                threads[t] = new Thread(() =>
                {
                    long sum = 0;
                    for (int i = 0; i < 500; i++)
                        sum += Many.Counted(i);
                    Interlocked.Add(ref total, sum);
                });
                threads[t].Start();
            }
            foreach (var t in threads)
                t.Join();

            Expect.Write(argv[0]);
            Console.WriteLine("done " + total);
            return 0;
        }
    }
}
