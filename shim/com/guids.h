/*
 * Interface and class identifiers (values from doc/profiling-abi.md#guids), and the
 * shim's own CLSID.
 */
#ifndef SHIM_COM_GUIDS_H
#define SHIM_COM_GUIDS_H

#include "types.h"

extern const IID IID_IUnknown;
extern const IID IID_IClassFactory;
extern const IID IID_ICorProfilerCallback;
extern const IID IID_ICorProfilerCallback2;
extern const IID IID_ICorProfilerCallback3;
extern const IID IID_ICorProfilerCallback4;
extern const IID IID_ICorProfilerCallback5;
extern const IID IID_ICorProfilerCallback6;
extern const IID IID_ICorProfilerCallback7;
extern const IID IID_ICorProfilerCallback8;
extern const IID IID_ICorProfilerCallback9;
extern const IID IID_ICorProfilerCallback10;
extern const IID IID_ICorProfilerCallback11;
extern const IID IID_ICorProfilerInfo4;
extern const IID IID_ICorProfilerInfo5;
extern const IID IID_ICorProfilerInfo9;
extern const IID IID_ICorProfilerFunctionControl;
extern const IID IID_IMetaDataImport;
extern const IID IID_IMetaDataEmit;
extern const IID IID_IMetaDataAssemblyEmit;

/* The shim's class: {1A6B2C3D-0E4F-4A5B-9C8D-7E6F5A4B3C2D}. Any random GUID
 * would do; it only has to match CORECLR_PROFILER. */
extern const CLSID CLSID_IlmapShim;
#define SHIM_CLSID_STRING "{1A6B2C3D-0E4F-4A5B-9C8D-7E6F5A4B3C2D}"

/* Field-wise comparison: GUIDs are compared by value, never by address. */
int shim_guid_equal(const GUID *a, const GUID *b);

#endif
