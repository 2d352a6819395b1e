/*
 * Asymmetric fences: a reader's store-then-load ordered by the writer.
 *
 * An epoch reader announces itself with a store and then loads the
 * snapshot pointer; a writer swaps the pointer and then scans the
 * announcements. Each side needs a full fence between its store and its
 * load (epoch.h), and on x86 the reader's is the costlier half of a
 * lookup's overhead (a locked instruction, ~10 ns). Where the OS can make
 * every running thread of the process execute a full fence on request
 * (Linux membarrier(2), MEMBARRIER_CMD_PRIVATE_EXPEDITED), the writer
 * pays for both: the reader's fence becomes a compiler barrier, and the
 * writer asks for the process-wide fence before it scans. A thread that
 * is not running has passed through a context switch, itself a fence.
 *
 * ilmap_heavy_fence_available() registers the process (once) and says
 * whether the writer-side fence works; where it does not (another OS, a
 * kernel without it, a seccomp filter refusing the call) the readers keep
 * their own fence. Thread-safe.
 */
#ifndef ILMAP_PLATFORM_FENCE_H
#define ILMAP_PLATFORM_FENCE_H

/* 1 when ilmap_heavy_fence() orders every thread's earlier stores before
 * its later loads, 0 when readers must fence themselves. */
int ilmap_heavy_fence_available(void);

/* The process-wide fence; only after ilmap_heavy_fence_available()
 * answered 1. Returns 0, or -1 when it failed (the caller must then not
 * rely on it: treat every announcement as possibly unseen). */
int ilmap_heavy_fence(void);

#endif
