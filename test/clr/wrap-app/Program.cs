// The program of the clr suite's wrap test (run-wrap.py), run twice:
// plainly and under the shim with ILMAP_SHIM_WRAP (or ILMAP_SHIM_WRAP_LATE)
// selecting the types of Wrapped.cs, wrapped in the hooks of ../wrap-hooks
// (loaded by a startup hook in both runs). Its stdout must be the same
// both times, so it depends on no timing, hashing or thread order. Its
// argument is run-wrap.py's mode: methods runs the calls once, late and
// tiering run them twice (see Main).
//
// Every call of a wrapped method made from here prints one line:
//   call <Ns.Type>::<Method>(<args>) -> <result>
//   call <Ns.Type>::<Method>(<args>) threw <exception's FullName>: <Message>
// with <result> "void", "null" or "<the value's type FullName>:<value>"
// (Format below, the hooks' format), so that run-wrap.py finds each
// call's End record in the hooks' log. Lines of other kinds say what the
// calls did besides (out and ref values, side effects, a stack trace).
//
// `IlmapWrapTest methods <selectors>` prints instead, one JSON line each,
// the methods the selectors name (ILMAP_SHIM_WRAP's syntax): their
// "Type::Method" name, metadata token, whether instance constructor,
// static constructor, static, of a value type, generic (type or method),
// and the types `this` may have.
using System;
using System.Collections.Generic;
using System.Globalization;
using System.Reflection;
using System.Runtime.CompilerServices;
using System.Runtime.Loader;
using System.Text;
using System.Threading;

namespace WrapTest
{
    public static class Program
    {
        /// <summary>Side effects the program reports (a static
        /// constructor's).</summary>
        public static readonly List<string> Events = new List<string>();

        private static readonly object Void = new object();

        public static int Main(string[] argv)
        {
            if (argv.Length == 2 && argv[0] == "methods")
                return ListMethods(argv[1]);
            string mode = argv.Length == 1 ? argv[0] : argv.Length == 0 ? "methods" : null;
            if (mode != "methods" && mode != "late" && mode != "tiering")
            {
                Console.Error.WriteLine("usage: IlmapWrapTest [methods|late|tiering] | " +
                                        "IlmapWrapTest methods <selectors>");
                return 2;
            }
            // The shim requests its ReJITs when the module loads (methods,
            // tiering) or when a method is first compiled (late); once they
            // are made, the next call of each method runs wrapped.
            IlmapTesting.ShimProgress.WaitForReJits();
            Run();
            Collectible();
            if (mode == "methods")
                return 0;
            IlmapTesting.ShimProgress.WaitForReJits();
            if (mode == "tiering")
            {
                // Tier-up of wrapped bodies (in the background): calls
                // that print nothing, until the shim has read a second
                // native body of the wrapped version (the plain run
                // returns at once).
                IlmapTesting.ShimProgress.RunUntilBodies("WrapTest.Shapes::Fib", 2, () => Shapes.Fib(12));
                IlmapTesting.ShimProgress.RunUntilBodies("WrapTest.Shapes::Filtered", 2, () =>
                {
                    for (int x = 2; x <= 13; x++)
                        Shapes.Filtered(x);
                });
            }
            // The same calls again: in mode late the first pass ran them
            // before their ReJIT (each method is wrapped once compiled),
            // this one runs them wrapped; in mode tiering some run in
            // their optimized wrapped bodies.
            Console.WriteLine("second pass");
            Run();
            Collectible();
            return 0;
        }

        /// <summary>Two cycles of a copy of this assembly in a collectible
        /// context: calls of its wrapped methods (the runtime does not
        /// rejit collectible code, so the shim wraps them when they are
        /// compiled), then the context unloaded.</summary>
        private static void Collectible()
        {
            for (int cycle = 0; cycle < 2; cycle++)
            {
                WeakReference alive = CollectibleCalls(cycle);
                for (int i = 0; i < 100 && alive.IsAlive; i++)
                {
                    GC.Collect();
                    GC.WaitForPendingFinalizers();
                }
                Console.WriteLine("collectible copy " + cycle + ": " + (alive.IsAlive ? "still alive" : "unloaded"));
            }
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static WeakReference CollectibleCalls(int cycle)
        {
            var context = new AssemblyLoadContext("wrapped copy " + cycle, isCollectible: true);
            Assembly copy = context.LoadFromAssemblyPath(typeof(Program).Assembly.Location);
            Type shapes = copy.GetType("WrapTest.Shapes", true);
            // No exception thrown in the copies: under wine a second
            // collectible copy's throw hangs the process, profiler or not
            // (shim/FINDINGS.md#emulated-runtimes).
            int n = 6 + cycle;
            Call("Shapes::Fib", n.ToString(), () => shapes.GetMethod("Fib").Invoke(null, new object[] { n }));
            Call("Shapes::Classify", n.ToString(),
                 () => shapes.GetMethod("Classify").Invoke(null, new object[] { n }));
            context.Unload();
            return new WeakReference(context);
        }

        /// <summary>The hooks' format of a value.</summary>
        public static string Format(object value)
        {
            if (value == null)
                return "null";
            return value.GetType().FullName + ":" + Convert.ToString(value, CultureInfo.InvariantCulture);
        }

        private static string Line(string method, string args, Func<object> call)
        {
            string head = "call WrapTest." + method + "(" + args + ")";
            object result;
            try
            {
                result = call();
            }
            catch (Exception e)
            {
                return head + " threw " + e.GetType().FullName + ": " + e.Message;
            }
            return head + " -> " + (ReferenceEquals(result, Void) ? "void" : Format(result));
        }

        private static void Call(string method, string args, Func<object> call)
        {
            Console.WriteLine(Line(method, args, call));
        }

        private static void CallVoid(string method, string args, Action call)
        {
            Console.WriteLine(Line(method, args, () =>
            {
                call();
                return Void;
            }));
        }

        private static string Show<T>(T[] a) => "[" + string.Join(",", a) + "]";

        /// <summary>Calls outer(4), which throws through two wrapped
        /// methods, and prints the exception with its stack trace.</summary>
        [MethodImpl(MethodImplOptions.NoInlining)]
        private static void Trace(string name, Func<int, int> outer)
        {
            try
            {
                outer(4);
                Console.WriteLine("call WrapTest.Shapes::" + name + "(4) did not throw");
            }
            catch (Exception e)
            {
                Console.WriteLine("call WrapTest.Shapes::" + name + "(4) threw " + e.GetType().FullName +
                                  ": " + e.Message);
                Console.WriteLine("stack trace of " + name + "(4):");
                Console.WriteLine(e.ToString());
            }
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static void Run()
        {
            for (int k = 1; k <= 3; k++)
                CallVoid("Shapes::Touch", k.ToString(), () => Shapes.Touch(k));
            Call("Shapes::Touched", "", () => Shapes.Touched());
            Call("Shapes::Add", "2, 3", () => Shapes.Add(2, 3));
            Call("Shapes::Add", "-7, 7", () => Shapes.Add(-7, 7));
            for (int x = -1; x <= 7; x++)
                Call("Shapes::Classify", x.ToString(), () => Shapes.Classify(x));
            for (int x = 0; x <= 4; x++)
                Call("Shapes::Nested", x.ToString(), () => Shapes.Nested(x));
            foreach (int n in new[] { 0, 1, 5, 12, 30 })
                Call("Shapes::Loops", n.ToString(), () => Shapes.Loops(n));
            foreach (int n in new[] { 0, 1, 2, 10 })
                Call("Shapes::Fib", n.ToString(), () => Shapes.Fib(n));
            CallVoid("Shapes::Fail", "\"nope\"", () => Shapes.Fail("nope"));
            CallVoid("Shapes::Fail", "\"again\"", () => Shapes.Fail("again"));
            Call("Shapes::FailInt", "5", () => Shapes.FailInt(5));
            Call("Shapes::Inner", "2", () => Shapes.Inner(2));
            Call("Shapes::Middle", "1", () => Shapes.Middle(1));
            Call("Shapes::Outer", "0", () => Shapes.Outer(0));
            // Through Inner, Middle and Outer to here: the whole stack
            // trace with file:line, which the wrap must not change; in
            // unoptimized and in optimized callers.
            Trace("Outer", Shapes.Outer);
            Trace("OuterOpt", Shapes.OuterOpt);
            Call("Shapes::OuterOpt", "0", () => Shapes.OuterOpt(0));
            Call("Shapes::MiddleOpt", "1", () => Shapes.MiddleOpt(1));
            for (int x = 2; x <= 13; x++)
                Call("Shapes::Filtered", x.ToString(), () => Shapes.Filtered(x));
            Call("Shapes::Risky", "5", () => Shapes.Risky(5));
            Call("Shapes::Risky", "6", () => Shapes.Risky(6));
            Call("Shapes::Accept", "\"long message\"", () => Shapes.Accept(new Exception("long message")));
            foreach (int n in new[] { 0, 1, 4, 9 })
                Call("Shapes::StackSum", n.ToString(), () => Shapes.StackSum(n));
            Call("Shapes::IsEven", "4", () => Shapes.IsEven(4));
            Call("Shapes::IsEven", "7", () => Shapes.IsEven(7));
            Call("Shapes::Half", "3", () => Shapes.Half(3));
            Call("Shapes::Half", "-0.2", () => Shapes.Half(-0.2));
            Call("Shapes::Widen", "3", () => Shapes.Widen(3));
            Call("Shapes::Widen", "-1", () => Shapes.Widen(-1));
            for (int x = 0; x < 4; x++)
                Call("Shapes::ColorOf", x.ToString(), () => Shapes.ColorOf(x));
            Call("Shapes::Maybe", "4", () => Shapes.Maybe(4));
            Call("Shapes::Maybe", "-4", () => Shapes.Maybe(-4));
            Call("Shapes::Squares", "4", () => Shapes.Squares(4));
            Console.WriteLine("squares " + Show(Shapes.Squares(5)));
            for (int x = 0; x <= 4; x++)
                Call("Shapes::Boxed", x.ToString(), () => Shapes.Boxed(x));
            foreach (int x in new[] { 8, 9 })
            {
                int half = -100;
                Call("Shapes::TryHalve", x + ", out", () => Shapes.TryHalve(x, out half));
                Console.WriteLine("out half " + half);
            }
            int a = 3, b = 10;
            Call("Shapes::Swap", "ref 3, ref 10", () => Shapes.Swap(ref a, ref b));
            Console.WriteLine("ref a " + a + ", b " + b);
            Call("Shapes::Pick", "<int>(true, 1, 2)", () => Shapes.Pick(true, 1, 2));
            Call("Shapes::Pick", "<string>(false, \"x\", \"y\")", () => Shapes.Pick(false, "x", "y"));
            Call("Shapes::Pick", "<Point>(true, (1,2), (3,4))",
                 () => Shapes.Pick(true, new Point(1, 2), new Point(3, 4)));
            Call("Shapes::Pick", "<object>(false, 1, null)", () => Shapes.Pick<object>(false, 1, null));

            var ada = new Person("Ada");
            Console.WriteLine("made a Person");
            Call("Person::get_Name", "", () => ada.Name);
            Call("Person::Greet", "\"Bob\"", () => ada.Greet("Bob"));
            Call("Person::Where", "5", () => ada.Where(5));
            Call("Person::Where", "-1", () => ada.Where(-1));
            var p = new Point(2, 5);
            Call("Point::Sum", "", () => p.Sum());
            Call("Point::ToString", "", () => p.ToString());

            var gi = new Gen<int>(42);
            var gs = new Gen<string>("forty-two");
            var gn = new Gen<string>(null);
            Call("Gen`1::Get", "<int>", () => gi.Get());
            Call("Gen`1::Get", "<string>", () => gs.Get());
            Call("Gen`1::Get", "<string> null", () => gn.Get());
            Call("Gen`1::Describe", "<int>", () => gi.Describe());
            Call("Gen`1::Describe", "<string>", () => gs.Describe());

            Animal animal = new Animal(), dog = new Dog();
            Call("Animal::Sound", "on Animal", () => animal.Sound());
            Call("Dog::Sound", "on Dog", () => dog.Sound());
            Call("Animal::Speak", "on Animal", () => animal.Speak());
            Call("Animal::Speak", "on Dog", () => dog.Speak());
            IShape shape = new Square(7);
            Call("Square::Area", "", () => shape.Area());

            Console.WriteLine("events before Config: " + Events.Count);
            Call("Config::Next", "", () => Config.Next());
            Console.WriteLine("events after Config: " + string.Join("; ", Events));
            Call("Config::Next", "", () => Config.Next());
            Call("Config::Describe", "", () => Config.Describe());

            var ht = new HookThrows();
            Call("HookThrows::Value", "1", () => ht.Value(1));
            Call("HookThrows::Value", "2", () => ht.Value(2));

            // Wrapped methods on a second thread (each thread has its own
            // Begin/End stack in the hooks); printed after the join.
            var lines = new List<string>();
            var worker = new Thread(() =>
            {
                lines.Add(Line("Shapes::Fib", "8", () => Shapes.Fib(8)));
                lines.Add(Line("Shapes::Nested", "2", () => Shapes.Nested(2)));
                lines.Add(Line("Person::Greet", "\"Thread\"", () => ada.Greet("Thread")));
                lines.Add(Line("Shapes::Fail", "\"on a thread\"", () =>
                {
                    Shapes.Fail("on a thread");
                    return Void;
                }));
            });
            worker.Start();
            worker.Join();
            foreach (string line in lines)
                Console.WriteLine(line);
            Console.WriteLine("done");
        }

        /// <summary>The methods the selectors name, as JSON lines.</summary>
        private static int ListMethods(string selectors)
        {
            const BindingFlags all = BindingFlags.DeclaredOnly | BindingFlags.Public |
                                     BindingFlags.NonPublic | BindingFlags.Instance |
                                     BindingFlags.Static;
            Assembly asm = typeof(Program).Assembly;
            var sb = new StringBuilder();
            foreach (string item in selectors.Split(';', StringSplitOptions.RemoveEmptyEntries))
            {
                int sep = item.IndexOf("::", StringComparison.Ordinal);
                Type type = sep > 0 ? asm.GetType(item.Substring(0, sep)) : null;
                if (type == null)
                {
                    Console.Error.WriteLine("no type for selector " + item);
                    return 3;
                }
                string name = item.Substring(sep + 2);
                var members = new List<MethodBase>();
                members.AddRange(type.GetConstructors(all));
                members.AddRange(type.GetMethods(all));
                var self = new List<string>();
                foreach (Type t in asm.GetTypes())
                    if (type.IsAssignableFrom(t) || (type.IsGenericTypeDefinition && t == type))
                        self.Add(t.FullName);
                self.Sort(StringComparer.Ordinal);
                foreach (MethodBase m in members)
                {
                    if (name != "*" && m.Name != name)
                        continue;
                    bool noThis = m.IsStatic || type.IsValueType;
                    sb.Append("{\"method\":\"").Append(type.FullName).Append("::").Append(m.Name)
                      .Append("\",\"token\":\"0x")
                      .Append(m.MetadataToken.ToString("X8", CultureInfo.InvariantCulture))
                      .Append("\",\"ctor\":").Append(m is ConstructorInfo && !m.IsStatic ? "true" : "false")
                      .Append(",\"cctor\":").Append(m is ConstructorInfo && m.IsStatic ? "true" : "false")
                      .Append(",\"static\":").Append(m.IsStatic ? "true" : "false")
                      .Append(",\"value_type\":").Append(type.IsValueType ? "true" : "false")
                      .Append(",\"generic\":")
                      .Append(type.IsGenericTypeDefinition || m.IsGenericMethodDefinition ? "true" : "false")
                      .Append(",\"this\":[");
                    if (!noThis)
                        sb.Append("\"").Append(string.Join("\",\"", self)).Append("\"");
                    sb.Append("]}\n");
                }
            }
            Console.Write(sb.ToString());
            return 0;
        }
    }
}
