// System.Text.Json: the reflection serializer, Utf8JsonReader/Writer, JsonDocument, JsonNode.
using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Text;
using System.Text.Encodings.Web;
using System.Text.Json;
using System.Text.Json.Nodes;
using System.Text.Json.Serialization;

namespace IlmapField
{
    public sealed class UpperStringConverter : JsonConverter<string>
    {
        public override string Read(ref Utf8JsonReader reader, Type typeToConvert, JsonSerializerOptions options)
        {
            return reader.GetString()?.ToLowerInvariant();
        }

        public override void Write(Utf8JsonWriter writer, string value, JsonSerializerOptions options)
        {
            writer.WriteStringValue(value.ToUpperInvariant());
        }
    }

    public sealed class Sku
    {
        [JsonPropertyName("sku")] [JsonConverter(typeof(UpperStringConverter))] public string Code { get; set; }
        [JsonPropertyName("n")] public int Count { get; set; }
        [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingDefault)] public double Share { get; set; }
    }

    public static class StjWork
    {
        public static void Run(TextWriter o, List<Order> orders)
        {
            o.WriteLine("== system.text.json");
            var options = new JsonSerializerOptions
            {
                PropertyNamingPolicy = JsonNamingPolicy.SnakeCaseLower,
                DefaultIgnoreCondition = JsonIgnoreCondition.WhenWritingNull,
                WriteIndented = true,
                Encoder = JavaScriptEncoder.UnsafeRelaxedJsonEscaping,
                Converters = { new JsonStringEnumConverter(JsonNamingPolicy.KebabCaseLower) },
            };
            string text = JsonSerializer.Serialize(orders, options);
            o.WriteLine("snake indented: " + text.Length + " chars, " + Fnv.Hash(text));
            o.WriteLine(text.Substring(0, Math.Min(300, text.Length)));
            var back = JsonSerializer.Deserialize<List<Order>>(text, options);
            o.WriteLine("round trip equal: " + (JsonSerializer.Serialize(back, options) == text));

            byte[] utf8 = JsonSerializer.SerializeToUtf8Bytes(orders, new JsonSerializerOptions(JsonSerializerDefaults.Web));
            o.WriteLine("web utf8: " + utf8.Length + " bytes");

            // Streaming reader over the UTF-8 bytes.
            var reader = new Utf8JsonReader(utf8, new JsonReaderOptions { CommentHandling = JsonCommentHandling.Skip });
            int depth = 0, maxDepth = 0, strings = 0, numbers = 0;
            decimal sum = 0;
            string last = null;
            while (reader.Read())
            {
                switch (reader.TokenType)
                {
                    case JsonTokenType.StartObject:
                    case JsonTokenType.StartArray:
                        depth++; maxDepth = Math.Max(maxDepth, depth); break;
                    case JsonTokenType.EndObject:
                    case JsonTokenType.EndArray:
                        depth--; break;
                    case JsonTokenType.PropertyName:
                        last = reader.GetString(); break;
                    case JsonTokenType.String:
                        strings++; break;
                    case JsonTokenType.Number:
                        numbers++;
                        if (last == "unitPrice") sum += reader.GetDecimal();
                        break;
                }
            }
            o.WriteLine("reader: max depth " + maxDepth + ", strings " + strings + ", numbers " + numbers +
                        ", unit price sum " + sum.ToString(CultureInfo.InvariantCulture));

            // JsonDocument queries.
            using (var doc = JsonDocument.Parse(utf8))
            {
                var heavy = doc.RootElement.EnumerateArray()
                    .Where(e => e.GetProperty("lines").EnumerateArray().Sum(l => l.GetProperty("weight").GetDouble()) > 8.0)
                    .Select(e => e.GetProperty("id").GetInt32()).ToList();
                o.WriteLine("heavy orders: " + heavy.Count + " first " + string.Join(",", heavy.Take(6)));
                var withTags = doc.RootElement.EnumerateArray()
                    .Count(e => e.GetProperty("tags").EnumerateObject().Any());
                o.WriteLine("tagged: " + withTags);
            }

            // Utf8JsonWriter by hand.
            var buffer = new MemoryStream();
            using (var w = new Utf8JsonWriter(buffer, new JsonWriterOptions { Indented = false }))
            {
                w.WriteStartObject();
                w.WriteString("kind", "summary");
                w.WriteStartArray("statuses");
                foreach (var g in orders.GroupBy(x => x.Status).OrderBy(g => g.Key))
                {
                    w.WriteStartObject();
                    w.WriteString("status", g.Key.ToString());
                    w.WriteNumber("count", g.Count());
                    w.WriteNumber("total", g.Sum(x => x.Total));
                    w.WriteEndObject();
                }
                w.WriteEndArray();
                w.WriteBoolean("ok", true);
                w.WriteNull("none");
                w.WriteEndObject();
            }
            string written = Encoding.UTF8.GetString(buffer.ToArray());
            o.WriteLine(written);

            // JsonNode mutation.
            var node = JsonNode.Parse(written);
            node["statuses"].AsArray().Add(new JsonObject { ["status"] = "Extra", ["count"] = 0 });
            node["nested"] = new JsonObject { ["a"] = new JsonArray(1, 2, 3), ["b"] = "x\u00e9\"y" };
            o.WriteLine(node.ToJsonString());

            var skus = orders.SelectMany(x => x.Lines).GroupBy(l => l.Sku).OrderBy(g => g.Key, StringComparer.Ordinal).Take(10)
                             .Select(g => new Sku { Code = g.Key.ToLowerInvariant(), Count = g.Count() }).ToList();
            string st = JsonSerializer.Serialize(skus);
            o.WriteLine(st);
            var sback = JsonSerializer.Deserialize<Sku[]>(st);
            o.WriteLine("skus back: " + string.Join(",", sback.Select(s => s.Code + "x" + s.Count)));
            var dict = JsonSerializer.Deserialize<Dictionary<string, JsonElement>>("{\"a\":1,\"b\":[true,false],\"c\":{\"d\":\"e\"}}");
            o.WriteLine("dict kinds: " + string.Join(",", dict.Select(kv => kv.Key + "=" + kv.Value.ValueKind)));
        }
    }
}
