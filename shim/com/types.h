/*
 * Scalar types, GUIDs and HRESULTs of the CLR profiling ABI, declared from
 * the facts in doc/profiling-abi.md#types and #flags (no runtime header is used or copied).
 *
 * The names are the documented COM names so that a reader can hold this
 * file next to the profiling API documentation. Consequence: a translation
 * unit that includes these headers must not also include <windows.h>
 * (platform code lives in shim/platform/ and never sees them).
 */
#ifndef SHIM_COM_TYPES_H
#define SHIM_COM_TYPES_H

#include <stddef.h>
#include <stdint.h>

/* Only 32-bit Windows has a distinct COM calling convention; everywhere
 * else (Linux x64, Windows x64) the PAL/SDK define it away (doc/profiling-abi.md#types). */
#if defined(_WIN32) && (defined(_M_IX86) || defined(__i386__))
#  define CLR_STDCALL __stdcall
#else
#  define CLR_STDCALL
#endif

/* LONG/ULONG are 32-bit on every CLR platform, including LP64 Linux: the
 * PAL deliberately avoids `long` (doc/profiling-abi.md#types). */
typedef int32_t HRESULT;
typedef int32_t BOOL;
typedef uint32_t ULONG;
typedef uint32_t ULONG32;
typedef uint32_t DWORD;
typedef uint32_t UINT;
typedef uint16_t USHORT;
typedef uint8_t BYTE;
typedef const BYTE *LPCBYTE;
/* WCHAR is UTF-16 on every CLR platform; wchar_t is 32-bit on Linux. */
typedef uint16_t WCHAR;
typedef uintptr_t UINT_PTR;
typedef size_t SIZE_T;

typedef uint32_t mdToken;
typedef mdToken mdMethodDef;
typedef mdToken mdFieldDef;
typedef mdToken mdTypeDef;
typedef mdToken mdSignature;
typedef const BYTE *PCCOR_SIGNATURE;
typedef void *HCORENUM;

/* Runtime handles: all UINT_PTR in the IDL. */
typedef UINT_PTR ModuleID;
typedef UINT_PTR FunctionID;
typedef UINT_PTR ClassID;
typedef UINT_PTR ThreadID;
typedef UINT_PTR AssemblyID;
typedef UINT_PTR AppDomainID;
typedef UINT_PTR ObjectID;
typedef UINT_PTR ReJITID;
typedef UINT_PTR GCHandleID;
typedef UINT_PTR ContextID;

/* C enums in signatures travel as 32-bit ints. */
typedef int32_t COR_PRF_JIT_CACHE;
typedef int32_t COR_PRF_TRANSITION_REASON;
typedef int32_t COR_PRF_SUSPEND_REASON;
typedef int32_t COR_PRF_GC_REASON;
typedef int32_t COR_PRF_GC_ROOT_KIND;
typedef int32_t COR_PRF_GC_ROOT_FLAGS;
typedef int32_t COR_PRF_RUNTIME_TYPE;
/* GetStaticFieldInfo's answer: which kinds of static storage a field has. */
typedef int32_t COR_PRF_STATIC_TYPE;
#define COR_PRF_FIELD_NOT_A_STATIC 0x0
#define COR_PRF_FIELD_APP_DOMAIN_STATIC 0x1
#define COR_PRF_FIELD_THREAD_STATIC 0x2
#define COR_PRF_FIELD_CONTEXT_STATIC 0x4
#define COR_PRF_FIELD_RVA_STATIC 0x8

/* One instance field's place in its class (GetClassLayout, profiler's and
 * metadata's). */
typedef struct COR_FIELD_OFFSET {
    mdToken ridOfField;
    ULONG ulOffset;
} COR_FIELD_OFFSET;

typedef struct GUID {
    uint32_t Data1;
    uint16_t Data2;
    uint16_t Data3;
    uint8_t Data4[8];
} GUID;
typedef GUID IID;
typedef GUID CLSID;

_Static_assert(sizeof(GUID) == 16, "GUID is 16 bytes without padding");

#define S_OK ((HRESULT)0)
#define S_FALSE ((HRESULT)1)
#define E_NOTIMPL ((HRESULT)0x80004001u)
#define E_NOINTERFACE ((HRESULT)0x80004002u)
#define E_POINTER ((HRESULT)0x80004003u)
#define E_FAIL ((HRESULT)0x80004005u)
#define E_UNEXPECTED ((HRESULT)0x8000FFFFu)
#define E_OUTOFMEMORY ((HRESULT)0x8007000Eu)
#define E_INVALIDARG ((HRESULT)0x80070057u)
#define CLASS_E_NOAGGREGATION ((HRESULT)0x80040110u)
#define CLASS_E_CLASSNOTAVAILABLE ((HRESULT)0x80040111u)
#define HRESULT_INSUFFICIENT_BUFFER ((HRESULT)0x8007007Au)
#define CLDB_E_RECORD_NOTFOUND ((HRESULT)0x80131130u) /* metadata: no such row */
#define CORPROF_E_FUNCTION_NOT_COMPILED ((HRESULT)0x80131350u)
#define CORPROF_E_DATAINCOMPLETE ((HRESULT)0x80131351u)
#define CORPROF_E_FUNCTION_NOT_IL ((HRESULT)0x80131354u)
#define CORPROF_E_UNSUPPORTED_CALL_SEQUENCE ((HRESULT)0x80131363u)
#define CORPROF_E_PROFILER_ALREADY_ACTIVE ((HRESULT)0x8013136Au)
#define CORPROF_E_PROFILER_CANCEL_ACTIVATION ((HRESULT)0x80131375u)
#define CORPROF_E_DEBUGGING_DISABLED ((HRESULT)0x80131378u)
#define CORPROF_E_REJIT_NOT_ENABLED ((HRESULT)0x8013137Cu)

#define SUCCEEDED(hr) ((HRESULT)(hr) >= 0)
#define FAILED(hr) ((HRESULT)(hr) < 0)

#endif
