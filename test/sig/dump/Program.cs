// Writes every signature blob of the given assemblies to a text corpus,
// one line each:
//
//   <assembly> <kind> <token> <hex>
//
// kind: M MethodDef, R MemberRef, S StandAloneSig, T TypeSpec, F Field,
// P Property, I MethodSpec (its instantiation). And one line per field
// for the static kinds:
//
//   <assembly> A <token> <flags> <expected kind> <attribute type names,
//   comma-separated, or ->
//
// where the expected kind is worked out here from the field's
// FieldAttributes and attributes (none, literal, rva, thread, context,
// appdomain; "conflict" for two at once). Usage: SigDump OUT ASSEMBLY...
// ("self" for this program's own assembly, whose Corpus class holds
// signatures the framework rarely has).
using System;
using System.Collections.Generic;
using System.IO;
using System.Reflection;
using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;
using System.Reflection.PortableExecutable;
using System.Runtime.CompilerServices;
using System.Text;

static class Program
{
    static int Main(string[] args)
    {
        if (args.Length < 2)
        {
            Console.Error.WriteLine("usage: SigDump OUT ASSEMBLY...");
            return 2;
        }
        using var output = new StreamWriter(args[0], false, new UTF8Encoding(false));
        for (int i = 1; i < args.Length; i++)
        {
            string path = args[i] == "self" ? typeof(Program).Assembly.Location : args[i];
            Dump(output, Path.GetFileName(path), path);
        }
        return 0;
    }

    static void Line(StreamWriter w, string asm, string kind, EntityHandle h, byte[] blob)
    {
        w.Write(asm);
        w.Write(' ');
        w.Write(kind);
        w.Write(' ');
        w.Write(MetadataTokens.GetToken(h).ToString("X8"));
        w.Write(' ');
        w.Write(Convert.ToHexString(blob));
        w.Write('\n');
    }

    static void Dump(StreamWriter w, string asm, string path)
    {
        using var stream = File.OpenRead(path);
        using var pe = new PEReader(stream);
        MetadataReader md = pe.GetMetadataReader();
        foreach (var h in md.MethodDefinitions)
            Line(w, asm, "M", h, md.GetBlobBytes(md.GetMethodDefinition(h).Signature));
        foreach (var h in md.MemberReferences)
            Line(w, asm, "R", h, md.GetBlobBytes(md.GetMemberReference(h).Signature));
        for (int i = 1; i <= md.GetTableRowCount(TableIndex.StandAloneSig); i++)
        {
            var h = MetadataTokens.StandaloneSignatureHandle(i);
            Line(w, asm, "S", h, md.GetBlobBytes(md.GetStandaloneSignature(h).Signature));
        }
        for (int i = 1; i <= md.GetTableRowCount(TableIndex.TypeSpec); i++)
        {
            var h = MetadataTokens.TypeSpecificationHandle(i);
            Line(w, asm, "T", h, md.GetBlobBytes(md.GetTypeSpecification(h).Signature));
        }
        foreach (var h in md.PropertyDefinitions)
            Line(w, asm, "P", h, md.GetBlobBytes(md.GetPropertyDefinition(h).Signature));
        for (int i = 1; i <= md.GetTableRowCount(TableIndex.MethodSpec); i++)
        {
            var h = MetadataTokens.MethodSpecificationHandle(i);
            Line(w, asm, "I", h, md.GetBlobBytes(md.GetMethodSpecification(h).Signature));
        }
        foreach (var h in md.FieldDefinitions)
        {
            FieldDefinition f = md.GetFieldDefinition(h);
            Line(w, asm, "F", h, md.GetBlobBytes(f.Signature));
            var names = new List<string>();
            foreach (var ca in f.GetCustomAttributes())
                names.Add(AttributeTypeName(md, md.GetCustomAttribute(ca)));
            w.Write($"{asm} A {MetadataTokens.GetToken(h):X8} {(int)f.Attributes:X4} " +
                    $"{ExpectedKind(f.Attributes, names)} " +
                    $"{(names.Count == 0 ? "-" : string.Join(",", names))}\n");
        }
    }

    static string TypeName(MetadataReader md, EntityHandle type)
    {
        switch (type.Kind)
        {
            case HandleKind.TypeReference:
            {
                var t = md.GetTypeReference((TypeReferenceHandle)type);
                return Join(md.GetString(t.Namespace), md.GetString(t.Name));
            }
            case HandleKind.TypeDefinition:
            {
                var t = md.GetTypeDefinition((TypeDefinitionHandle)type);
                return Join(md.GetString(t.Namespace), md.GetString(t.Name));
            }
            default:
                return "?";
        }
    }

    static string Join(string ns, string name) => ns.Length == 0 ? name : ns + "." + name;

    static string AttributeTypeName(MetadataReader md, CustomAttribute ca)
    {
        switch (ca.Constructor.Kind)
        {
            case HandleKind.MemberReference:
                return TypeName(md, md.GetMemberReference((MemberReferenceHandle)ca.Constructor).Parent);
            case HandleKind.MethodDefinition:
                return TypeName(md, md.GetMethodDefinition((MethodDefinitionHandle)ca.Constructor).GetDeclaringType());
            default:
                return "?";
        }
    }

    static string ExpectedKind(FieldAttributes a, List<string> names)
    {
        if ((a & FieldAttributes.Static) == 0)
            return "none";
        if ((a & FieldAttributes.Literal) != 0)
            return "literal";
        bool rva = (a & FieldAttributes.HasFieldRVA) != 0;
        bool thread = names.Contains("System.ThreadStaticAttribute");
        bool context = names.Contains("System.ContextStaticAttribute");
        int kinds = (rva ? 1 : 0) + (thread ? 1 : 0) + (context ? 1 : 0);
        if (kinds > 1)
            return "conflict";
        return rva ? "rva" : thread ? "thread" : context ? "context" : "appdomain";
    }
}

// Signatures the framework's assemblies rarely or never have, so that the
// corpus holds them: function pointers (managed and unmanaged, with their
// calling-convention modifiers), a vararg call site (__arglist: a MemberRef
// with a SENTINEL), TypedReference, pinned locals, ref fields, multi-
// dimensional arrays, every static kind.
#pragma warning disable CS0649, CS9265 // never assigned: only their signatures matter
unsafe static class Corpus
{
    [ThreadStatic] public static int PerThread;
#pragma warning disable CS0618 // ContextStatic: obsolete, kept for the static kinds
    [ContextStatic] public static object PerContext;
#pragma warning restore CS0618
    public const int Constant = 42;
    public static readonly int[,] Matrix = new int[2, 3];
    public static int[][,] Jagged;
    public static delegate*<int, string, long> Managed;
    public static delegate* unmanaged[Cdecl]<int, void> Unmanaged;
    public static delegate* unmanaged[Stdcall, SuppressGCTransition]<ref int, int*> Fancy;

    public static int Vararg(int first, __arglist)
    {
        var it = new ArgIterator(__arglist);
        int n = first;
        while (it.GetRemainingCount() > 0)
            n += __refvalue(it.GetNextArg(), int);
        return n;
    }

    public static int CallVararg() => Vararg(1, __arglist(2, 3, "x"));

    public static int Typed(TypedReference r) => __refvalue(r, int);

    public static int Pinned(int[] a)
    {
        fixed (int* p = a)
            return p[0];
    }

    public static int Call(delegate*<int, string, long> f) => (int)f(1, "a");

    public static T Generic<T, U>(T t, U[] u, Dictionary<T, List<U>> d) where T : struct => t;

    public static ref readonly int In(in int x, out int y, ref int z)
    {
        y = z;
        return ref x;
    }
}

ref struct RefHolder
{
    public ref int Value;
    public ref readonly long Nested;
}
#pragma warning restore CS0649, CS9265
