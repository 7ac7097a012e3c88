"""Facts about the machine drfbench runs on, and the one place the thread count is decided.

Nothing here loads the compiled kernels: the pipeline's measuring job sets OpenMP's
environment (placement, binding, wait policy) before the kernels, and with them the OpenMP
runtime, are first loaded, and OpenMP reads its environment once, when it starts.
"""
import os
import platform
from functools import cache

VECTOR_FLAGS = ("sse4_2", "avx", "avx2", "fma", "avx512f", "avx512vl", "avx512bw", "avx512dq",
                "asimd", "sve")


@cache
def cpu_info():
    """The CPU, from /proc/cpuinfo, read once (it does not change while a process runs).

    Returns
    -------
    tuple
        (model name, sorted vector features, SMT present or None if unknown).
    """
    model, flags, siblings, cores = platform.processor() or platform.machine(), set(), None, None
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                key, value = key.strip(), value.strip()
                if key == "model name" and value:
                    model = value
                elif key in ("flags", "Features"):
                    flags.update(value.split())
                elif key == "siblings":
                    siblings = int(value)
                elif key == "cpu cores":
                    cores = int(value)
                if key == "" and flags:  # first processor block is enough
                    break
    except OSError:
        pass
    smt = None if siblings is None or cores is None else siblings > cores
    return model, tuple(sorted(flags.intersection(VECTOR_FLAGS))), smt


def usable_cpus():
    """Logical CPUs this process may run on (its affinity mask)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()


# The most OpenMP threads a run may ask for (a count past this is a typo, not a machine).
MAX_THREADS = 1024


def resolve_threads(threads=None):
    """The thread count, decided here and nowhere else; callers pass it down explicitly
    to the kernels.

    Parameters
    ----------
    threads : int, optional
        The count; None: OMP_NUM_THREADS (its first entry, as OpenMP reads it), else every
        usable CPU.

    Returns
    -------
    int
        From 1 to MAX_THREADS.

    Raises
    ------
    ValueError
        `threads` or OMP_NUM_THREADS is not a whole number from 1 to MAX_THREADS.
    """
    if threads is not None:
        from ._validation import positive_int
        return positive_int(threads, "threads", upper=MAX_THREADS)
    value = os.environ.get("OMP_NUM_THREADS", "").split(",")[0].strip()
    if value:
        try:
            count = int(value)
        except ValueError:
            count = 0
        if not 1 <= count <= MAX_THREADS:
            raise ValueError(f"OMP_NUM_THREADS must be a positive integer, at most "
                             f"{MAX_THREADS}, got {value!r}")
        return count
    return usable_cpus()


def omp_environment(cores, threads_per_core, smt):
    """OMP_* settings for a timing run: n places (cores, or hardware threads where the
    CPU has SMT and two run per core), so that one core at two threads per core runs both
    threads on that core. Without SMT, two threads per core oversubscribe the cores (the
    paper's hyperthreading axis, run anyway and labelled as such).

    Two threads per core wait passively (OMP_WAIT_POLICY=passive: a thread with nothing to
    do sleeps at a barrier rather than spinning). Spinning, OpenMP's default, makes a
    thread that shares its core burn the time its partner needs: oversubscribed runs were
    about 1,000 times slower at smoke scale, so the axis measured the spin policy rather
    than the hardware. One thread per core keeps the default.

    Parameters
    ----------
    cores : int or "all"
        Cores the run uses (at most the CPU's).
    threads_per_core : int
        1 or 2.
    smt : bool or None
        Whether the CPU has SMT (`cpu_info`).

    Returns
    -------
    dict
        OMP_NUM_THREADS, OMP_PLACES, OMP_PROC_BIND and, at two threads per core,
        OMP_WAIT_POLICY.
    """
    logical = usable_cpus()
    physical = logical // 2 if smt else logical
    n_cores = physical if cores == "all" else min(int(cores), physical)
    places = (f"threads({n_cores * threads_per_core})" if (smt and threads_per_core == 2)
              else f"cores({n_cores})")
    env = {"OMP_NUM_THREADS": str(n_cores * threads_per_core), "OMP_PLACES": places,
           "OMP_PROC_BIND": "close"}
    if threads_per_core == 2:
        env["OMP_WAIT_POLICY"] = "passive"
    return env


def openmp_loaded():
    """Whether an OpenMP runtime is loaded in this process (read from /proc/self/maps;
    False where that cannot be read). Loading the kernels loads it."""
    try:
        with open("/proc/self/maps") as f:
            return any(lib in line for line in f for lib in ("libgomp", "libomp.", "libiomp"))
    except OSError:
        return False
