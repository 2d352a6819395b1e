/*
 * IMetaDataEmit and IMetaDataAssemblyEmit (doc/profiling-abi.md#metadata):
 * the wrap mode (profiler/wrap.c) adds references to a module when it
 * loads: the hooks' assembly, type and methods, System.Exception, and a
 * wrapped method's new LocalVarSig and return-type TypeSpec. Only the
 * called slots are typed; the order of all of them is kept.
 */
#ifndef SHIM_COM_METADATA_EMIT_H
#define SHIM_COM_METADATA_EMIT_H

#include "unknown.h"

typedef mdToken mdTypeRef;
typedef mdToken mdMemberRef;
typedef mdToken mdTypeSpec;
typedef mdToken mdAssemblyRef;

typedef struct IMetaDataEmit IMetaDataEmit;
#define ME IMetaDataEmit *self
typedef struct IMetaDataEmitVtbl {
    HRESULT(CLR_STDCALL *QueryInterface)(ME, const IID *riid, void **ppv);     /* 0 */
    ULONG(CLR_STDCALL *AddRef)(ME);                                             /* 1 */
    ULONG(CLR_STDCALL *Release)(ME);                                            /* 2 */
    clr_slot SetModuleProps, Save, SaveToStream, GetSaveSize;                   /* 3-6 */
    clr_slot DefineTypeDef, DefineNestedType, SetHandler, DefineMethod;         /* 7-10 */
    clr_slot DefineMethodImpl;                                                  /* 11 */
    /* A TypeRef "Ns.Name" resolved in scope (an AssemblyRef, or a TypeRef
     * for a nested type); an existing equal one is returned. */
    HRESULT(CLR_STDCALL *DefineTypeRefByName)(ME, mdToken scope, const WCHAR *name,
                                              mdTypeRef *out);                  /* 12 */
    clr_slot DefineImportType;                                                  /* 13 */
    /* A MemberRef of a method (or field) named name with signature sig, on
     * parent (a TypeRef, TypeDef, TypeSpec ...); an existing one is returned. */
    HRESULT(CLR_STDCALL *DefineMemberRef)(ME, mdToken parent, const WCHAR *name,
                                          PCCOR_SIGNATURE sig, ULONG sig_size,
                                          mdMemberRef *out);                    /* 14 */
    clr_slot DefineImportMember, DefineEvent, SetClassLayout, DeleteClassLayout; /* 15-18 */
    clr_slot SetFieldMarshal, DeleteFieldMarshal, DefinePermissionSet, SetRVA;  /* 19-22 */
    /* A StandAloneSig token for sig (a LocalVarSig, as a body's header names it). */
    HRESULT(CLR_STDCALL *GetTokenFromSig)(ME, PCCOR_SIGNATURE sig, ULONG sig_size,
                                          mdSignature *out);                    /* 23 */
    clr_slot DefineModuleRef, SetParent;                                        /* 24-25 */
    /* A TypeSpec token for one type's signature blob. */
    HRESULT(CLR_STDCALL *GetTokenFromTypeSpec)(ME, PCCOR_SIGNATURE sig, ULONG sig_size,
                                               mdTypeSpec *out);                /* 26 */
    clr_slot SaveToMemory, DefineUserString, DeleteToken, SetMethodProps;       /* 27-30 */
    clr_slot SetTypeDefProps, SetEventProps, SetPermissionSetProps;             /* 31-33 */
    clr_slot DefinePinvokeMap, SetPinvokeMap, DeletePinvokeMap;                 /* 34-36 */
    clr_slot DefineCustomAttribute, SetCustomAttributeValue, DefineField;       /* 37-39 */
    clr_slot DefineProperty, DefineParam, SetFieldProps, SetPropertyProps;      /* 40-43 */
    clr_slot SetParamProps, DefineSecurityAttributeSet, ApplyEditAndContinue;   /* 44-46 */
    clr_slot TranslateSigWithScope, SetMethodImplFlags, SetFieldRVA;            /* 47-49 */
    clr_slot Merge, MergeEnd;                                                   /* 50-51 */
} IMetaDataEmitVtbl;
#undef ME

struct IMetaDataEmit {
    const IMetaDataEmitVtbl *lpVtbl;
};

CLR_SLOT_AT(IMetaDataEmitVtbl, DefineTypeRefByName, 12);
CLR_SLOT_AT(IMetaDataEmitVtbl, DefineMemberRef, 14);
CLR_SLOT_AT(IMetaDataEmitVtbl, GetTokenFromSig, 23);
CLR_SLOT_AT(IMetaDataEmitVtbl, GetTokenFromTypeSpec, 26);
_Static_assert(sizeof(IMetaDataEmitVtbl) == 52 * sizeof(void (*)(void)),
               "IMetaDataEmit has 52 slots");

/* An assembly's version and culture (DefineAssemblyRef). */
typedef struct ASSEMBLYMETADATA {
    USHORT usMajorVersion;
    USHORT usMinorVersion;
    USHORT usBuildNumber;
    USHORT usRevisionNumber;
    WCHAR *szLocale;    /* NULL: culture neutral */
    ULONG cbLocale;
    DWORD *rProcessor;  /* unused: NULL, 0 */
    ULONG ulProcessor;
    void *rOS;          /* unused: NULL, 0 */
    ULONG ulOS;
} ASSEMBLYMETADATA;

typedef struct IMetaDataAssemblyEmit IMetaDataAssemblyEmit;
#define MA IMetaDataAssemblyEmit *self
typedef struct IMetaDataAssemblyEmitVtbl {
    HRESULT(CLR_STDCALL *QueryInterface)(MA, const IID *riid, void **ppv);     /* 0 */
    ULONG(CLR_STDCALL *AddRef)(MA);                                             /* 1 */
    ULONG(CLR_STDCALL *Release)(MA);                                            /* 2 */
    clr_slot DefineAssembly;                                                    /* 3 */
    /* An AssemblyRef by simple name (public key or token optional). */
    HRESULT(CLR_STDCALL *DefineAssemblyRef)(MA, const void *public_key, ULONG public_key_size,
                                            const WCHAR *name, const ASSEMBLYMETADATA *meta,
                                            const void *hash, ULONG hash_size, DWORD flags,
                                            mdAssemblyRef *out);                /* 4 */
    clr_slot DefineFile, DefineExportedType, DefineManifestResource;           /* 5-7 */
    clr_slot SetAssemblyProps, SetAssemblyRefProps, SetFileProps;              /* 8-10 */
    clr_slot SetExportedTypeProps, SetManifestResourceProps;                   /* 11-12 */
} IMetaDataAssemblyEmitVtbl;
#undef MA

struct IMetaDataAssemblyEmit {
    const IMetaDataAssemblyEmitVtbl *lpVtbl;
};

CLR_SLOT_AT(IMetaDataAssemblyEmitVtbl, DefineAssemblyRef, 4);
_Static_assert(sizeof(IMetaDataAssemblyEmitVtbl) == 13 * sizeof(void (*)(void)),
               "IMetaDataAssemblyEmit has 13 slots");

#endif
