/*
 * The answers of progress.h, from the one profiler instance.
 */
#include "profiler/progress.h"

#include <string.h>

#include "profiler/profiler.h"

int shim_progress_wait_rejits(uint32_t timeout_ms)
{
    shim_profiler *p = shim_profiler_instance();
    if (!p)
        return -1;
    return shim_rejit_wait_idle(&p->rejit, timeout_ms);
}

/* The most bodies of m that share one (FunctionID, ReJITID) with a
 * ReJIT version (ReJITID != 0). */
static int most_of(const shim_method *m)
{
    int most = 0;
    for (size_t i = 0; i < m->body_count; i++) {
        if (m->bodies[i].rejit == 0)
            continue;
        int same = 0;
        for (size_t j = 0; j < m->body_count; j++)
            same += m->bodies[j].function == m->bodies[i].function &&
                    m->bodies[j].rejit == m->bodies[i].rejit;
        most = same > most ? same : most;
    }
    return most;
}

int shim_progress_most_bodies(const char *name)
{
    shim_profiler *p = shim_profiler_instance();
    if (!p || !name)
        return -1;
    int most = -1;
    shim_lock(p);
    for (size_t i = 0;; i++) {
        const shim_method *m = shim_registry_at(&p->registry, i);
        if (!m)
            break;
        if (strcmp(shim_method_name(p, m), name) != 0)
            continue;
        int n = most_of(m);
        most = n > most ? n : most;
    }
    shim_unlock(p);
    return most;
}
