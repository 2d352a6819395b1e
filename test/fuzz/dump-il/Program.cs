// Picks method bodies from assemblies for the fuzz corpora: with two or
// more exception clauses, with a switch, tiny ones, a large one, with
// two-byte opcodes. Writes OUTDIR/code-NAME (the IL code alone, for
// fuzz-il) and OUTDIR/body-NAME (header, code and sections, for
// fuzz-body). Usage: ILDump OUTDIR ASSEMBLY...
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Reflection.Metadata;
using System.Reflection.PortableExecutable;

static class Program
{
    static int Main(string[] args)
    {
        string outDir = args[0];
        Directory.CreateDirectory(outDir);
        var picks = new List<(string name, byte[] code, byte[] body)>();
        foreach (var path in args.Skip(1))
        {
            using var fs = File.OpenRead(path);
            using var pe = new PEReader(fs);
            var md = pe.GetMetadataReader();
            var bodies = new List<(MethodDefinitionHandle h, MethodBodyBlock b)>();
            foreach (var h in md.MethodDefinitions)
            {
                var def = md.GetMethodDefinition(h);
                if (def.RelativeVirtualAddress == 0) continue;
                bodies.Add((h, pe.GetMethodBody(def.RelativeVirtualAddress)));
            }
            string asm = Path.GetFileNameWithoutExtension(path).Replace('.', '-').ToLowerInvariant();
            int k = 0;
            void Take(string what, IEnumerable<(MethodDefinitionHandle h, MethodBodyBlock b)> from, int count)
            {
                foreach (var (h, b) in from.Take(count))
                {
                    var il = b.GetILBytes();
                    var reader = pe.GetSectionData(md.GetMethodDefinition(h).RelativeVirtualAddress).GetReader();
                    var whole = reader.ReadBytes(b.Size);
                    picks.Add(($"{asm}-{what}-{k++}", il, whole));
                }
            }
            bool HasOp(byte[] il, byte op) => Array.IndexOf(il, op) >= 0;
            Take("eh", bodies.Where(x => x.b.ExceptionRegions.Length >= 2 && x.b.Size < 600), 3);
            Take("switch", bodies.Where(x => HasOp(x.b.GetILBytes()!, 0x45) && x.b.Size < 800), 3);
            Take("tiny", bodies.Where(x => x.b.Size < 20), 2);
            Take("large", bodies.Where(x => x.b.Size > 1500 && x.b.Size < 4000), 1);
            Take("fe", bodies.Where(x => HasOp(x.b.GetILBytes()!, 0xFE) && x.b.Size < 300), 2);
        }
        foreach (var (name, code, body) in picks)
        {
            File.WriteAllBytes(Path.Combine(outDir, "code-" + name), code);
            File.WriteAllBytes(Path.Combine(outDir, "body-" + name), body);
        }
        Console.WriteLine($"{picks.Count} bodies");
        return 0;
    }
}
