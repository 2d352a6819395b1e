// PdbCheck: for each assembly named on the command line, every method with
// sequence points and every IL offset from 0 to its body's size (or one past
// its last sequence point when it has no body in the file), the answer of the
// runtime's stack-trace rule, in the line format of `ilmap source`:
//   0xTOKEN IL DOCUMENT LINE COLUMN    or    0xTOKEN IL -
// The rule: walk the points in blob order, stop at the first one past the
// offset, keep the last visible (not hidden) one; a malformed blob ends the
// walk with what was kept so far. The PDB is the one the runtime would
// choose (see OpenPdb). `--embedded DIR` prints the assemblies
// of DIR (recursively) that embed a PDB, one per line, and nothing else.
// Counts go to standard error.
using System;
using System.Collections.Generic;
using System.IO;
using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;
using System.Reflection.PortableExecutable;
using System.Text;

static class PdbCheck
{
    static int Main(string[] args)
    {
        var stdout = new StreamWriter(Console.OpenStandardOutput(), new UTF8Encoding(false), 1 << 16);
        stdout.NewLine = "\n";
        if (args.Length == 2 && args[0] == "--embedded")
        {
            foreach (string path in Directory.EnumerateFiles(args[1], "*.dll", SearchOption.AllDirectories))
                if (Embeds(path))
                    stdout.WriteLine(path);
            stdout.Flush();
            return 0;
        }
        long methods = 0, offsets = 0, answered = 0;
        foreach (string path in args)
        {
            using var pe = new PEReader(File.OpenRead(path));
            MetadataReaderProvider provider = OpenPdb(path, pe);
            if (provider == null)
            {
                Console.Error.WriteLine($"PdbCheck: {path}: no PDB");
                return 1;
            }
            using (provider)
            {
                MetadataReader pdb = provider.GetMetadataReader();
                MetadataReader md = pe.GetMetadataReader();
                var names = new Dictionary<DocumentHandle, string>();
                foreach (MethodDebugInformationHandle h in pdb.MethodDebugInformation)
                {
                    MethodDebugInformation info = pdb.GetMethodDebugInformation(h);
                    if (info.SequencePointsBlob.IsNil)
                        continue;
                    int row = MetadataTokens.GetRowNumber(h);
                    int token = 0x06000000 | row;
                    int max = Limit(pe, md, row, info);
                    methods++;
                    // The points as the runtime's walk meets them, decoded
                    // once: a malformed blob ends the list where the walk's
                    // exception would end it.
                    var points = new List<SequencePoint>();
                    try
                    {
                        foreach (SequencePoint sp in info.GetSequencePoints())
                            points.Add(sp);
                    }
                    catch (BadImageFormatException) { }
                    for (int il = 0; il <= max; il++)
                    {
                        offsets++;
                        string doc = null;
                        int line = 0, column = 0;
                        try
                        {
                            foreach (SequencePoint sp in points)
                            {
                                if (sp.Offset > il)
                                    break;
                                if (sp.StartLine != SequencePoint.HiddenLine)
                                {
                                    if (!names.TryGetValue(sp.Document, out doc))
                                    {
                                        doc = pdb.GetString(pdb.GetDocument(sp.Document).Name);
                                        names[sp.Document] = doc;
                                    }
                                    line = sp.StartLine;
                                    column = sp.StartColumn;
                                }
                            }
                        }
                        catch (BadImageFormatException) { }
                        if (doc == null)
                        {
                            stdout.WriteLine($"0x{token:x8} {il} -");
                        }
                        else
                        {
                            answered++;
                            stdout.WriteLine($"0x{token:x8} {il} {doc} {line} {column}");
                        }
                    }
                }
            }
        }
        stdout.Flush();
        Console.Error.WriteLine($"PdbCheck: {methods} methods, {offsets} offsets, {answered} with source");
        return 0;
    }

    static bool Embeds(string path)
    {
        try
        {
            using var pe = new PEReader(File.OpenRead(path));
            if (!pe.HasMetadata)
                return false;
            foreach (DebugDirectoryEntry e in pe.ReadDebugDirectory())
                if (e.Type == DebugDirectoryEntryType.EmbeddedPortablePdb)
                    return true;
        }
        catch (BadImageFormatException) { }
        return false;
    }

    // The runtime's choice (System.Reflection.Metadata's associated PDB: a
    // file named by the CodeView entry with the assembly's id, else the
    // embedded one), then the assembly's name with .pdb as `ilmap source`
    // tries last.
    static MetadataReaderProvider OpenPdb(string path, PEReader pe)
    {
        if (pe.TryOpenAssociatedPortablePdb(path, p => File.Exists(p) ? File.OpenRead(p) : null,
                out MetadataReaderProvider provider, out string _))
            return provider;
        string beside = Path.ChangeExtension(path, ".pdb");
        if (!File.Exists(beside))
            return null;
        return MetadataReaderProvider.FromPortablePdbStream(File.OpenRead(beside));
    }

    // The last IL offset to ask about: the body's last byte plus one, so
    // that one offset past the code is asked too.
    static int Limit(PEReader pe, MetadataReader md, int row, MethodDebugInformation info)
    {
        if (row <= md.MethodDefinitions.Count)
        {
            int rva = md.GetMethodDefinition(MetadataTokens.MethodDefinitionHandle(row)).RelativeVirtualAddress;
            if (rva != 0)
                return pe.GetMethodBody(rva).Size;
        }
        int last = 0;
        try
        {
            foreach (SequencePoint sp in info.GetSequencePoints())
                last = sp.Offset;
        }
        catch (BadImageFormatException) { }
        return last + 1;
    }
}
