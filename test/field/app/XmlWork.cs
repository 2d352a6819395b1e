// System.Xml: XmlWriter/XmlReader, XmlDocument with XPath, XDocument (LINQ to XML).
using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Text;
using System.Xml;
using System.Xml.Linq;
using System.Xml.XPath;

namespace IlmapField
{
    public static class XmlWork
    {
        public static void Run(TextWriter o, List<Order> orders)
        {
            o.WriteLine("== xml");
            var inv = CultureInfo.InvariantCulture;
            var sw = new StringWriter(inv);
            var ws = new XmlWriterSettings { Indent = true, IndentChars = " ", NewLineChars = "\n", OmitXmlDeclaration = false };
            using (var w = XmlWriter.Create(sw, ws))
            {
                w.WriteStartDocument();
                w.WriteStartElement("orders");
                w.WriteAttributeString("xmlns", "f", null, "urn:field");
                foreach (var x in orders)
                {
                    w.WriteStartElement("order");
                    w.WriteAttributeString("id", x.Id.ToString(inv));
                    w.WriteAttributeString("status", x.Status.ToString());
                    w.WriteAttributeString("f", "gift", "urn:field", XmlConvert.ToString(x.Gift));
                    w.WriteElementString("customer", x.Customer);
                    w.WriteElementString("placed", XmlConvert.ToString(x.Placed, XmlDateTimeSerializationMode.Utc));
                    w.WriteElementString("total", XmlConvert.ToString(x.Total));
                    if (x.Note != null) { w.WriteStartElement("note"); w.WriteCData(x.Note); w.WriteEndElement(); }
                    if (x.ShipTo != null)
                    {
                        w.WriteStartElement("ship");
                        w.WriteAttributeString("city", x.ShipTo.City);
                        w.WriteAttributeString("zip", x.ShipTo.Zip);
                        w.WriteString(x.ShipTo.Street);
                        w.WriteEndElement();
                    }
                    foreach (var l in x.Lines)
                    {
                        w.WriteStartElement("line");
                        w.WriteAttributeString("sku", l.Sku);
                        w.WriteAttributeString("qty", l.Quantity.ToString(inv));
                        w.WriteAttributeString("price", XmlConvert.ToString(l.UnitPrice));
                        w.WriteAttributeString("weight", XmlConvert.ToString(l.Weight));
                        w.WriteEndElement();
                    }
                    w.WriteComment(" order " + x.Id + " ");
                    w.WriteEndElement();
                }
                w.WriteEndElement();
                w.WriteEndDocument();
            }
            string xml = sw.ToString();
            o.WriteLine("written: " + xml.Length + " chars, " + Fnv.Hash(xml));
            o.WriteLine(xml.Substring(0, Math.Min(300, xml.Length)));

            // XmlReader pull parse.
            int elements = 0, attributes = 0, cdata = 0, comments = 0;
            decimal qtySum = 0;
            using (var rd = XmlReader.Create(new StringReader(xml), new XmlReaderSettings { IgnoreWhitespace = true }))
            {
                while (rd.Read())
                {
                    switch (rd.NodeType)
                    {
                        case XmlNodeType.Element:
                            elements++;
                            attributes += rd.AttributeCount;
                            if (rd.LocalName == "line") qtySum += decimal.Parse(rd.GetAttribute("qty"), inv);
                            break;
                        case XmlNodeType.CDATA: cdata++; break;
                        case XmlNodeType.Comment: comments++; break;
                    }
                }
            }
            o.WriteLine("reader: elements " + elements + " attributes " + attributes + " cdata " + cdata + " comments " + comments + " qty " + qtySum);

            // XmlDocument + XPath.
            var doc = new XmlDocument();
            doc.LoadXml(xml);
            var ns = new XmlNamespaceManager(doc.NameTable);
            ns.AddNamespace("f", "urn:field");
            o.WriteLine("xpath gifts: " + doc.SelectNodes("/orders/order[@f:gift='true']", ns).Count +
                        " oslo: " + doc.SelectNodes("//order[ship/@city='Oslo']").Count +
                        " big lines: " + doc.SelectNodes("//line[@qty > 6]").Count);
            var nav = doc.CreateNavigator();
            o.WriteLine("xpath sum: " + ((double)nav.Evaluate("sum(//line/@qty)")).ToString(inv) +
                        " count: " + nav.Evaluate("count(//order[note])") +
                        " string: " + nav.Evaluate("string(//order[3]/customer)"));
            foreach (XmlElement e in doc.SelectNodes("//order[position() mod 10 = 0]"))
            {
                e.SetAttribute("flag", "tenth");
                e.RemoveChild(e.SelectSingleNode("placed"));
                var extra = doc.CreateElement("extra");
                extra.InnerText = "n<" + e.GetAttribute("id") + ">";
                e.AppendChild(extra);
            }
            o.WriteLine("edited: " + Fnv.Hash(doc.OuterXml) + " " + doc.DocumentElement.ChildNodes.Count);

            // LINQ to XML.
            var xd = XDocument.Parse(xml);
            XNamespace f = "urn:field";
            var q = from e in xd.Root.Elements("order")
                    let total = (decimal)e.Element("total")
                    where (bool)e.Attribute(f + "gift")
                    group total by (string)e.Attribute("status") into g
                    orderby g.Key
                    select g.Key + ":" + g.Count() + ":" + g.Sum().ToString(inv);
            o.WriteLine("xlinq: " + string.Join(" ", q));
            var built = new XElement("summary",
                new XAttribute("count", orders.Count),
                from x in orders.Take(5)
                select new XElement("o", new XAttribute("id", x.Id), new XElement("c", x.Customer),
                                    x.Lines.Select(l => new XElement("l", l.Sku))));
            built.Add(new XComment("end"), new XProcessingInstruction("pi", "x=1"));
            built.Element("o").ReplaceWith(new XElement("replaced"));
            o.WriteLine(built.ToString(SaveOptions.DisableFormatting));
            var cities = xd.Descendants("ship").Select(s => (string)s.Attribute("city")).Distinct().OrderBy(c => c, StringComparer.Ordinal);
            o.WriteLine("cities: " + string.Join(",", cities));
            var xpe = xd.XPathSelectElements("//order[line/@sku='SKU-500']").Count();
            o.WriteLine("xpath on xdocument: " + xpe);
            var sb = new StringBuilder();
            using (var w = XmlWriter.Create(sb, new XmlWriterSettings { OmitXmlDeclaration = true }))
                xd.Root.Elements("order").First().WriteTo(w);
            o.WriteLine("first: " + sb);
        }
    }
}
