// The methods the clr suite's wrap test (run-wrap.py) has the shim wrap
// (ILMAP_SHIM_WRAP): every type here is selected with `Type::*` (the
// constructors with it, which the shim refuses), except HookThrows, of
// which only Value is. One shape of body each: void, values of every
// kind, switch, nested try/catch/finally with a filter and returns inside
// try blocks, goto, recursion, methods that only throw, an exception
// passing through two wrapped methods, stackalloc, out/ref parameters,
// generics of the type and of the method, virtual and interface methods,
// a static constructor, methods of a value type. No method name occurs
// twice in one type (run-wrap.py names methods by "Type::Method").
using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;

namespace WrapTest
{
    public enum Color { Red, Green, Blue }

    public static class Shapes
    {
        private static int touched;

        /// <summary>Static void.</summary>
        public static void Touch(int by)
        {
            touched += by;
        }

        public static int Touched() => touched;

        public static int Add(int a, int b) => a + b;

        /// <summary>A C# switch over dense cases: an IL switch.</summary>
        public static string Classify(int x)
        {
            switch (x)
            {
                case 0: return "zero";
                case 1: return "one";
                case 2:
                case 3: return "few";
                case 4: return "four";
                case 5: return "five";
                case 6: return "six";
                default: return "many";
            }
        }

        /// <summary>Nested try/catch/finally, an exception filter, returns
        /// inside try blocks (leave to the return).</summary>
        public static string Nested(int x)
        {
            string log = "";
            try
            {
                try
                {
                    if (x == 0)
                        return "early";
                    if (x == 1)
                        throw new InvalidOperationException("one");
                    if (x == 2)
                        throw new ArgumentException("two");
                    log += "body;";
                }
                catch (InvalidOperationException e) when (e.Message == "one")
                {
                    log += "filtered;";
                }
                finally
                {
                    log += "inner-finally;";
                }
                if (x == 3)
                    return log + "three";
            }
            catch (ArgumentException e)
            {
                log += "caught " + e.Message + ";";
            }
            finally
            {
                log += "outer-finally;";
            }
            return log;
        }

        /// <summary>goto and loops.</summary>
        public static int Loops(int n)
        {
            int total = 0, i = 0;
        again:
            if (i >= n)
                goto done;
            for (int j = 0; j < i; j++)
            {
                if (j == 3)
                    continue;
                total += j;
            }
            while (total > 100)
                total -= 7;
            i++;
            goto again;
        done:
            do
            {
                total++;
            } while (total % 5 != 0);
            return total;
        }

        public static int Fib(int n) => n < 2 ? n : Fib(n - 1) + Fib(n - 2);

        /// <summary>Only throws (void).</summary>
        public static void Fail(string message)
        {
            throw new InvalidOperationException(message);
        }

        /// <summary>Only throws (no ret in its IL).</summary>
        public static int FailInt(int x)
        {
            throw new NotSupportedException("no int for " + x);
        }

        // An exception thrown by Inner passes through Middle and Outer and
        // is caught by the program, which prints its stack trace: the
        // same with and without the wrap. Never inlined, so that each is
        // one frame, and never optimized (optimized code reports a caller's
        // frame at the line after the call, unoptimized code at the call).
        // Statements follow each call, so that a frame reported at the
        // method's end is not mistaken for one at the next line.
        [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.NoOptimization)]
        public static int Outer(int x)
        {
            int y = Middle(x + 1);
            y += 1;
            y *= 2;
            return y;
        }

        [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.NoOptimization)]
        public static int Middle(int x)
        {
            int y = Inner(x * 2);
            y *= 3;
            y -= 1;
            return y;
        }

        // The same in optimized code (tiering is off in both runs): never
        // inlined, but optimized.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int OuterOpt(int x)
        {
            int y = MiddleOpt(x + 1);
            y += 1;
            y *= 2;
            return y;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int MiddleOpt(int x)
        {
            int y = Inner(x * 2);
            y *= 3;
            y -= 1;
            return y;
        }

        [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.NoOptimization)]
        public static int Inner(int x)
        {
            if (x > 4)
                throw new InvalidOperationException("inner failed for " + x);
            x -= 1;
            return x;
        }

        /// <summary>An exception filter that calls a wrapped method, around
        /// a wrapped method that throws.</summary>
        public static int Filtered(int x)
        {
            try
            {
                return Risky(x);
            }
            catch (ArgumentException e) when (Accept(e))
            {
                return -1;
            }
            catch (Exception)
            {
                return -2;
            }
        }

        public static int Risky(int x)
        {
            if (x % 3 == 0)
                throw new ArgumentException("bad " + x);
            if (x % 3 == 1)
                throw new InvalidOperationException("worse " + x);
            return x;
        }

        public static bool Accept(Exception e) => e.Message.Length < 6;

        /// <summary>localloc (inside the wrap's try block).</summary>
        public static int StackSum(int n)
        {
            Span<int> buf = stackalloc int[n];
            for (int i = 0; i < n; i++)
                buf[i] = i * i;
            int sum = 0;
            foreach (int v in buf)
                sum += v;
            return sum;
        }

        public static bool IsEven(int x) => (x & 1) == 0;

        public static double Half(double x) => x / 2;

        public static long Widen(int x) => (long)x << 33;

        public static Color ColorOf(int x) => (Color)(x % 3);

        public static int? Maybe(int x) => x > 0 ? x * 10 : null;

        public static int[] Squares(int n)
        {
            var a = new int[n];
            for (int i = 0; i < n; i++)
                a[i] = i * i;
            return a;
        }

        public static object Boxed(int x)
        {
            switch (x)
            {
                case 0: return null;
                case 1: return 1.5;
                case 2: return "two";
                case 3: return 'c';
                default: return (long)x;
            }
        }

        public static bool TryHalve(int x, out int half)
        {
            half = x / 2;
            return (x & 1) == 0;
        }

        public static int Swap(ref int a, ref int b)
        {
            int t = a;
            a = b;
            b = t;
            return a - b;
        }

        /// <summary>A generic method: returns !!0.</summary>
        public static T Pick<T>(bool first, T a, T b) => first ? a : b;
    }

    public class Person
    {
        /// <summary>Selected with the type, refused by the wrap.</summary>
        public Person(string name)
        {
            Name = name;
        }

        public string Name { get; }

        public string Greet(string other) => "Hello " + other + ", I am " + Name;

        /// <summary>An instance method returning a value type.</summary>
        public Point Where(int k) => new Point(Name.Length, k);
    }

    public struct Point
    {
        public int X;
        public int Y;

        public Point(int x, int y)
        {
            X = x;
            Y = y;
        }

        /// <summary>An instance method of a value type: the hooks get a
        /// null instance.</summary>
        public int Sum() => X + Y;

        /// <summary>Also called by the hooks (formatting a returned
        /// Point): a wrapped method entered from inside End.</summary>
        public override string ToString() => "(" + X + "," + Y + ")";
    }

    public class Gen<T>
    {
        private readonly T value;

        public Gen(T value)
        {
            this.value = value;
        }

        /// <summary>Returns !0.</summary>
        public T Get() => value;

        public string Describe() => "Gen<" + typeof(T).Name + ">(" + value + ")";
    }

    public class Animal
    {
        public virtual string Sound() => "...";

        public string Speak() => GetType().Name + " says " + Sound();
    }

    public class Dog : Animal
    {
        public override string Sound() => "woof " + base.Sound();
    }

    public interface IShape
    {
        int Area();
    }

    public sealed class Square : IShape
    {
        private readonly int side;

        public Square(int side)
        {
            this.side = side;
        }

        public int Area() => side * side;
    }

    /// <summary>A static constructor with a side effect the program sees
    /// (it is selected with the type and refused by the wrap).</summary>
    public static class Config
    {
        public static readonly string Origin;
        private static int next;

        static Config()
        {
            Origin = "set by the static constructor";
            next = 41;
            Program.Events.Add("Config's static constructor ran");
        }

        public static int Next() => ++next;

        public static string Describe() => Origin + ", next " + next;
    }

    /// <summary>The wrapped run's hooks throw in Begin and End for this
    /// type's instances (ILMAP_WRAP_THROW_TYPE): the wrap swallows it.
    /// Only Value is selected.</summary>
    public sealed class HookThrows
    {
        public int Value(int x) => x + 1;
    }
}
