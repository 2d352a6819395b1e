// System.Collections.Generic: Dictionary, SortedDictionary, SortedSet, HashSet,
// List sort/binary search, Queue, Stack, LinkedList, PriorityQueue.
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;

namespace IlmapField
{
    public static class CollectionsWork
    {
        private sealed class ById : IComparer<Order>
        {
            public int Compare(Order a, Order b)
            {
                Frames.Here();
                return a.Id.CompareTo(b.Id);
            }
        }

        public static void Run(TextWriter o, List<Order> orders, int n)
        {
            o.WriteLine("== collections");
            var r = new Rng(12345);
            var keys = new List<string>();
            for (int i = 0; i < n; i++) keys.Add(r.Word(1, 4));

            // Dictionary with removals: enumeration order depends on the
            // free list, not on the (randomized) string hash.
            var dict = new Dictionary<string, int>(StringComparer.Ordinal);
            foreach (var k in keys) { dict.TryGetValue(k, out int c); dict[k] = c + 1; }
            int removed = 0;
            foreach (var k in keys.Where((k, i) => i % 5 == 0)) if (dict.Remove(k)) removed++;
            foreach (var k in keys.Take(200)) dict.TryAdd(k + "!", k.Length);
            o.WriteLine("dict: " + dict.Count + " removed " + removed + " first " + string.Join(",", dict.Take(5).Select(kv => kv.Key + "=" + kv.Value)));
            var sdict = new SortedDictionary<string, int>(dict, StringComparer.Ordinal);
            o.WriteLine("sorted: " + sdict.First().Key + " " + sdict.Last().Key + " " + string.Join(",", sdict.Keys.Skip(sdict.Count / 2).Take(5)));
            var sset = new SortedSet<int>(keys.Select(k => k.Length * 1000 + k[0]));
            o.WriteLine("sortedset: " + sset.Count + " min " + sset.Min + " max " + sset.Max + " view " + sset.GetViewBetween(2000, 2100).Count);

            var hs = new HashSet<string>(keys, StringComparer.Ordinal);
            var hs2 = new HashSet<string>(keys.Skip(n / 2), StringComparer.Ordinal);
            int before = hs.Count;
            hs.IntersectWith(hs2);
            o.WriteLine("hashset: " + before + " -> " + hs.Count + " subset " + hs.IsSubsetOf(hs2) + " overlaps " + hs.Overlaps(new[] { "zz", "a" }));
            hs.SymmetricExceptWith(keys.Take(100));
            o.WriteLine("symmetric: " + hs.Count + " " + string.Join(",", hs.OrderBy(s => s, StringComparer.Ordinal).Take(5)));

            var list = new List<int>(n);
            for (int i = 0; i < n; i++) list.Add((int)(r.Next() % 100000));
            list.Sort();
            int found = 0;
            for (int i = 0; i < 2000; i++) if (list.BinarySearch(i * 50) >= 0) found++;
            list.Reverse(10, 100);
            list.Sort(100, 500, Comparer<int>.Create((a, b) => b.CompareTo(a)));
            list.RemoveAll(x => x % 7 == 0);
            o.WriteLine("list: " + list.Count + " found " + found + " idx " + list.IndexOf(list[list.Count / 3]) + " " + string.Join(",", list.GetRange(100, 5)));
            var byId = orders.OrderBy(x => x.Total).ToList();
            byId.Sort(new ById());
            o.WriteLine("sorted orders: " + byId.BinarySearch(new Order { Id = 1000 + orders.Count / 3 }, new ById()));

            var q = new Queue<int>();
            var st = new Stack<int>();
            long qs = 0;
            for (int i = 0; i < n; i++)
            {
                q.Enqueue(i); st.Push(i);
                if (i % 3 == 2) { qs += q.Dequeue() - st.Pop(); }
            }
            o.WriteLine("queue/stack: " + q.Count + " " + st.Count + " " + qs + " peek " + q.Peek() + "/" + st.Peek());

            var pq = new PriorityQueue<string, (int, int)>();
            for (int i = 0; i < n; i++) pq.Enqueue("p" + i, ((int)(r.Next() % 97), i));
            var popped = new List<string>();
            while (pq.Count > n - 12) popped.Add(pq.Dequeue());
            pq.EnqueueRange(new[] { "x", "y" }, (-1, 0));
            o.WriteLine("priority: " + string.Join(",", popped) + " then " + pq.Dequeue() + " left " + pq.Count);

            var ll = new LinkedList<int>(Enumerable.Range(0, 50));
            for (var node = ll.First; node != null;) { var next = node.Next; if (node.Value % 3 == 0) ll.Remove(node); node = next; }
            ll.AddFirst(-1); ll.AddAfter(ll.Find(10), 100);
            o.WriteLine("linkedlist: " + ll.Count + " " + string.Join(",", ll.Take(10)));
            var slist = new SortedList<int, string>();
            foreach (var x in orders.Take(300)) slist[x.Placed.DayOfYear] = x.Customer;
            o.WriteLine("sortedlist: " + slist.Count + " " + slist.Keys[0] + " " + slist.Values[slist.Count - 1] + " " + slist.IndexOfKey(slist.Keys[7]));
        }
    }
}
