/*
 * What every fuzz target shares: the libFuzzer entry point's prototype,
 * and REQUIRE, an invariant checked inside the target (a violation
 * aborts, which libFuzzer reports as a crash with the input saved).
 */
#ifndef ILMAP_FUZZ_H
#define ILMAP_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#define REQUIRE(c)                                                                         \
    do {                                                                                   \
        if (!(c))                                                                          \
            abort();                                                                       \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
