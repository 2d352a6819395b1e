// The field suite's program: real third-party and framework code, driven
// deterministically. stdout is byte-identical on every run (no timing, no
// hash seed, no culture); timing and throughput go to stderr only.
//
//   IlmapField [--iterations N] [--orders N] [--wait-rejits]
//                                              the workload, N times; prints
//                                              iteration 1's output, checks
//                                              that every iteration matches;
//                                              with --wait-rejits, between
//                                              iterations it waits until the
//                                              shim (when present) has made every
//                                              ReJIT request it queued
//                                              (ShimProgress.cs)
//   IlmapField --startup                       a trivial amount of work, then exit
//   IlmapField --exceptions-only [--iterations N] [--wait-rejits]
//                                              only the exceptions' part of
//                                              the workload, N times, its
//                                              output once (Exceptions.cs)
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Threading;

namespace IlmapField
{
    public static class Program
    {
        public static int Main(string[] args)
        {
            CultureInfo.DefaultThreadCurrentCulture = CultureInfo.InvariantCulture;
            CultureInfo.DefaultThreadCurrentUICulture = CultureInfo.InvariantCulture;
            Thread.CurrentThread.CurrentCulture = CultureInfo.InvariantCulture;
            Thread.CurrentThread.CurrentUICulture = CultureInfo.InvariantCulture;
            var stdout = Console.Out;
            stdout.NewLine = "\n";

            int iterations = 3, orderCount = 400;
            bool startup = false, waitReJits = false, exceptionsOnly = false;
            for (int i = 0; i < args.Length; i++)
            {
                switch (args[i])
                {
                    case "--startup": startup = true; break;
                    case "--exceptions-only": exceptionsOnly = true; break;
                    case "--iterations": iterations = int.Parse(args[++i], CultureInfo.InvariantCulture); break;
                    case "--orders": orderCount = int.Parse(args[++i], CultureInfo.InvariantCulture); break;
                    case "--wait-rejits": waitReJits = true; break;
                    default: Console.Error.WriteLine("unknown argument " + args[i]); return 2;
                }
            }

            if (waitReJits && Environment.GetEnvironmentVariable("CORECLR_ENABLE_PROFILING") == "1" &&
                !IlmapTesting.ShimProgress.Present)
            {
                Console.Error.WriteLine("--wait-rejits: the profiler exports no ilmap_shim_wait_rejits");
                return 2;
            }

            if (startup)
            {
                var one = new Order { Id = 1, Customer = "x", Placed = new DateTime(2024, 1, 1, 0, 0, 0, DateTimeKind.Utc) };
                string s = Newtonsoft.Json.JsonConvert.SerializeObject(one);
                stdout.WriteLine("startup " + s.Length);
                return 0;
            }
            if (exceptionsOnly)
            {
                for (int it = 0; it < iterations; it++)
                {
                    if (it > 0 && waitReJits) IlmapTesting.ShimProgress.WaitForReJits();
                    Exceptions.Run(it == 0 ? stdout : TextWriter.Null);
                }
                Exceptions.Write();
                return 0;
            }

            string first = null;
            var total = Stopwatch.StartNew();
            double firstSecs = 0;
            var areaTimes = new Dictionary<string, double>();
            for (int it = 0; it < iterations; it++)
            {
                var o = new StringWriter(CultureInfo.InvariantCulture) { NewLine = "\n" };
                var one = Stopwatch.StartNew();
                RunOnce(o, orderCount, areaTimes);
                one.Stop();
                // The late ReJIT requests the shim queued during the
                // iteration are made before the next one calls the methods
                // again (each then compiles its new version); the output
                // does not depend on it.
                if (waitReJits && it + 1 < iterations) IlmapTesting.ShimProgress.WaitForReJits();
                if (it == 0) firstSecs = one.Elapsed.TotalSeconds;
                string text = o.ToString();
                if (first == null)
                {
                    first = text;
                    stdout.Write(text);
                    stdout.WriteLine("digest " + Fnv.Hash(text));
                }
                else if (text != first)
                {
                    Console.Error.WriteLine("iteration " + it + " differs from the first");
                    return 3;
                }
            }
            total.Stop();
            stdout.WriteLine("all iterations identical");
            stdout.Flush();
            Frames.Write();
            Exceptions.Write();
            double secs = total.Elapsed.TotalSeconds;
            var err = Console.Error;
            foreach (var kv in areaTimes)
                err.WriteLine("time " + kv.Key + ": " + (kv.Value * 1000).ToString("F1", CultureInfo.InvariantCulture) + " ms");
            err.WriteLine("workload: " + iterations + " iterations in " + secs.ToString("F3", CultureInfo.InvariantCulture) + " s");
            // The first iteration pays for JIT and ReJIT: throughput is the
            // steady state of the others (all of them when there is one).
            double steady = iterations > 1 ? (iterations - 1) / (secs - firstSecs) : 1 / secs;
            err.WriteLine("first iteration: " + (firstSecs * 1000).ToString("F1", CultureInfo.InvariantCulture) + " ms");
            err.WriteLine("throughput: " + steady.ToString("F3", CultureInfo.InvariantCulture) + " ops/s");
            return 0;
        }

        private static void RunOnce(TextWriter o, int orderCount, Dictionary<string, double> areaTimes = null)
        {
            areaTimes = areaTimes ?? new Dictionary<string, double>();
            var customers = Data.Customers(120, 42);
            var orders = Data.Orders(orderCount, customers, 7);
            o.WriteLine("orders " + orders.Count + " customers " + customers.Count);
            Time(areaTimes, "newtonsoft", () => NewtonsoftWork.Run(o, orders));
            Time(areaTimes, "stj", () => StjWork.Run(o, orders));
            Time(areaTimes, "regex", () => RegexWork.Run(o, orders));
            Time(areaTimes, "linq", () => LinqWork.Run(o, orders, customers));
            Time(areaTimes, "collections", () => CollectionsWork.Run(o, orders, orderCount * 10));
            Time(areaTimes, "xml", () => XmlWork.Run(o, orders));
            Time(areaTimes, "exceptions", () => Exceptions.Run(o));
        }

        /// <summary>Type names as the shim's selectors spell them: the
        /// metadata name, nested types joined by '+'.</summary>
        private static void Time(Dictionary<string, double> times, string name, Action work)
        {
            var sw = Stopwatch.StartNew();
            work();
            sw.Stop();
            times.TryGetValue(name, out double t);
            times[name] = t + sw.Elapsed.TotalSeconds;
        }
    }
}
