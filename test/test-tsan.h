/*
 * Included by exactly one file of each threaded test: under
 * ThreadSanitizer a data race report must fail the test, not only print,
 * even when the test is run by hand without TSAN_OPTIONS.
 */
#ifndef ILMAP_TEST_TSAN_H
#define ILMAP_TEST_TSAN_H

#if defined(__SANITIZE_THREAD__)
#define TEST_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TEST_TSAN 1
#endif
#endif
#ifdef TEST_TSAN
const char *__tsan_default_options(void);
const char *__tsan_default_options(void)
{
    return "halt_on_error=1:exitcode=66";
}
#endif

#endif
