// System.Text.RegularExpressions with the interpreter (RegexOptions.None, no Compiled).
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text;
using System.Text.RegularExpressions;

namespace IlmapField
{
    public static class RegexWork
    {
        public static void Run(TextWriter o, List<Order> orders)
        {
            o.WriteLine("== regex");
            var sb = new StringBuilder();
            foreach (var x in orders)
            {
                sb.Append("order ").Append(x.Id).Append(" by ").Append(x.Customer).Append(" on ")
                  .Append(x.Placed.ToString("yyyy-MM-dd HH:mm", System.Globalization.CultureInfo.InvariantCulture))
                  .Append(" total=").Append(x.Total.ToString(System.Globalization.CultureInfo.InvariantCulture));
                if (x.ShipTo != null) sb.Append(" ship ").Append(x.ShipTo.Zip).Append(' ').Append(x.ShipTo.City);
                foreach (var l in x.Lines) sb.Append(' ').Append(l.Sku).Append('x').Append(l.Quantity);
                if (x.Note != null) sb.Append(" // ").Append(x.Note);
                sb.Append('\n');
            }
            string text = sb.ToString();

            var patterns = new[]
            {
                @"\b(\d{4})-(\d{2})-(\d{2})\b",
                @"SKU-(?<n>[1-3]\d\d)x(?<q>[5-8])",
                @"total=(\d+)\.(\d\d)\b",
                @"(?<=by )c\d{3}-[a-z]+",
                @"""([a-z]+)""\s<([^>]*)>",
                @"^order (\d+) .* ship (\d{5}) (Oslo|Bern|Riga)",
                @"(?i)NOTE\s+""(?:[aeiou][a-z]*)""",
                @"(\w)\1{2,}",
                @"(?:[a-z]+\s){3,}&",
                @"\bSKU-(\d)(\d)\2",
            };
            foreach (var p in patterns)
            {
                var re = new Regex(p, p.StartsWith("^") ? RegexOptions.Multiline : RegexOptions.None);
                var ms = re.Matches(text);
                var firsts = ms.Cast<Match>().Take(3).Select(m => m.Value + "[" + string.Join("|", m.Groups.Cast<Group>().Skip(1).Select(g => g.Value)) + "]");
                o.WriteLine(p + " -> " + ms.Count + " " + string.Join(" ", firsts));
            }

            var date = new Regex(@"(\d{4})-(\d{2})-(\d{2})");
            string swapped = date.Replace(text, "$3/$2/$1");
            o.WriteLine("replace: " + Fnv.Hash(swapped) + " " + swapped.Substring(0, 60));
            string evaluated = Regex.Replace(text, @"x(\d)", m =>
            {
                Frames.Here();
                return "*" + (int.Parse(m.Groups[1].Value) * 2);
            });
            o.WriteLine("evaluator: " + Fnv.Hash(evaluated));
            var parts = Regex.Split(text.Substring(0, 2000), @"\s+(?:by|on|ship)\s+");
            o.WriteLine("split: " + parts.Length + " " + string.Join("|", parts.Skip(1).Take(4)));
            o.WriteLine("ismatch: " + Regex.IsMatch(text, @"SKU-999x9") + " " + Regex.IsMatch(text, @"total=\d+\.\d\d ship"));
            o.WriteLine("escape: " + Regex.Escape("a.b*c(d)[e]") + " unescape: " + Regex.Unescape(@"\t\x41\u0042"));
            var counts = new SortedDictionary<string, int>(StringComparer.Ordinal);
            foreach (Match m in Regex.Matches(text, @"\b[a-z]{5,}\b"))
            {
                counts.TryGetValue(m.Value, out int c);
                counts[m.Value] = c + 1;
            }
            o.WriteLine("words: " + counts.Count + " top " + string.Join(",", counts.OrderByDescending(kv => kv.Value).ThenBy(kv => kv.Key, StringComparer.Ordinal).Take(5).Select(kv => kv.Key + ":" + kv.Value)));
            int enumerated = 0;
            foreach (var vm in new Regex(@"\d+").EnumerateMatches(text.AsSpan(0, 5000))) enumerated += vm.Length;
            o.WriteLine("enumerate matches digits: " + enumerated);
        }
    }
}
