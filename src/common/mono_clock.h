/* The monotonic clock in milliseconds, for the phase timings that the
 * prover, the back-end and the CLI report (never for deciding anything). */
#ifndef CZ_COMMON_MONO_CLOCK_H
#define CZ_COMMON_MONO_CLOCK_H
#include <time.h>

static inline double cz_mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}
#endif
