/* The one place that includes OpenMP (scikit-learn's _openmp_helpers pattern).
 * Without OpenMP the kernels still build and run single-threaded: these stubs
 * stand in for the few runtime calls, and DRFBENCH_OPENMP tells Python. */
#ifndef DRFBENCH_PLATFORM_H
#define DRFBENCH_PLATFORM_H
#ifdef _OPENMP
#include <omp.h>
#define DRFBENCH_OPENMP 1
#else
#define DRFBENCH_OPENMP 0
static inline int omp_get_max_threads(void) { return 1; }
static inline int omp_get_thread_num(void) { return 0; }
static inline int omp_get_num_threads(void) { return 1; }
#endif

/* Residuals at or below epsilon + DRFBENCH_ROUNDING_SLACK count as exhausted, so
 * that resources tied with a round's minimum (equal s_r / mu_r in exact arithmetic)
 * are exhausted in that same round despite rounding, as Algorithm 1 line 10 and
 * Algorithm 2 line 16 intend. Residuals are fractions in [0, 1], held in double. */
#define DRFBENCH_ROUNDING_SLACK 1e-12
#endif
