// Newtonsoft.Json 13.0.3: object graphs, settings, converters, LINQ to JSON.
using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using Newtonsoft.Json;
using Newtonsoft.Json.Converters;
using Newtonsoft.Json.Linq;
using Newtonsoft.Json.Serialization;

namespace IlmapField
{
    /// <summary>Writes an Address as one "street|city|zip|country" string.</summary>
    public sealed class CompactAddressConverter : JsonConverter<Address>
    {
        public override void WriteJson(JsonWriter writer, Address value, JsonSerializer serializer)
        {
            Frames.Here();
            writer.WriteValue(string.Join("|", value.Street, value.City, value.Zip, value.Country));
        }

        public override Address ReadJson(JsonReader reader, Type objectType, Address existingValue,
                                         bool hasExistingValue, JsonSerializer serializer)
        {
            Frames.Here();
            if (reader.TokenType == JsonToken.Null) return null;
            var parts = ((string)reader.Value).Split('|');
            return new Address { Street = parts[0], City = parts[1], Zip = parts[2], Country = parts[3] };
        }
    }

    public abstract class Shape { public string Name { get; set; } }
    public sealed class Circle : Shape { public double Radius { get; set; } }
    public sealed class Rect : Shape { public double W { get; set; } public double H { get; set; } }
    public sealed class Drawing { public List<Shape> Shapes { get; set; } = new List<Shape>(); }

    public static class NewtonsoftWork
    {
        public static void Run(TextWriter o, List<Order> orders)
        {
            o.WriteLine("== newtonsoft");
            var camel = new JsonSerializerSettings
            {
                ContractResolver = new DefaultContractResolver { NamingStrategy = new CamelCaseNamingStrategy() },
                Formatting = Formatting.Indented,
                NullValueHandling = NullValueHandling.Ignore,
                DateFormatHandling = DateFormatHandling.IsoDateFormat,
                DateTimeZoneHandling = DateTimeZoneHandling.Utc,
                Culture = CultureInfo.InvariantCulture,
                Converters = { new StringEnumConverter(), new CompactAddressConverter() },
            };
            string text = JsonConvert.SerializeObject(orders, camel);
            o.WriteLine("camel indented: " + text.Length + " chars, " + Fnv.Hash(text));
            o.WriteLine(text.Substring(0, Math.Min(400, text.Length)).Replace("\r", ""));
            var back = JsonConvert.DeserializeObject<List<Order>>(text, camel);
            string again = JsonConvert.SerializeObject(back, camel);
            o.WriteLine("round trip equal: " + (text == again) + ", orders " + back.Count +
                        ", lines " + back.Sum(x => x.Lines.Count));

            var plain = new JsonSerializerSettings { Culture = CultureInfo.InvariantCulture,
                                                     DateTimeZoneHandling = DateTimeZoneHandling.Utc };
            string compact = JsonConvert.SerializeObject(orders, plain);
            o.WriteLine("default compact: " + compact.Length + " chars, " + Fnv.Hash(compact));
            var back2 = JsonConvert.DeserializeObject<Order[]>(compact, plain);
            o.WriteLine("deserialized totals: " + back2.Sum(x => x.Total).ToString(CultureInfo.InvariantCulture));

            // Serializer with a streaming writer and reader.
            var serializer = JsonSerializer.Create(camel);
            var sw = new StringWriter(CultureInfo.InvariantCulture);
            using (var jw = new JsonTextWriter(sw) { Formatting = Formatting.None })
                serializer.Serialize(jw, orders.Take(20).ToList());
            int tokens = 0, props = 0;
            using (var jr = new JsonTextReader(new StringReader(sw.ToString())))
            {
                while (jr.Read())
                {
                    tokens++;
                    if (jr.TokenType == JsonToken.PropertyName) props++;
                }
            }
            o.WriteLine("reader tokens " + tokens + ", properties " + props);

            // Polymorphism through type names (own types only).
            var drawing = new Drawing();
            for (int i = 0; i < 12; i++)
                drawing.Shapes.Add(i % 2 == 0 ? new Circle { Name = "c" + i, Radius = i * 0.5 }
                                              : (Shape)new Rect { Name = "r" + i, W = i, H = i * 1.5 });
            var typed = new JsonSerializerSettings { TypeNameHandling = TypeNameHandling.Auto,
                                                     SerializationBinder = new DefaultSerializationBinder() };
            string dtext = JsonConvert.SerializeObject(drawing, typed);
            var dback = JsonConvert.DeserializeObject<Drawing>(dtext, typed);
            o.WriteLine("typed shapes: " + string.Join(",", dback.Shapes.Select(s => s.GetType().Name[0] + s.Name)));

            // LINQ to JSON.
            var root = JArray.Parse(compact);
            var paid = root.Children<JObject>()
                           .Where(j => (string)j["Status"] == "1" || (int)j["Status"] == (int)Status.Paid)
                           .Select(j => (int)j["Id"]).Take(10);
            o.WriteLine("paid ids: " + string.Join(",", paid));
            var byCity = root.Children<JObject>()
                             .Where(j => j["ShipTo"].Type == JTokenType.Object)
                             .GroupBy(j => (string)j["ShipTo"]["City"])
                             .OrderBy(g => g.Key, StringComparer.Ordinal)
                             .Select(g => g.Key + "=" + g.Count());
            o.WriteLine("by city: " + string.Join(" ", byCity));
            var skus = root.SelectTokens("$..Lines[?(@.Quantity > 6)].Sku").Select(t => (string)t)
                           .Distinct().OrderBy(s => s, StringComparer.Ordinal).Take(8);
            o.WriteLine("jsonpath skus: " + string.Join(",", skus));

            var built = new JObject(
                new JProperty("count", orders.Count),
                new JProperty("customers", new JArray(orders.Select(x => x.Customer).Distinct().OrderBy(x => x, StringComparer.Ordinal).Take(5))),
                new JProperty("max", new JObject(new JProperty("total", orders.Max(x => x.Total)),
                                                 new JProperty("when", orders.Max(x => x.Placed)))));
            built["flags"] = JToken.FromObject(new { gift = orders.Count(x => x.Gift), notes = orders.Count(x => x.Note != null) });
            var first = (JObject)root[0];
            first.Property("Lines").Remove();
            first["Extra"] = new JArray(1, 2.5, "three", null, true);
            built.Merge(new JObject(new JProperty("first", first)), new JsonMergeSettings { MergeArrayHandling = MergeArrayHandling.Union });
            o.WriteLine(built.ToString(Formatting.None));
            o.WriteLine("deep equals clone: " + JToken.DeepEquals(built, built.DeepClone()));
            var dict = JsonConvert.DeserializeObject<SortedDictionary<string, object>>(
                "{\"b\":1,\"a\":[1,2,{\"x\":\"y\"}],\"c\":{\"d\":null},\"e\":1.25e3,\"f\":\"2024-02-03T04:05:06Z\"}");
            o.WriteLine("dict: " + string.Join(";", dict.Select(kv => kv.Key + ":" + (kv.Value == null ? "null" : kv.Value.GetType().Name))));
            var bson = JsonConvert.SerializeXmlNode(XmlFromJson("{\"root\":{\"@id\":\"7\",\"item\":[\"a\",\"b\"]}}"));
            o.WriteLine("xml node json: " + bson);
        }

        private static System.Xml.XmlDocument XmlFromJson(string json)
        {
            return JsonConvert.DeserializeXmlNode(json);
        }
    }

    /// <summary>FNV-1a over UTF-16 code units: a stable digest to print.</summary>
    public static class Fnv
    {
        public static string Hash(string s)
        {
            uint h = 2166136261;
            foreach (char c in s) { h ^= c; h *= 16777619; }
            return h.ToString("x8", CultureInfo.InvariantCulture);
        }
    }
}
