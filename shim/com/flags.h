/*
 * Event-mask flags and other constants of the profiling API that the shim
 * uses (values from doc/profiling-abi.md#flags).
 */
#ifndef SHIM_COM_FLAGS_H
#define SHIM_COM_FLAGS_H

/* COR_PRF_MONITOR (ICorProfilerInfo::SetEventMask) */
#define COR_PRF_MONITOR_NONE 0x00000000u
#define COR_PRF_MONITOR_MODULE_LOADS 0x00000004u
#define COR_PRF_MONITOR_CLASS_LOADS 0x00000002u
#define COR_PRF_MONITOR_JIT_COMPILATION 0x00000020u
#define COR_PRF_MONITOR_ENTERLEAVE 0x00001000u
#define COR_PRF_MONITOR_CACHE_SEARCHES 0x00020000u
#define COR_PRF_ENABLE_REJIT 0x00040000u
#define COR_PRF_DISABLE_INLINING 0x00200000u
#define COR_PRF_DISABLE_OPTIMIZATIONS 0x00400000u
/* One of these three selects the slow-path ELT hooks
 * (SetEnterLeaveFunctionHooks3WithInfo); all three are immutable after
 * Initialize. */
#define COR_PRF_ENABLE_FUNCTION_ARGS 0x02000000u
#define COR_PRF_ENABLE_FUNCTION_RETVAL 0x04000000u
#define COR_PRF_ENABLE_FRAME_INFO 0x08000000u
#define COR_PRF_DISABLE_ALL_NGEN_IMAGES 0x80000000u

/* COR_PRF_HIGH_MONITOR (ICorProfilerInfo5::SetEventMask2); immutable
 * after Initialize. */
#define COR_PRF_HIGH_DISABLE_TIERED_COMPILATION 0x00000008u

/* COR_PRF_JIT_CACHE (JITCachedFunctionSearchFinished) */
#define COR_PRF_CACHED_FUNCTION_FOUND 0
#define COR_PRF_CACHED_FUNCTION_NOT_FOUND 1

/* ICorProfilerFunctionControl::SetCodegenFlags */
#define COR_PRF_CODEGEN_DISABLE_INLINING 0x1u
#define COR_PRF_CODEGEN_DISABLE_ALL_OPTIMIZATIONS 0x2u

/* IMetaDataImport / GetModuleMetaData */
#define CLR_OF_READ 0x00000000u
#define CLR_OF_WRITE 0x00000001u /* the module's emitter (IMetaDataEmit) */
#define CLR_MD_TOKEN_NIL 0x00000000u
#define CLR_MD_TOKEN_TYPE_MASK 0xFF000000u
#define CLR_MD_METHOD_DEF 0x06000000u

/* COR_PRF_RUNTIME_TYPE */
#define COR_PRF_DESKTOP_CLR 1
#define COR_PRF_CORE_CLR 2

#endif
