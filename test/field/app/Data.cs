// Deterministic generated data shared by every workload area.
using System;
using System.Collections.Generic;

namespace IlmapField
{
    /// <summary>xorshift64*: the same sequence on every run and platform
    /// (System.Random's algorithm is not a contract).</summary>
    public sealed class Rng
    {
        private ulong _s;
        public Rng(ulong seed) { _s = seed == 0 ? 0x9E3779B97F4A7C15UL : seed; }
        public ulong Next()
        {
            _s ^= _s >> 12; _s ^= _s << 25; _s ^= _s >> 27;
            return _s * 0x2545F4914F6CDD1DUL;
        }
        public int Int(int max) { return (int)(Next() % (ulong)max); }
        public int Range(int lo, int hi) { return lo + Int(hi - lo); }
        public T Pick<T>(IReadOnlyList<T> items) { return items[Int(items.Count)]; }
        public string Word(int min, int max)
        {
            int n = Range(min, max + 1);
            var c = new char[n];
            for (int i = 0; i < n; i++) c[i] = (char)('a' + Int(26));
            return new string(c);
        }
    }

    public enum Status { Pending, Paid, Shipped, Cancelled, Returned }

    public sealed class Address
    {
        public string Street { get; set; }
        public string City { get; set; }
        public string Zip { get; set; }
        public string Country { get; set; }
    }

    public sealed class Line
    {
        public string Sku { get; set; }
        public int Quantity { get; set; }
        public decimal UnitPrice { get; set; }
        public double Weight { get; set; }
    }

    public sealed class Order
    {
        public int Id { get; set; }
        public string Customer { get; set; }
        public DateTime Placed { get; set; }
        public Status Status { get; set; }
        public decimal Total { get; set; }
        public bool Gift { get; set; }
        public string Note { get; set; }
        public Address ShipTo { get; set; }
        public List<Line> Lines { get; set; } = new List<Line>();
        public Dictionary<string, string> Tags { get; set; } = new Dictionary<string, string>();
        public int[] Ratings { get; set; }
    }

    public sealed class Customer
    {
        public string Name { get; set; }
        public string City { get; set; }
        public int Tier { get; set; }
    }

    public static class Data
    {
        public static readonly string[] Cities =
            { "Oslo", "Lyon", "Porto", "Graz", "Turku", "Cork", "Split", "Gent", "Bern", "Riga" };
        public static readonly string[] Countries = { "NO", "FR", "PT", "AT", "FI", "IE", "HR", "BE", "CH", "LV" };

        public static List<Customer> Customers(int n, ulong seed)
        {
            var r = new Rng(seed);
            var list = new List<Customer>(n);
            for (int i = 0; i < n; i++)
                list.Add(new Customer { Name = "c" + i.ToString("D3") + "-" + r.Word(3, 7),
                                        City = r.Pick(Cities), Tier = r.Int(4) });
            return list;
        }

        public static List<Order> Orders(int n, IReadOnlyList<Customer> customers, ulong seed)
        {
            var r = new Rng(seed);
            var start = new DateTime(2024, 1, 1, 0, 0, 0, DateTimeKind.Utc);
            var list = new List<Order>(n);
            for (int i = 0; i < n; i++)
            {
                var o = new Order
                {
                    Id = 1000 + i,
                    Customer = r.Pick(customers).Name,
                    Placed = start.AddMinutes(r.Int(525600)),
                    Status = (Status)r.Int(5),
                    Gift = r.Int(3) == 0,
                    Note = r.Int(4) == 0 ? null : "note \"" + r.Word(2, 9) + "\" <" + r.Word(1, 4) + "> & " + i,
                };
                if (r.Int(5) != 0)
                {
                    int c = r.Int(Cities.Length);
                    o.ShipTo = new Address { Street = r.Int(200) + " " + r.Word(4, 10) + " St",
                                             City = Cities[c], Zip = r.Range(10000, 99999).ToString(),
                                             Country = Countries[c] };
                }
                int lines = r.Range(1, 6);
                for (int k = 0; k < lines; k++)
                {
                    o.Lines.Add(new Line { Sku = "SKU-" + r.Range(100, 999), Quantity = r.Range(1, 9),
                                           UnitPrice = r.Range(99, 99999) / 100m,
                                           Weight = r.Range(1, 5000) / 1000.0 });
                }
                decimal total = 0;
                foreach (var l in o.Lines) total += l.Quantity * l.UnitPrice;
                o.Total = total;
                int tags = r.Int(4);
                for (int k = 0; k < tags; k++) o.Tags["t" + k] = r.Word(2, 6);
                o.Ratings = new int[r.Int(4)];
                for (int k = 0; k < o.Ratings.Length; k++) o.Ratings[k] = r.Range(1, 6);
                list.Add(o);
            }
            return list;
        }
    }
}
