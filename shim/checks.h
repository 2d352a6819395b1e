/*
 * The proof against the runtime (issue 6, part 3): what the shim checks
 * after each ReJIT compilation and, at shutdown, against the program's
 * recorded stack frames. Every check is one report line.
 */
#ifndef SHIM_CHECKS_H
#define SHIM_CHECKS_H

#include "profiler.h"

/* After ReJITCompilationFinished of one of our methods: the runtime's map
 * of that native version, its buffer protocol, (a), the ReJITID facts,
 * and (b) once both twins of a pair are compiled. */
void shim_check_version(shim_profiler *p, ModuleID module, mdMethodDef token,
                        FunctionID function, ReJITID rejit);

/* (c), from the ILMAP_SHIM_FRAMES file the program wrote. */
void shim_check_frames(shim_profiler *p);

#endif
