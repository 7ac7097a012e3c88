# Heaps for kernels (cimport them: every function is inline, nogil): a lazy 4-ary min-heap
# of entries (below), and an indexed binary min-heap of items (at the end).
#
# The 4-ary heap.
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
from libc.stdint cimport int32_t, int64_t
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


# An indexed binary min-heap: the items 0..n-1 of an owner who keeps a key per item and
# changes it in place (the online schedulers' users by share, the simulator's machines by
# next completion), with the item's place known, so that an item moves in O(log n) when
# its key changes, is removed from anywhere, and no stale entry is ever held.
#
# Contract. Items are ordered by (key[i], tie[i]), smaller first; tie NULL means the
# item's own index. The caller owns the arrays: heap (n), pos (n, all -1 to start), key
# and tie (n), and updates key[i] then calls iheap_update(h, i) (or iheap_sift_up /
# iheap_sift_down at pos[i] when it knows the key only fell / only grew).
cdef struct IndexedHeap:
    int64_t* heap          # heap[p]: the item at place p
    int64_t* pos           # pos[i]: item i's place, -1 when it is not in the heap
    const double* key
    const int64_t* tie
    Py_ssize_t size


cdef inline bint iheap_before(const IndexedHeap* h, int64_t a, int64_t b) noexcept nogil:
    """Item a comes before item b: a smaller key, or an equal key and a smaller tie."""
    if h.key[a] != h.key[b]:
        return h.key[a] < h.key[b]
    if h.tie != NULL:
        return h.tie[a] < h.tie[b]
    return a < b


cdef inline void iheap_place(IndexedHeap* h, Py_ssize_t p, int64_t i) noexcept nogil:
    h.heap[p] = i
    h.pos[i] = p


cdef inline void iheap_sift_up(IndexedHeap* h, Py_ssize_t p) noexcept nogil:
    """Move the item at place p up while it comes before its parent."""
    cdef int64_t i = h.heap[p]
    cdef Py_ssize_t parent
    while p > 0:
        parent = (p - 1) // 2
        if not iheap_before(h, i, h.heap[parent]):
            break
        iheap_place(h, p, h.heap[parent])
        p = parent
    iheap_place(h, p, i)


cdef inline void iheap_sift_down(IndexedHeap* h, Py_ssize_t p) noexcept nogil:
    """Move the item at place p down while a child comes before it."""
    cdef int64_t i = h.heap[p]
    cdef Py_ssize_t child
    while True:
        child = 2 * p + 1
        if child >= h.size:
            break
        if child + 1 < h.size and iheap_before(h, h.heap[child + 1], h.heap[child]):
            child = child + 1
        if not iheap_before(h, h.heap[child], i):
            break
        iheap_place(h, p, h.heap[child])
        p = child
    iheap_place(h, p, i)


cdef inline void iheap_update(IndexedHeap* h, int64_t i) noexcept nogil:
    """Item i's key changed (or i is new): put it where it belongs."""
    if h.pos[i] < 0:
        h.size = h.size + 1
        iheap_place(h, h.size - 1, i)
    iheap_sift_up(h, h.pos[i])
    iheap_sift_down(h, h.pos[i])


cdef inline void iheap_remove(IndexedHeap* h, int64_t i) noexcept nogil:
    """Take item i out of the heap (nothing if it is not in it)."""
    cdef Py_ssize_t p = h.pos[i]
    cdef int64_t last
    if p < 0:
        return
    h.pos[i] = -1
    h.size = h.size - 1
    if p == h.size:
        return
    last = h.heap[h.size]
    iheap_place(h, p, last)
    iheap_sift_up(h, p)
    iheap_sift_down(h, h.pos[last])
