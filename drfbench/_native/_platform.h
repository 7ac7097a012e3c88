/* Platform code, the one place for it: whether OpenMP is on, prefetches, atomics, the
 * spin-wait pause. drfbench/_native/_platform.pxd declares all of it for
 * Cython. */
#ifndef DRFBENCH_PLATFORM_H
#define DRFBENCH_PLATFORM_H
#include <sched.h>

/* Without OpenMP the kernels still build and run single-threaded (Cython's prange and
 * parallel blocks run serially); DRFBENCH_OPENMP tells Python which it was. The kernels
 * call no OpenMP function themselves: the thread count is passed in from Python. */
#ifdef _OPENMP
#define DRFBENCH_OPENMP 1
#else
#define DRFBENCH_OPENMP 0
#endif

/* Residuals at or below epsilon + DRFBENCH_ROUNDING_SLACK count as exhausted, so
 * that resources tied with a round's minimum (equal s_r / mu_r in exact arithmetic)
 * are exhausted in that same round despite rounding, as Algorithm 1 line 10 and
 * Algorithm 2 line 16 intend. Residuals are fractions in [0, 1], held in double. */
#define DRFBENCH_ROUNDING_SLACK 1e-12

/* Prefetches the compiler must keep: GCC deletes loops of __builtin_prefetch (they
 * have no effect it can see), which is how a row's lines are requested, hence
 * volatile asm. DRFBENCH_PREFETCH requests a line for reading into L2 (not L1: more
 * requests can then be in flight), DRFBENCH_PREFETCH_W for writing. */
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define DRFBENCH_PREFETCH(p) __asm__ volatile("prefetcht1 %0" : : "m"(*(const char*)(p)))
#define DRFBENCH_PREFETCH_W(p) __asm__ volatile("prefetchw %0" : : "m"(*(const char*)(p)))
#elif defined(__GNUC__) && defined(__aarch64__)
#define DRFBENCH_PREFETCH(p) __asm__ volatile("prfm pldl2keep, %0" : : "Q"(*(const char*)(p)))
#define DRFBENCH_PREFETCH_W(p) __asm__ volatile("prfm pstl1keep, %0" : : "Q"(*(const char*)(p)))
#elif defined(__GNUC__)
#define DRFBENCH_PREFETCH(p) __builtin_prefetch((p), 0, 2)
#define DRFBENCH_PREFETCH_W(p) __builtin_prefetch((p), 1, 3)
#else
#define DRFBENCH_PREFETCH(p) ((void)(p))
#define DRFBENCH_PREFETCH_W(p) ((void)(p))
#endif

/* How one thread tells another what it may read (GCC and Clang atomics): the
 * producer publishes with a release store, the consumer reads with an acquire load,
 * so that everything written before the store is visible after the load. A waiting
 * thread spins briefly, then yields its core, so that more threads than cores still
 * make progress. */
#if defined(__x86_64__) || defined(__i386__)
#define DRFBENCH_PAUSE() __builtin_ia32_pause()
#elif defined(__aarch64__)
#define DRFBENCH_PAUSE() __asm__ volatile("yield")
#else
#define DRFBENCH_PAUSE() ((void)0)
#endif

static inline long long drfbench_load(const long long* p) {
    return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}
static inline void drfbench_store(long long* p, long long v) {
    __atomic_store_n(p, v, __ATOMIC_RELEASE);
}
static inline void drfbench_pause(int* spins) {
    if (++*spins < 2048) { DRFBENCH_PAUSE(); } else { *spins = 0; sched_yield(); }
}
#endif
