// Exceptions that pass through Newtonsoft.Json's code: thrown by its
// reader and serializer, by the framework below it, or by the program's
// own code that Newtonsoft.Json calls (a converter); and a few calls of
// its API that return, with their value in the wrap hooks' format (so
// that run-field.py finds End records of them in the hooks' log). Each
// exception's messages (and its inner exceptions') go to the output; the
// frames of each, method and IL offset as the runtime reports them
// (StackFrame.GetILOffset: the original method's offsets when a profiler
// rewrote the method and gave its map), to the file
// ILMAP_FIELD_EXCEPTION_FRAMES names, for the iteration that ran last.
// run-field.py compares that file with a plain run's, both unoptimized
// (--exceptions-only with DOTNET_JITMinOpts=1): each frame of a wrapped or
// instrumented method must report the same offset as without the
// profiler. Frames of Newtonsoft.Json and of the program only: the
// framework's precompiled code may inline differently under a profiler.
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Reflection;
using System.Text;
using Newtonsoft.Json;
using Newtonsoft.Json.Linq;

namespace IlmapField
{
    /// <summary>A converter that refuses one value: the program's code
    /// throwing under Newtonsoft.Json's serializer.</summary>
    public sealed class PickyConverter : JsonConverter<int>
    {
        public override void WriteJson(JsonWriter writer, int value, JsonSerializer serializer)
        {
            writer.WriteValue(value);
        }

        public override int ReadJson(JsonReader reader, Type objectType, int existingValue,
                                     bool hasExistingValue, JsonSerializer serializer)
        {
            long v = (long)reader.Value;
            if (v == 13)
                throw new InvalidDataException("13 is refused");
            return (int)v;
        }
    }

    public sealed class Counted
    {
        public int Count { get; set; }
        public List<int> Items { get; set; }
    }

    public static class Exceptions
    {
        private static readonly string Path =
            Environment.GetEnvironmentVariable("ILMAP_FIELD_EXCEPTION_FRAMES");

        /// <summary>The frames of the iteration that ran last.</summary>
        private static string last = "";

        public static void Run(TextWriter o)
        {
            o.WriteLine("== exceptions");
            var frames = new StringBuilder();
            var cases = new List<KeyValuePair<string, Action>>
            {
                Case("truncated object", () => JsonConvert.DeserializeObject<Order>("{\"Id\": 1, \"Customer\": ")),
                Case("string for an int", () => JsonConvert.DeserializeObject<Order>("{\"Id\": \"abc\"}")),
                Case("trailing comma in an array", () => JObject.Parse("{ \"a\": [1, 2, }")),
                Case("unterminated string", () => JToken.Parse("[\"abc")),
                Case("object for a list", () => JsonConvert.DeserializeObject<List<int>>("{\"a\": 1}")),
                Case("token cast", () => Console.Write((int)JToken.Parse("\"x\""))),
                Case("missing member", () => JsonConvert.DeserializeObject<Counted>(
                    "{\"Count\": 1, \"Other\": 2}",
                    new JsonSerializerSettings { MissingMemberHandling = MissingMemberHandling.Error })),
                Case("converter throws", () => JsonConvert.DeserializeObject<Counted>(
                    "{\"Count\": 2, \"Items\": [1, 13]}", new PickyConverter())),
                Case("depth limit", () => JsonConvert.DeserializeObject<JToken>(
                    "[[[[[[1]]]]]]", new JsonSerializerSettings { MaxDepth = 4 })),
            };
            // Calls that return: "<case>: returned <type>:<value>".
            var returns = new List<KeyValuePair<string, Func<object>>>
            {
                Returns("serialize", () => JsonConvert.SerializeObject(
                    new Counted { Count = 2, Items = new List<int> { 4, 5 } })),
                Returns("token cast to int", () => (int)JToken.Parse("42")),
                Returns("generic int", () => JsonConvert.DeserializeObject<int>("7")),
                Returns("escape", () => JsonConvert.ToString("a\"b")),
            };
            foreach (var r in returns)
            {
                object v = r.Value();
                o.WriteLine(r.Key + ": returned " + v.GetType().FullName + ":" +
                            Convert.ToString(v, CultureInfo.InvariantCulture));
            }
            foreach (var c in cases)
            {
                try
                {
                    c.Value();
                    o.WriteLine(c.Key + ": no exception");
                }
                catch (Exception e)
                {
                    frames.Append("case ").Append(c.Key).Append('\n');
                    int depth = 0;
                    for (Exception x = e; x != null; x = x.InnerException, depth++)
                    {
                        o.WriteLine(c.Key + (depth == 0 ? ": " : ": inner: ") + x.GetType().FullName + ": " +
                                    x.Message.Replace("\r", "").Replace("\n", " | "));
                        Describe(x, frames);
                    }
                }
            }
            last = frames.ToString();
        }

        private static KeyValuePair<string, Action> Case(string name, Action a) =>
            new KeyValuePair<string, Action>(name, a);

        private static KeyValuePair<string, Func<object>> Returns(string name, Func<object> f) =>
            new KeyValuePair<string, Func<object>>(name, f);

        /// <summary>One line per frame of Newtonsoft.Json or the program.</summary>
        private static void Describe(Exception x, StringBuilder frames)
        {
            frames.Append("  exception ").Append(x.GetType().FullName).Append('\n');
            foreach (StackFrame f in new StackTrace(x, true).GetFrames())
            {
                MethodBase m = f.GetMethod();
                string asm = m?.DeclaringType?.Assembly.GetName().Name;
                if (asm != "Newtonsoft.Json" && asm != "IlmapField")
                    continue;
                frames.Append("    ").Append(m.DeclaringType.FullName).Append("::").Append(m)
                      .Append(" IL_").Append(f.GetILOffset().ToString("x4", CultureInfo.InvariantCulture));
                if (f.GetFileLineNumber() > 0)
                    frames.Append(" line ").Append(f.GetFileLineNumber().ToString(CultureInfo.InvariantCulture));
                frames.Append('\n');
            }
        }

        /// <summary>Writes the last iteration's frames where
        /// ILMAP_FIELD_EXCEPTION_FRAMES says (nothing when unset).</summary>
        public static void Write()
        {
            if (!string.IsNullOrEmpty(Path))
                File.WriteAllText(Path, last);
        }
    }
}
