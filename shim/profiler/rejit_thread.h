/*
 * The shim's own ReJIT thread. RequestReJIT is legal from a thread the
 * profiler created that never runs managed code (doc/profiling-abi.md#rejit-rules),
 * so callbacks hand it batches and wait, with a timeout, for the request
 * to be made. Batches that pile up while a request is being made go out
 * together in the next one. The thread only ever calls RequestReJIT.
 */
#ifndef SHIM_REJIT_THREAD_H
#define SHIM_REJIT_THREAD_H

#include <stddef.h>
#include <stdint.h>

#include "com/info.h"
#include "platform/thread.h"

typedef struct shim_rejit_batch shim_rejit_batch;

typedef struct shim_rejit_worker {
    ICorProfilerInfo4 *info;
    ilmap_thread thread;
    ilmap_mutex lock;
    ilmap_cond cond;
    int running;             /* the thread is up */
    int stop;                /* asks the thread to finish */
    int exited;              /* the thread has left its loop */
    shim_rejit_batch *head;  /* pending batches, oldest first */
    shim_rejit_batch *tail;
    uint64_t queued;         /* batches handed in so far */
    uint64_t done;           /* batches whose RequestReJIT returned */
    uint64_t requests;       /* RequestReJIT calls made (pending batches are joined) */
    uint64_t unpublished;    /* requests made without their function's code published */
    HRESULT last_hr;         /* result of the most recent request */
} shim_rejit_worker;

/* Starts the thread. Returns non-zero (logged) on failure; then
 * shim_rejit_request() fails too and the shim carries on unrejitted. */
int shim_rejit_start(shim_rejit_worker *w, ICorProfilerInfo4 *info);

/*
 * Queues RequestReJIT(count, modules, methods) (the arrays are copied) and
 * waits up to timeout_ms for it to be made. With `published` (a
 * FunctionID, else 0), the thread makes the request only once the runtime
 * has published that function's original code (a request made before is
 * lost: shim/FINDINGS.md#rejit-before-publish). Returns RequestReJIT's
 * HRESULT; S_FALSE when the wait timed out (the request still happens
 * later); a failure HRESULT when nothing was queued.
 */
HRESULT shim_rejit_request(shim_rejit_worker *w, const ModuleID *modules,
                           const mdMethodDef *methods, ULONG count, FunctionID published,
                           uint32_t timeout_ms);

/* Waits up to timeout_ms until every batch queued so far has been
 * requested (RequestReJIT returned). Returns 1 when they all were, 0 on
 * timeout, -1 when the thread is not running. */
int shim_rejit_wait_idle(shim_rejit_worker *w, uint32_t timeout_ms);

/* Drops the pending (not yet requested) entries of module from the queue,
 * for ModuleUnloadStarted: a request naming an unloaded ModuleID must not
 * reach the runtime. A request already taken by the thread is not
 * recalled. Returns how many entries were dropped. */
size_t shim_rejit_forget_module(shim_rejit_worker *w, ModuleID module);

/* Asks the thread to stop and waits up to timeout_ms; the thread is
 * joined only if it has exited, so a thread stuck inside the runtime at
 * shutdown cannot hang the process. */
void shim_rejit_stop(shim_rejit_worker *w, uint32_t timeout_ms);

#endif
