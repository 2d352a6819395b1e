#include "profiler/rejit_thread.h"

#include <stdlib.h>
#include <string.h>

#include "base/log.h"

/* Milliseconds since `start` (ilmap_monotonic_ms), saturated: every wait
 * here counts real time, not the slices it slept (a wake-up cuts a slice
 * short). */
static uint32_t elapsed_ms(uint64_t start)
{
    uint64_t ms = ilmap_monotonic_ms() - start;
    return ms > 0xFFFFFFFFu ? 0xFFFFFFFFu : (uint32_t)ms;
}

/* The next slice of a wait of timeout_ms begun at start: up to `most`
 * ms, 0 when the time is up. */
static uint32_t next_slice(uint64_t start, uint32_t timeout_ms, uint32_t most)
{
    uint32_t waited = elapsed_ms(start);
    if (waited >= timeout_ms)
        return 0;
    return timeout_ms - waited < most ? timeout_ms - waited : most;
}

struct shim_rejit_batch {
    shim_rejit_batch *next;
    uint64_t seq;
    ULONG count;
    ModuleID *modules;
    mdMethodDef *methods;
    FunctionID published; /* request only once its original code is published; 0: none */
};

/* How long the thread waits for a function's precompiled code to be
 * published before it makes the request anyway (logged). */
#define SHIM_PUBLISH_WAIT_MS 5000u

static void batch_free(shim_rejit_batch *b)
{
    if (b) {
        free(b->modules);
        free(b->methods);
        free(b);
    }
}

/* Joins the pending batches first..(end of list) into one request, so
 * that the runtime is suspended once for all of them (each RequestReJIT
 * stops the world): under a late selection thousands of single-method
 * requests arrive while one is being made. Returns the joined batch (the
 * chain is freed), or NULL when memory runs out (the chain is kept and
 * sent batch by batch). The caller holds no lock: the chain is its own. */
static shim_rejit_batch *join(shim_rejit_batch *first)
{
    size_t total = 0;
    for (const shim_rejit_batch *b = first; b; b = b->next) {
        if (b->count > (ULONG)-1 - total)
            return NULL;
        total += b->count;
    }
    shim_rejit_batch *j = calloc(1, sizeof *j);
    if (j) {
        j->modules = malloc(total * sizeof *j->modules);
        j->methods = malloc(total * sizeof *j->methods);
    }
    if (!j || !j->modules || !j->methods) {
        batch_free(j);
        return NULL;
    }
    size_t at = 0;
    while (first) {
        shim_rejit_batch *next = first->next;
        memcpy(j->modules + at, first->modules, first->count * sizeof *j->modules);
        memcpy(j->methods + at, first->methods, first->count * sizeof *j->methods);
        at += first->count;
        j->seq = first->seq;
        batch_free(first);
        first = next;
    }
    j->count = (ULONG)total;
    return j;
}

/* Whether the runtime has published function's original native code:
 * GetCodeInfo3 reports none before that. */
static int published(shim_rejit_worker *w, FunctionID function)
{
    ULONG32 total = 0;
    HRESULT hr = w->info->lpVtbl->GetCodeInfo3(w->info, function, 0, 0, &total, NULL);
    return SUCCEEDED(hr) && total > 0;
}

/* A request made between the runtime's search of precompiled code
 * (JITCachedFunctionSearchFinished) and its publication of that code is
 * lost: the method goes on running its precompiled code and its new
 * version never compiles (shim/FINDINGS.md#rejit-before-publish). So the
 * thread waits, up to SHIM_PUBLISH_WAIT_MS for the whole chain, until
 * each such function's code is published. Called with w->lock held (it
 * sleeps on w->cond); never calls into the runtime's ReJIT. */
static void await_publication(shim_rejit_worker *w, const shim_rejit_batch *chain)
{
    uint64_t start = ilmap_monotonic_ms();
    for (const shim_rejit_batch *b = chain; b; b = b->next) {
        if (!b->published)
            continue;
        uint32_t slice;
        while (!published(w, b->published) &&
               (slice = next_slice(start, SHIM_PUBLISH_WAIT_MS, 1)) != 0)
            ilmap_cond_timedwait(&w->cond, &w->lock, slice);
        if (!published(w, b->published)) {
            w->unpublished++;
            if (w->unpublished == 1)
                shim_log("a function's precompiled code was not published within %u ms; "
                         "requesting its ReJIT anyway (it may be lost)",
                         (unsigned)SHIM_PUBLISH_WAIT_MS);
            return;
        }
    }
}

static void worker_main(void *arg)
{
    shim_rejit_worker *w = arg;
    ilmap_mutex_lock(&w->lock);
    for (;;) {
        while (!w->head && !w->stop)
            ilmap_cond_timedwait(&w->cond, &w->lock, 1000);
        if (w->stop && !w->head)
            break;
        /* Everything pending goes in one request (see join). */
        shim_rejit_batch *chain = w->head;
        w->head = w->tail = NULL;
        await_publication(w, chain);
        /* Never call into the runtime with our lock held: RequestReJIT
         * suspends the runtime, and a callback thread may be waiting for
         * this lock. */
        ilmap_mutex_unlock(&w->lock);
        shim_rejit_batch *joined = chain->next ? join(chain) : chain;
        HRESULT hr = S_OK;
        uint64_t seq = 0;
        for (shim_rejit_batch *b = joined ? joined : chain; b;) {
            shim_rejit_batch *next = joined ? NULL : b->next;
            /* A batch emptied by shim_rejit_forget_module is not sent. */
            if (b->count)
                hr = w->info->lpVtbl->RequestReJIT(w->info, b->count, b->modules, b->methods);
            if (b->count && FAILED(hr))
                shim_log("RequestReJIT(%u methods) failed: 0x%08X", (unsigned)b->count,
                         (unsigned)hr);
            seq = b->seq;
            batch_free(b);
            b = next;
        }
        ilmap_mutex_lock(&w->lock);
        w->last_hr = hr;
        w->done = seq;
        w->requests++;
        ilmap_cond_broadcast(&w->cond);
    }
    w->exited = 1;
    ilmap_cond_broadcast(&w->cond);
    ilmap_mutex_unlock(&w->lock);
}

int shim_rejit_start(shim_rejit_worker *w, ICorProfilerInfo4 *info)
{
    if (!w || !info)
        return 1;
    memset(w, 0, sizeof *w);
    w->info = info;
    if (ilmap_mutex_init(&w->lock))
        return 1;
    if (ilmap_cond_init(&w->cond)) {
        ilmap_mutex_destroy(&w->lock);
        return 1;
    }
    if (ilmap_thread_start(&w->thread, worker_main, w)) {
        shim_log("cannot start the ReJIT thread; methods will not be instrumented");
        ilmap_cond_destroy(&w->cond);
        ilmap_mutex_destroy(&w->lock);
        return 1;
    }
    w->running = 1;
    return 0;
}

HRESULT shim_rejit_request(shim_rejit_worker *w, const ModuleID *modules,
                           const mdMethodDef *methods, ULONG count, FunctionID published,
                           uint32_t timeout_ms)
{
    if (!w || !modules || !methods || count == 0)
        return E_INVALIDARG;
    if (!w->running)
        return E_UNEXPECTED;
    shim_rejit_batch *b = calloc(1, sizeof *b);
    if (b) {
        b->modules = malloc(count * sizeof *b->modules);
        b->methods = malloc(count * sizeof *b->methods);
    }
    if (!b || !b->modules || !b->methods) {
        batch_free(b);
        return E_OUTOFMEMORY;
    }
    memcpy(b->modules, modules, count * sizeof *modules);
    memcpy(b->methods, methods, count * sizeof *methods);
    b->count = count;
    b->published = published;

    ilmap_mutex_lock(&w->lock);
    if (w->stop) {
        ilmap_mutex_unlock(&w->lock);
        batch_free(b);
        return E_UNEXPECTED;
    }
    uint64_t seq = b->seq = ++w->queued;
    if (w->tail)
        w->tail->next = b;
    else
        w->head = b;
    w->tail = b;
    ilmap_cond_broadcast(&w->cond);
    HRESULT hr = S_OK;
    /* Wait in slices so that one lost wake-up cannot cost the whole
     * timeout. */
    uint64_t start = ilmap_monotonic_ms();
    uint32_t slice;
    while (w->done < seq && !w->exited && (slice = next_slice(start, timeout_ms, 100)) != 0)
        ilmap_cond_timedwait(&w->cond, &w->lock, slice);
    if (w->done >= seq)
        hr = w->last_hr;
    else
        hr = S_FALSE;
    ilmap_mutex_unlock(&w->lock);
    return hr;
}

int shim_rejit_wait_idle(shim_rejit_worker *w, uint32_t timeout_ms)
{
    if (!w || !w->running)
        return -1;
    ilmap_mutex_lock(&w->lock);
    uint64_t start = ilmap_monotonic_ms();
    uint32_t slice;
    while (w->done < w->queued && !w->exited && (slice = next_slice(start, timeout_ms, 100)) != 0)
        ilmap_cond_timedwait(&w->cond, &w->lock, slice);
    int idle = w->done >= w->queued;
    ilmap_mutex_unlock(&w->lock);
    return idle;
}

size_t shim_rejit_forget_module(shim_rejit_worker *w, ModuleID module)
{
    if (!w || !w->running || !module)
        return 0;
    size_t dropped = 0;
    ilmap_mutex_lock(&w->lock);
    for (shim_rejit_batch *b = w->head; b; b = b->next) {
        ULONG kept = 0;
        for (ULONG i = 0; i < b->count; i++) {
            if (b->modules[i] == module) {
                dropped++;
                continue;
            }
            b->modules[kept] = b->modules[i];
            b->methods[kept++] = b->methods[i];
        }
        b->count = kept;
    }
    ilmap_mutex_unlock(&w->lock);
    return dropped;
}

void shim_rejit_stop(shim_rejit_worker *w, uint32_t timeout_ms)
{
    if (!w || !w->running)
        return;
    ilmap_mutex_lock(&w->lock);
    w->stop = 1;
    ilmap_cond_broadcast(&w->cond);
    uint64_t start = ilmap_monotonic_ms();
    uint32_t slice;
    while (!w->exited && (slice = next_slice(start, timeout_ms, 100)) != 0)
        ilmap_cond_timedwait(&w->cond, &w->lock, slice);
    int exited = w->exited;
    ilmap_mutex_unlock(&w->lock);
    if (exited) {
        ilmap_thread_join(&w->thread);
        w->running = 0;
    } else {
        shim_log("the ReJIT thread did not stop within %u ms; leaving it", (unsigned)timeout_ms);
    }
}
