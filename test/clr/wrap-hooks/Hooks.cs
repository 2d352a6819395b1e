// The hooks of the clr suite's wrap test (run-wrap.py, doc/shim.md#wrap).
// Under ILMAP_SHIM_WRAP the shim rewrites each selected method so that
// Hooks.Begin runs before its body and Hooks.End on every exit (return
// or exception); ILMAP_SHIM_WRAP_HOOKS names this class. The program
// under test does not reference this assembly: the runtime loads it
// before Main through the startup hook below (DOTNET_STARTUP_HOOKS=<this
// dll>), and the shim's reference to it by name binds to that copy.
//
// What the hooks record (thread-safe; never a word on stdout, the test
// compares the program's stdout with and without the shim):
//  - per thread, a stack of (token, instance) pushed by Begin and popped
//    by End; End counts a pop whose token or instance (ReferenceEquals)
//    differs from its own, and an End with nothing to pop (unpaired);
//    entries still on a stack at exit count as unpaired too;
//  - Begin and End calls per token;
//  - per token, the distinct End records (return value, exception) with
//    their counts (at most MaxRecords distinct ones; more are counted as
//    records_dropped), and the distinct types of `instance` (null for
//    static methods and methods of value types);
// and at process exit write them as one JSON object to the file that
// ILMAP_WRAP_LOG names (nothing without it):
//   {"begins":{"0x06000012":3,...},"ends":{...},"unpaired":0,
//    "instance_mismatch":0,"token_mismatch":0,"records_dropped":0,"thrown":4,
//    "records":{"0x06000012":[{"ret":"System.Int32:5","exc":null,"count":2},...]},
//    "instances":{"0x06000012":["WrapTest.Person",null],...}}
// A value is null or "<its type's FullName>:<Convert.ToString(value,
// InvariantCulture)>"; an exception "<its type's FullName>:<Message>";
// an instance's type is named by its generic definition (Gen`1).
//
// ILMAP_WRAP_LIGHT=1 (the field suite: millions of calls of thousands of
// methods): only the pairing and the counts, per thread without a lock,
// merged at exit; no records, no instance types.
//
// ILMAP_WRAP_THROW_TYPE=Ns.Type: Begin and End throw (after recording)
// when the instance is of that type, to check that the wrap swallows
// what its hooks throw ("thrown" counts them).
using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Reflection;
using System.Runtime.Loader;
using System.Text;

/// <summary>The startup hook: the runtime calls Initialize before Main
/// when DOTNET_STARTUP_HOOKS names this assembly.</summary>
internal static class StartupHook
{
    public static void Initialize()
    {
        IlmapWrapHooks.Hooks.Install();
    }
}

namespace IlmapWrapHooks
{
    public static class Hooks
    {
        /// <summary>Distinct End records kept per token.</summary>
        public const int MaxRecords = 200;

        /// <summary>Distinct instance types kept per token.</summary>
        public const int MaxInstanceTypes = 16;

        private struct Entry
        {
            public int Token;
            public object Instance;
        }

        private sealed class Record
        {
            public string Ret;
            public string Exc;
            public long Count;
        }

        private sealed class PerToken
        {
            public long Begins;
            public long Ends;
            public readonly List<Record> Records = new List<Record>();
            public readonly List<string> InstanceTypes = new List<string>();
        }

        /// <summary>One thread's counts in light mode.</summary>
        private sealed class LocalCounts
        {
            public readonly Dictionary<int, long[]> ByToken = new Dictionary<int, long[]>();
            public long Unpaired, InstanceMismatch, TokenMismatch;
        }

        [ThreadStatic] private static List<Entry> stack;
        [ThreadStatic] private static LocalCounts local;
        private static readonly List<LocalCounts> Locals = new List<LocalCounts>();
        private static bool light;
        [ThreadStatic] private static int formatting; // > 0 while End formats a value

        private static readonly object Gate = new object();
        private static readonly List<List<Entry>> Stacks = new List<List<Entry>>();
        private static readonly Dictionary<int, PerToken> Tokens = new Dictionary<int, PerToken>();
        private static long unpaired, instanceMismatch, tokenMismatch, recordsDropped, thrown;
        private static bool installed;
        private static string logPath;
        private static string throwType;

        /// <summary>Called by the startup hook: reads the settings, makes
        /// the shim's by-name reference bind to this assembly, writes the
        /// log at exit. Once only.</summary>
        public static void Install()
        {
            lock (Gate)
            {
                if (installed)
                    return;
                installed = true;
            }
            logPath = Environment.GetEnvironmentVariable("ILMAP_WRAP_LOG");
            light = Environment.GetEnvironmentVariable("ILMAP_WRAP_LIGHT") == "1";
            throwType = Environment.GetEnvironmentVariable("ILMAP_WRAP_THROW_TYPE");
            if (string.IsNullOrEmpty(throwType))
                throwType = null;
            // The default context binds a reference by name to an assembly
            // already loaded into it from a path (the startup hook's); if
            // a runtime ever did not, this returns that copy.
            Assembly self = typeof(Hooks).Assembly;
            string selfName = self.GetName().Name;
            AssemblyLoadContext.Default.Resolving += (context, name) =>
                string.Equals(name.Name, selfName, StringComparison.OrdinalIgnoreCase) ? self : null;
            if (!string.IsNullOrEmpty(logPath))
                AppDomain.CurrentDomain.ProcessExit += (sender, e) => WriteLog();
        }

        public static void Begin(object instance, int methodToken)
        {
            List<Entry> s = stack ?? NewStack();
            s.Add(new Entry { Token = methodToken, Instance = instance });
            if (light)
            {
                CountLocal(methodToken, 0);
                return;
            }
            string type = TypeName(instance);
            lock (Gate)
            {
                PerToken t = Get(methodToken);
                t.Begins++;
                if (!t.InstanceTypes.Contains(type) && t.InstanceTypes.Count < MaxInstanceTypes)
                    t.InstanceTypes.Add(type);
            }
            if (throwType != null && type == throwType)
                Throw("Begin");
        }

        public static void End(object instance, int methodToken, object returnValue,
                               Exception exception)
        {
            List<Entry> s = stack;
            bool paired = s != null && s.Count > 0;
            bool badToken = false, badInstance = false;
            if (paired)
            {
                Entry top = s[s.Count - 1];
                s.RemoveAt(s.Count - 1);
                badToken = top.Token != methodToken;
                badInstance = !ReferenceEquals(top.Instance, instance);
            }
            if (light)
            {
                LocalCounts c = CountLocal(methodToken, 1);
                c.Unpaired += paired ? 0 : 1;
                c.TokenMismatch += badToken ? 1 : 0;
                c.InstanceMismatch += badInstance ? 1 : 0;
                return;
            }
            // Outside the lock: formatting may run the program's code (a
            // wrapped ToString, whose own Begin and End come here). Those
            // nested Ends are paired and counted, not formatted: a
            // ToString of a wrapped library can call back into itself
            // without end (System.Linq.Expressions does).
            string ret, exc;
            if (formatting > 0)
            {
                ret = exc = "(inside a hook)";
            }
            else
            {
                formatting++;
                try
                {
                    ret = Format(returnValue);
                    exc = exception == null ? null
                        : exception.GetType().FullName + ":" + exception.Message;
                }
                finally
                {
                    formatting--;
                }
            }
            lock (Gate)
            {
                PerToken t = Get(methodToken);
                t.Ends++;
                if (!paired)
                    unpaired++;
                if (badToken)
                    tokenMismatch++;
                if (badInstance)
                    instanceMismatch++;
                Record r = t.Records.Find(x => x.Ret == ret && x.Exc == exc);
                if (r == null && t.Records.Count < MaxRecords)
                    t.Records.Add(r = new Record { Ret = ret, Exc = exc });
                if (r != null)
                    r.Count++;
                else
                    recordsDropped++;
            }
            if (throwType != null && TypeName(instance) == throwType)
                Throw("End");
        }

        private static void Throw(string hook)
        {
            lock (Gate)
                thrown++;
            throw new InvalidOperationException("IlmapWrapHooks." + hook + " throws on purpose");
        }

        /// <summary>null, or "FullName:value" (invariant culture).</summary>
        public static string Format(object value)
        {
            if (value == null)
                return null;
            try
            {
                return value.GetType().FullName + ":" +
                       Convert.ToString(value, CultureInfo.InvariantCulture);
            }
            catch (Exception e)
            {
                return value.GetType().FullName + ":<ToString threw " + e.GetType().FullName + ">";
            }
        }

        private static string TypeName(object instance)
        {
            if (instance == null)
                return null;
            Type t = instance.GetType();
            return t.IsGenericType ? t.GetGenericTypeDefinition().FullName : t.FullName;
        }

        private static List<Entry> NewStack()
        {
            var s = new List<Entry>();
            lock (Gate)
                Stacks.Add(s);
            stack = s;
            return s;
        }

        /// <summary>Light mode: a Begin (which 0) or End (1) of token on
        /// this thread's counts.</summary>
        private static LocalCounts CountLocal(int token, int which)
        {
            LocalCounts c = local;
            if (c == null)
            {
                c = local = new LocalCounts();
                lock (Gate)
                    Locals.Add(c);
            }
            if (!c.ByToken.TryGetValue(token, out long[] n))
                c.ByToken.Add(token, n = new long[2]);
            n[which]++;
            return c;
        }

        private static PerToken Get(int token)
        {
            if (!Tokens.TryGetValue(token, out PerToken t))
                Tokens.Add(token, t = new PerToken());
            return t;
        }

        private static void WriteLog()
        {
            string text;
            lock (Gate)
            {
                foreach (LocalCounts c in Locals)
                {
                    foreach (KeyValuePair<int, long[]> kv in c.ByToken)
                    {
                        PerToken t = Get(kv.Key);
                        t.Begins += kv.Value[0];
                        t.Ends += kv.Value[1];
                    }
                    unpaired += c.Unpaired;
                    tokenMismatch += c.TokenMismatch;
                    instanceMismatch += c.InstanceMismatch;
                }
                Locals.Clear();
                long left = 0;
                foreach (List<Entry> s in Stacks)
                    left += s.Count;
                var tokens = new List<int>(Tokens.Keys);
                tokens.Sort((a, b) => ((uint)a).CompareTo((uint)b));
                var sb = new StringBuilder();
                sb.Append("{\"begins\":{");
                Join(sb, tokens, t => Tokens[t].Begins > 0,
                     t => sb.Append(Tokens[t].Begins.ToString(CultureInfo.InvariantCulture)));
                sb.Append("},\"ends\":{");
                Join(sb, tokens, t => Tokens[t].Ends > 0,
                     t => sb.Append(Tokens[t].Ends.ToString(CultureInfo.InvariantCulture)));
                sb.Append("},\"unpaired\":").Append((unpaired + left).ToString(CultureInfo.InvariantCulture));
                sb.Append(",\"instance_mismatch\":").Append(instanceMismatch.ToString(CultureInfo.InvariantCulture));
                sb.Append(",\"token_mismatch\":").Append(tokenMismatch.ToString(CultureInfo.InvariantCulture));
                sb.Append(",\"records_dropped\":").Append(recordsDropped.ToString(CultureInfo.InvariantCulture));
                sb.Append(",\"thrown\":").Append(thrown.ToString(CultureInfo.InvariantCulture));
                sb.Append(",\"records\":{");
                Join(sb, tokens, t => Tokens[t].Records.Count > 0, t =>
                {
                    sb.Append('[');
                    bool first = true;
                    foreach (Record r in Tokens[t].Records)
                    {
                        sb.Append(first ? "" : ",").Append("{\"ret\":");
                        Str(sb, r.Ret);
                        sb.Append(",\"exc\":");
                        Str(sb, r.Exc);
                        sb.Append(",\"count\":").Append(r.Count.ToString(CultureInfo.InvariantCulture)).Append('}');
                        first = false;
                    }
                    sb.Append(']');
                });
                sb.Append("},\"instances\":{");
                Join(sb, tokens, t => Tokens[t].InstanceTypes.Count > 0, t =>
                {
                    sb.Append('[');
                    for (int i = 0; i < Tokens[t].InstanceTypes.Count; i++)
                    {
                        if (i > 0)
                            sb.Append(',');
                        Str(sb, Tokens[t].InstanceTypes[i]);
                    }
                    sb.Append(']');
                });
                sb.Append("}}\n");
                text = sb.ToString();
            }
            try
            {
                File.WriteAllText(logPath, text, new UTF8Encoding(false));
            }
            catch (Exception e)
            {
                Console.Error.WriteLine("[IlmapWrapHooks] cannot write " + logPath + ": " + e.Message);
            }
        }

        private static void Join(StringBuilder sb, List<int> tokens, Predicate<int> which,
                                 Action<int> value)
        {
            bool first = true;
            foreach (int t in tokens)
            {
                if (!which(t))
                    continue;
                sb.Append(first ? "\"" : ",\"").Append("0x")
                  .Append(t.ToString("X8", CultureInfo.InvariantCulture)).Append("\":");
                value(t);
                first = false;
            }
        }

        private static void Str(StringBuilder sb, string s)
        {
            if (s == null)
            {
                sb.Append("null");
                return;
            }
            sb.Append('"');
            foreach (char c in s)
            {
                if (c == '"' || c == '\\')
                    sb.Append('\\').Append(c);
                else if (c < 0x20 || (c >= 0xD800 && c <= 0xDFFF))
                    sb.Append("\\u").Append(((int)c).ToString("x4", CultureInfo.InvariantCulture));
                else
                    sb.Append(c);
            }
            sb.Append('"');
        }
    }
}
