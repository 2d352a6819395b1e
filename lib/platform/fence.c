/* Asymmetric fences; see fence.h. */
#if defined(__linux__)
#define _GNU_SOURCE 1 /* syscall() */
#endif
#include "platform/fence.h"

#if defined(__linux__)
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "platform/atomic.h"

/* Whether this process registered for membarrier: 0 unknown, 1 yes, 2
 * unavailable. The one piece of process-wide state (the registration is
 * the process's, fence.h); racing first calls agree. */
static ilmap_atomic_u32 state;

static long membarrier(int cmd)
{
    return syscall(__NR_membarrier, cmd, 0, 0);
}

int ilmap_heavy_fence_available(void)
{
    uint32_t s = ilmap_atomic_load_u32(&state, ilmap_mo_acquire);
    if (s == 0) {
        long cmds = membarrier(MEMBARRIER_CMD_QUERY);
        int ok = cmds >= 0 && (cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED) &&
                 membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0 &&
                 membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) == 0;
        s = ok ? 1u : 2u;
        ilmap_atomic_store_u32(&state, s, ilmap_mo_release);
    }
    return s == 1u;
}

int ilmap_heavy_fence(void)
{
    return membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) == 0 ? 0 : -1;
}

#else

int ilmap_heavy_fence_available(void)
{
    return 0;
}

int ilmap_heavy_fence(void)
{
    return -1;
}

#endif
