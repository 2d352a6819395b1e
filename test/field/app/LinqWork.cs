// System.Linq over generated data: group, join, order, aggregate, set operators.
using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;

namespace IlmapField
{
    public static class LinqWork
    {
        public static void Run(TextWriter o, List<Order> orders, List<Customer> customers)
        {
            o.WriteLine("== linq");
            var inv = CultureInfo.InvariantCulture;
            var byStatus = orders.GroupBy(x => { Frames.Here(); return x.Status; })
                                 .OrderBy(g => g.Key)
                                 .Select(g => new { g.Key, N = g.Count(), Sum = g.Sum(x => x.Total), Avg = g.Average(x => (double)x.Total) });
            foreach (var g in byStatus)
                o.WriteLine(g.Key + " " + g.N + " " + g.Sum.ToString(inv) + " " + g.Avg.ToString("F4", inv));

            var joined = orders.Join(customers, x => x.Customer, c => c.Name, (x, c) => new { x.Id, c.Tier, c.City, x.Total })
                               .GroupBy(j => new { j.Tier, j.City })
                               .Select(g => new { g.Key.Tier, g.Key.City, N = g.Count(), Max = g.Max(j => j.Total) })
                               .OrderBy(g => g.Tier).ThenByDescending(g => g.N).ThenBy(g => g.City, StringComparer.Ordinal)
                               .Take(12);
            o.WriteLine("join: " + string.Join(" ", joined.Select(g => g.Tier + "/" + g.City + "/" + g.N + "/" + g.Max.ToString(inv))));

            var gj = customers.GroupJoin(orders, c => c.Name, x => x.Customer, (c, xs) => new { c.Name, N = xs.Count() })
                              .Where(g => g.N == 0).Select(g => g.Name).OrderBy(n => n, StringComparer.Ordinal);
            o.WriteLine("no orders: " + string.Join(",", gj.Take(8)));

            var lines = orders.SelectMany(x => x.Lines, (x, l) => new { x.Id, l.Sku, l.Quantity, l.UnitPrice });
            var top = lines.OrderByDescending(l => l.Quantity * l.UnitPrice).ThenBy(l => l.Id).ThenBy(l => l.Sku, StringComparer.Ordinal).Take(5);
            o.WriteLine("top lines: " + string.Join(" ", top.Select(l => l.Id + ":" + l.Sku)));
            o.WriteLine("aggregate: " + lines.Aggregate(0L, (acc, l) => (acc * 31 + l.Quantity) % 1000000007L));
            o.WriteLine("distinct skus: " + lines.Select(l => l.Sku).Distinct().Count() +
                        ", union " + orders.Take(50).Select(x => x.Customer).Union(orders.Skip(50).Take(50).Select(x => x.Customer)).Count() +
                        ", intersect " + orders.Take(100).Select(x => x.Customer).Intersect(orders.Skip(100).Select(x => x.Customer)).Count() +
                        ", except " + customers.Select(c => c.Name).Except(orders.Select(x => x.Customer)).Count());
            var months = orders.ToLookup(x => x.Placed.Month);
            o.WriteLine("months: " + string.Join(",", Enumerable.Range(1, 12).Select(m => months[m].Count())));
            var chunks = orders.Select(x => x.Id).Chunk(37).Select(c => c.Sum()).ToArray();
            o.WriteLine("chunks: " + chunks.Length + " " + string.Join(",", chunks.Take(5)));
            var zipped = orders.Zip(orders.Skip(1), (a, b) => b.Placed > a.Placed ? 1 : 0).Sum();
            o.WriteLine("ascending pairs: " + zipped);
            o.WriteLine("minby " + orders.MinBy(x => x.Placed).Id + " maxby " + orders.MaxBy(x => x.Total).Id +
                        " any " + orders.Any(x => x.Lines.Count > 4) + " all " + orders.All(x => x.Total > 0));
            var countBy = orders.CountBy(x => x.Tags.Count).OrderBy(kv => kv.Key).Select(kv => kv.Key + "=" + kv.Value);
            o.WriteLine("countby tags: " + string.Join(",", countBy));
            var agg = orders.AggregateBy(x => x.Status, 0m, (acc, x) => acc + x.Lines.Count).OrderBy(kv => kv.Key).Select(kv => kv.Key + "=" + kv.Value);
            o.WriteLine("aggregateby: " + string.Join(",", agg));
            var windowed = orders.Select((x, i) => new { i, x.Total }).Where(p => p.i % 7 == 3).Skip(2).TakeWhile(p => p.i < 400).Reverse().Take(4);
            o.WriteLine("windowed: " + string.Join(",", windowed.Select(p => p.i)));
            var seq = Enumerable.Range(0, 1000).Select(i => (i * 7919) % 1009).Where(i => i % 3 != 0).OrderBy(i => i).ToArray();
            o.WriteLine("seq: " + seq.Length + " " + seq.Skip(100).First() + " " + seq.Last() + " " + seq.ElementAt(333) +
                        " sum " + seq.Sum() + " contains " + seq.Contains(77) + " seqeq " + seq.SequenceEqual(seq.ToList()));
            var dict = orders.ToDictionary(x => x.Id, x => x.Lines.Count);
            o.WriteLine("dict: " + dict.Count + " " + dict[1000 + orders.Count / 2]);
            var order2 = orders.Order(Comparer<Order>.Create((a, b) => a.Lines.Count != b.Lines.Count ? a.Lines.Count.CompareTo(b.Lines.Count) : b.Id.CompareTo(a.Id))).Take(3);
            o.WriteLine("ordered: " + string.Join(",", order2.Select(x => x.Id)));
        }
    }
}
