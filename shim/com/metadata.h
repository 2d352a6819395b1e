/*
 * IMetaDataImport (doc/profiling-abi.md#metadata): the
 * shim resolves "Namespace.Type::Method" to methodDef tokens with it. Only
 * the called slots are typed; the order of all 62 is kept.
 */
#ifndef SHIM_COM_METADATA_H
#define SHIM_COM_METADATA_H

#include "unknown.h"

typedef struct IMetaDataImport IMetaDataImport;
#define MI IMetaDataImport *self
typedef struct IMetaDataImportVtbl {
    HRESULT(CLR_STDCALL *QueryInterface)(MI, const IID *riid, void **ppv);   /* 0 */
    ULONG(CLR_STDCALL *AddRef)(MI);                                           /* 1 */
    ULONG(CLR_STDCALL *Release)(MI);                                          /* 2 */
    void(CLR_STDCALL *CloseEnum)(MI, HCORENUM e);                             /* 3 */
    clr_slot CountEnum;                                                       /* 4 */
    clr_slot ResetEnum;                                                       /* 5 */
    HRESULT(CLR_STDCALL *EnumTypeDefs)(MI, HCORENUM *e, mdTypeDef out[], ULONG cap,
                                       ULONG *count);                         /* 6 */
    clr_slot EnumInterfaceImpls;                                              /* 7 */
    HRESULT(CLR_STDCALL *EnumTypeRefs)(MI, HCORENUM *e, mdToken out[], ULONG cap,
                                       ULONG *count);                         /* 8 */
    HRESULT(CLR_STDCALL *FindTypeDefByName)(MI, const WCHAR *name, mdToken enclosing,
                                            mdTypeDef *out);                  /* 9 */
    clr_slot GetScopeProps;                                                   /* 10 */
    clr_slot GetModuleFromScope;                                              /* 11 */
    /* The name is the full one: "Ns.Name" (a nested type's namespace is
     * usually empty). */
    HRESULT(CLR_STDCALL *GetTypeDefProps)(MI, mdTypeDef td, WCHAR *name, ULONG cch_name,
                                          ULONG *pcch_name, DWORD *flags,
                                          mdToken *extends);                  /* 12 */
    clr_slot GetInterfaceImplProps;                                           /* 13 */
    /* The name is the full one, "Ns.Name". */
    HRESULT(CLR_STDCALL *GetTypeRefProps)(MI, mdToken tr, mdToken *scope, WCHAR *name,
                                          ULONG cch_name, ULONG *pcch_name); /* 14 */
    /* The TypeDef a TypeRef names, and the metadata of its module (an
     * interface of riid, released by the caller). */
    HRESULT(CLR_STDCALL *ResolveTypeRef)(MI, mdToken tr, const IID *riid, IUnknown **scope,
                                         mdTypeDef *td);                      /* 15 */
    clr_slot EnumMembers;                                                     /* 16 */
    clr_slot EnumMembersWithName;                                             /* 17 */
    HRESULT(CLR_STDCALL *EnumMethods)(MI, HCORENUM *e, mdTypeDef cls, mdMethodDef out[],
                                      ULONG cap, ULONG *count);               /* 18 */
    HRESULT(CLR_STDCALL *EnumMethodsWithName)(MI, HCORENUM *e, mdTypeDef cls,
                                              const WCHAR *name, mdMethodDef out[],
                                              ULONG cap, ULONG *count);       /* 19 */
    /* The fields (static and instance) a TypeDef declares itself. */
    HRESULT(CLR_STDCALL *EnumFields)(MI, HCORENUM *e, mdTypeDef cls, mdFieldDef out[],
                                     ULONG cap, ULONG *count);                /* 20 */
    clr_slot EnumFieldsWithName;                                              /* 21 */
    clr_slot EnumParams;                                                      /* 22 */
    clr_slot EnumMemberRefs;                                                  /* 23 */
    clr_slot EnumMethodImpls;                                                 /* 24 */
    clr_slot EnumPermissionSets;                                              /* 25 */
    clr_slot FindMember;                                                      /* 26 */
    HRESULT(CLR_STDCALL *FindMethod)(MI, mdTypeDef cls, const WCHAR *name,
                                     PCCOR_SIGNATURE sig, ULONG sig_size,
                                     mdMethodDef *out);                       /* 27 */
    clr_slot FindField;                                                       /* 28 */
    clr_slot FindMemberRef;                                                   /* 29 */
    HRESULT(CLR_STDCALL *GetMethodProps)(MI, mdMethodDef, mdTypeDef *cls, WCHAR *name,
                                         ULONG cch_name, ULONG *pcch_name, DWORD *attr,
                                         PCCOR_SIGNATURE *sig, ULONG *sig_size,
                                         ULONG *code_rva, DWORD *impl_flags); /* 30 */
    clr_slot GetMemberRefProps;                                               /* 31 */
    clr_slot EnumProperties;                                                  /* 32 */
    clr_slot EnumEvents;                                                      /* 33 */
    clr_slot GetEventProps;                                                   /* 34 */
    clr_slot EnumMethodSemantics;                                             /* 35 */
    clr_slot GetMethodSemantics;                                              /* 36 */
    /* A TypeDef's explicit layout: packing, field offsets (explicit
     * layout only) and its declared size (0 when none). */
    HRESULT(CLR_STDCALL *GetClassLayout)(MI, mdTypeDef td, DWORD *pack,
                                         COR_FIELD_OFFSET offsets[], ULONG cap, ULONG *total,
                                         ULONG *class_size);                  /* 37 */
    clr_slot GetFieldMarshal;                                                 /* 38 */
    clr_slot GetRVA;                                                          /* 39 */
    clr_slot GetPermissionSetProps;                                           /* 40 */
    /* A StandAloneSig's blob (a body's LocalVarSig). */
    HRESULT(CLR_STDCALL *GetSigFromToken)(MI, mdSignature sig, PCCOR_SIGNATURE *blob,
                                          ULONG *size);                       /* 41 */
    clr_slot GetModuleRefProps;                                               /* 42 */
    clr_slot EnumModuleRefs;                                                  /* 43 */
    clr_slot GetTypeSpecFromToken;                                            /* 44 */
    clr_slot GetNameFromToken;                                                /* 45 */
    clr_slot EnumUnresolvedMethods;                                           /* 46 */
    clr_slot GetUserString;                                                   /* 47 */
    clr_slot GetPinvokeMap;                                                   /* 48 */
    clr_slot EnumSignatures;                                                  /* 49 */
    clr_slot EnumTypeSpecs;                                                   /* 50 */
    clr_slot EnumUserStrings;                                                 /* 51 */
    clr_slot GetParamForMethodIndex;                                          /* 52 */
    clr_slot EnumCustomAttributes;                                            /* 53 */
    clr_slot GetCustomAttributeProps;                                         /* 54 */
    clr_slot FindTypeRef;                                                     /* 55 */
    clr_slot GetMemberProps;                                                  /* 56 */
    /* name: the simple name; sig: the FieldSig blob; value: a literal's
     * constant (type and size in elem_type, value_len). */
    HRESULT(CLR_STDCALL *GetFieldProps)(MI, mdFieldDef fd, mdTypeDef *cls, WCHAR *name,
                                        ULONG cch_name, ULONG *pcch_name, DWORD *attr,
                                        PCCOR_SIGNATURE *sig, ULONG *sig_size,
                                        DWORD *elem_type, const void **value,
                                        ULONG *value_len);                    /* 57 */
    clr_slot GetPropertyProps;                                                /* 58 */
    clr_slot GetParamProps;                                                   /* 59 */
    /* S_OK when the token carries a custom attribute of that type's full
     * name (its blob in data), S_FALSE when not. */
    HRESULT(CLR_STDCALL *GetCustomAttributeByName)(MI, mdToken owner, const WCHAR *name,
                                                   const void **data, ULONG *size); /* 60 */
    clr_slot IsValidToken;                                                    /* 61 */
    HRESULT(CLR_STDCALL *GetNestedClassProps)(MI, mdTypeDef nested,
                                              mdTypeDef *enclosing);          /* 62 */
    clr_slot GetNativeCallConvFromSig;                                        /* 63 */
    clr_slot IsGlobal;                                                        /* 64 */
} IMetaDataImportVtbl;
#undef MI

struct IMetaDataImport {
    const IMetaDataImportVtbl *lpVtbl;
};

CLR_SLOT_AT(IMetaDataImportVtbl, EnumTypeDefs, 6);
CLR_SLOT_AT(IMetaDataImportVtbl, EnumTypeRefs, 8);
CLR_SLOT_AT(IMetaDataImportVtbl, ResolveTypeRef, 15);
CLR_SLOT_AT(IMetaDataImportVtbl, FindTypeDefByName, 9);
CLR_SLOT_AT(IMetaDataImportVtbl, GetTypeDefProps, 12);
CLR_SLOT_AT(IMetaDataImportVtbl, GetTypeRefProps, 14);
CLR_SLOT_AT(IMetaDataImportVtbl, EnumMethods, 18);
CLR_SLOT_AT(IMetaDataImportVtbl, EnumFields, 20);
CLR_SLOT_AT(IMetaDataImportVtbl, EnumMethodsWithName, 19);
CLR_SLOT_AT(IMetaDataImportVtbl, FindMethod, 27);
CLR_SLOT_AT(IMetaDataImportVtbl, GetMethodProps, 30);
CLR_SLOT_AT(IMetaDataImportVtbl, GetFieldProps, 57);
CLR_SLOT_AT(IMetaDataImportVtbl, GetClassLayout, 37);
CLR_SLOT_AT(IMetaDataImportVtbl, GetSigFromToken, 41);
CLR_SLOT_AT(IMetaDataImportVtbl, GetCustomAttributeByName, 60);
CLR_SLOT_AT(IMetaDataImportVtbl, GetNestedClassProps, 62);
CLR_SLOT_AT(IMetaDataImportVtbl, IsGlobal, 64);
_Static_assert(sizeof(IMetaDataImportVtbl) == 65 * sizeof(void (*)(void)),
               "IMetaDataImport has 65 slots");

#endif
