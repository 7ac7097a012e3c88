# A 4-ary min-heap for kernels (cimport it: every function is inline, nogil).
#
# Contract. Entries are (key: double, item: int32, payload: float), ordered by key
# alone (ties in any order); item and payload are the caller's (edrf_event: a resource
# and its residue). The caller owns the memory: `space`, aligned to LINE bytes, of
# capacity + HEAP_EXTRA entries, given to heap_init; size never exceeds capacity.
# Fill it either with push from empty (after heap_init and heap_seal), or by writing
# entry[0:size] in any order and calling heap_build. entry[0] is the least; pop
# removes it; after changing entry[0].key in place, sift_down(h, 0) restores the order
# (the key may only grow, as for a lazy heap's stale top).
#
# Layout. The children of p are 4p + 1 .. 4p + 4 and entries are 16 bytes, so a node's
# children fill one cache line (entry[1] lies on a line boundary: heap_init). The 4
# slots after the last entry always hold infinite keys (sentinels: heap_seal, kept by
# push and pop), so that sift_down compares 4 children without looking at the size;
# it picks the least of them without branches (their order is unpredictable) and
# requests the next level's 4 lines while it compares this one.
from libc.math cimport INFINITY
from libc.stdint cimport int32_t
from _platform cimport LINE, prefetch

cdef enum:
    HEAP_EXTRA = 8         # entries besides the capacity: heap_init's offset
                           # (LINE / 16-byte entries, less 1) and the 4 sentinels


cdef struct Entry:
    double key
    int32_t item
    float payload


cdef struct Heap:
    Entry* entry
    Py_ssize_t size


cdef inline void heap_init(Heap* h, Entry* space) noexcept nogil:
    """An empty heap in `space` (LINE-aligned, capacity + HEAP_EXTRA entries), with
    entry[1] on a line boundary."""
    h.size = 0
    h.entry = space + (LINE // sizeof(Entry) - 1)


cdef inline void heap_seal(Heap* h) noexcept nogil:
    """Infinite keys in the 4 slots after the last entry: sift_down can then compare
    4 children without looking at the size (such a key never moves up)."""
    cdef Py_ssize_t j
    for j in range(h.size, h.size + 4):
        h.entry[j].key = INFINITY
        h.entry[j].item = -1


cdef inline void sift_down(Heap* h, Py_ssize_t pos) noexcept nogil:
    """Restore the min-heap order below pos (the entry at pos may be too large)."""
    cdef Entry moving = h.entry[pos]
    cdef Entry* e = h.entry
    cdef Py_ssize_t child, a, b, n = h.size
    while True:
        child = 4 * pos + 1
        if child >= n:
            break
        if 16 * pos + 5 < n:          # the grandchildren: 4 lines, requested together
            prefetch(&e[16 * pos + 5])
            prefetch(&e[16 * pos + 9])
            prefetch(&e[16 * pos + 13])
            prefetch(&e[16 * pos + 17])
        a = child + (e[child + 1].key < e[child].key)
        b = child + 2 + (e[child + 3].key < e[child + 2].key)
        child = b if e[b].key < e[a].key else a
        if e[child].key >= moving.key:
            break
        e[pos] = e[child]
        pos = child
    e[pos] = moving


cdef inline void heap_build(Heap* h) noexcept nogil:
    """Make entry[0:size], written in any order, a heap (sentinels, then Floyd's
    bottom-up sift)."""
    cdef Py_ssize_t j
    heap_seal(h)
    for j in range((h.size - 2) // 4, -1, -1):
        sift_down(h, j)


cdef inline void push(Heap* h, Entry e) noexcept nogil:
    """Add e (size stays within the capacity)."""
    cdef Py_ssize_t pos = h.size, parent
    h.size = h.size + 1
    h.entry[h.size + 3].key = INFINITY      # the last of the 4 sentinels after it
    h.entry[h.size + 3].item = -1
    while pos > 0:
        parent = (pos - 1) // 4
        if h.entry[parent].key <= e.key:
            break
        h.entry[pos] = h.entry[parent]
        pos = parent
    h.entry[pos] = e


cdef inline void pop(Heap* h) noexcept nogil:
    """Remove entry[0] (the heap is not empty)."""
    h.size = h.size - 1
    if h.size > 0:
        h.entry[0] = h.entry[h.size]
    h.entry[h.size].key = INFINITY
    h.entry[h.size].item = -1
    if h.size > 0:
        sift_down(h, 0)
