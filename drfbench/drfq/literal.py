"""The middlebox simulator and every scheduler written literally: the specification of
drfbench/drfq/drfq.pyx and its test oracle, decision by decision. It scans every flow for each
decision and every packet in the pipeline for the virtual time, so it is slow; the kernel
makes the same decisions with heaps and a running maximum (tests/drfq/test_drfq.py).

The middlebox. Resources 0 .. m-1 form a pipeline; each serves one packet at a time,
without preemption, for the packet's cost on it. Between resources j-1 and j waits a FIFO
stage buffer of `stage_buffer` packets; a resource that finishes a packet while the next
buffer is full holds it (blocked) until a place frees, so the pipeline pushes back on the
scheduler, which decides only which flow's packet enters resource 0 when it is free. A
packet with cost 0 on a resource passes it at once. Packets leave after the last
resource. The paper (and the lecture) give no buffer between the stages; a FIFO one with
blocking is our choice: it keeps every stage's order the scheduler's, so the bottleneck
sees the schedule, yet lets stages overlap. The run covers [0, duration).

Instants. Time advances to the next event; all events at that instant are applied, in
this order: the bottleneck's re-decision (if due), completions of resources (in index
order), TCP's delayed acknowledgements and loss notices (in the order they were made),
open-loop arrivals (by flow index); then the pipeline advances: in passes from the last
resource to the first until nothing moves, a finished packet leaves (or moves into the
next stage buffer if it has room) and a free resource takes the next packet of its stage
buffer, resource 0 the scheduler's choice. An arrival thus sees the virtual time as left
by the previous instant; a backlogged flow's next packet arrives the moment its previous
one is dispatched (after the dispatch).

Virtual time, start-time fair queueing (SFQ: Goyal, Vin, Cheng, SIGCOMM 1996) as DRFQ
uses it. Packet p, the k-th of flow i with weight w_i, gets on arrival the virtual start
S(p) = max(V(a(p)), F(p_prev)) and finish F(p) = S(p) + s(p) / w_i, where p_prev is flow
i's previous tagged packet (F = 0 before the first) and s(p) is the packet's cost in the
scheduler's measure; the scheduler dispatches the head packet with the smallest start
tag, ties to the lower flow index. V(t) is the largest start tag of the packets in the
middlebox (dispatched, not yet departed: in service, held or in a stage buffer); with
none, the largest finish tag dispatched so far (SFQ's rule at the end of a busy period);
0 at first. The schedulers differ in s(p) only:

  drfq           memoryless DRFQ: s(p) = max_j s_j(p), the packet's dominant processing time
  drfq-dovetail  dovetailing DRFQ: one tag per resource, S_j(p) = max(V_j(a(p)),
                 F_j(p_prev)), F_j(p) = S_j(p) + s_j(p) / w_i, V_j from the S_j of the
                 packets in the middlebox; the order is by S(p) = max_j S_j(p)
  fq             SFQ on one resource: s(p) = s_r(p), r = `resource`
  bottleneck     SFQ on the bottleneck: s(p) = s_b(p), b the resource busiest over the
                 last `interval` seconds (re-decided at k x interval; ties to the lower
                 index; `resource` before the first decision); busy means serving, not
                 holding a blocked packet
  fifo           first come, first served: by arrival order, no tags

The memoryless and dovetailing forms and V as the largest start tag in service are
DRFQ's (reconstructed from public descriptions of the paper and of SFQ, the paper's own
text not being at hand). Where the paper is silent, and chosen here:
what "in service" means with a pipeline (in the middlebox, above), ties (lower index),
tags at arrival with V taken before the same instant's departures, the bottleneck's
measure (the share of time serving), and the backlogged source (one packet always waiting,
arrived when the previous left the queue). For memoryless DRFQ, fq and bottleneck, start
tags are non-decreasing in dispatch order (SFQ's property), so V is the start tag of the
packet dispatched last; for dovetailing each S_j alone is not, so V_j needs the maximum.

The bound. With backlogged flows under memoryless DRFQ, a flow's next start tag is the
sum of its dispatched packets' dominant costs over its weight (V never exceeds it), and
the smallest goes next, so after every dispatch any two flows' normalized dominant
services differ by at most the larger of their largest normalized packets: SFQ's fairness
bound (Goyal et al., Theorem 1) on DRFQ's virtual time, the kind the paper proves (a
packet's largest processing time). Dovetailing meets it too when each flow's packets cost
the same; with costs varying per packet it credits a flow for complementary packets (the
paper's <1, 2>, <2, 1> example), which no bound on dominant service can allow.

TCP-like sources (closed loop). A flow keeps a congestion window cwnd (packets, starting
at `initial_window`, RFC 6928's 10) and ssthresh (infinite at first), and sends a new
packet whenever fewer than cwnd of its packets are outstanding; a packet reaches the
middlebox the instant it is sent (the round trip is all on the way back). A packet that
leaves the middlebox at t is acknowledged at t + rtt: cwnd grows by 1 below ssthresh (slow
start) and by 1 / cwnd above it (congestion avoidance, RFC 5681 Sec. 3.1). A packet
dropped at t (full buffer) is found lost at t + rtt (fast retransmit by duplicate
acknowledgements, RFC 5681 Sec. 3.2): ssthresh = max(cwnd / 2, 2) and cwnd = ssthresh
(Reno's multiplicative decrease and fast recovery, without the window's inflation by the
duplicates), at most once per window: a loss of a packet sent before the last decrease
does not decrease again (NewReno's `recover`, RFC 6582). The lost packet stops being
outstanding; its data goes out again as new packets. No retransmission timeouts, no
delayed acknowledgements, every packet one segment.
"""
import math
from collections import deque

import numpy as np

from .model import uniform

IDLE, SERVING, DONE = 0, 1, 2          # a resource's state (DONE: finished, held)
ACK, LOSS = 0, 1                       # TCP's delayed events


class Packet:
    """One packet.

    Its tags (S, F: one per tag dimension; key: what the scheduler orders by) are set when
    it is queued.

    Parameters
    ----------
    flow : int
    k : int
        Its index in the flow.
    cost : numpy.ndarray
        Its cost on every resource.
    """
    __slots__ = ("flow", "k", "cost", "S", "F", "key")

    def __init__(self, flow, k, cost):
        self.flow, self.k, self.cost = flow, k, cost


class Middlebox:
    """One run of a scheduler on flows: see the module docstring; run() returns the outputs as
    a dict of arrays.

    Parameters
    ----------
    flows : Flows
    settings : Settings
    """

    def __init__(self, flows, settings):
        self.flows, self.s = flows, settings
        n, m = flows.n, flows.m
        self.n, self.m = n, m
        self.sched = settings.method
        self.dims = {"drfq-dovetail": m, "fifo": 0}.get(self.sched, 1)
        self.source = flows.sources
        self.queue = [deque() for _ in range(n)]
        self.capacity = [1 if s == "backlogged" else settings.buffer for s in self.source]
        self.last_finish = [[0.0] * self.dims for _ in range(n)]
        self.max_finish = [0.0] * self.dims
        self.enqueued = 0                       # arrivals queued so far: FIFO's order
        self.inflight = []                      # dispatched, not departed, oldest first
        self.state, self.held = [IDLE] * m, [None] * m
        self.start, self.end, self.since = [0.0] * m, [math.inf] * m, [0.0] * m
        self.stage = [deque() for _ in range(m)]  # stage[j]: packets waiting for resource j >= 1
        self.bottleneck = settings.resource
        self.used = [0.0] * m                   # busy seconds up to the last re-decision
        self.boundary = 1
        self.cwnd = [float(settings.initial_window)] * n
        self.ssthresh = [math.inf] * n
        self.outstanding = [0] * n
        self.recover = [0] * n
        self.timers = deque()                   # (time, ACK or LOSS, flow, k), in time order
        self.next_arrival = {}
        for i, s in enumerate(self.source):
            if s == "constant":
                self.next_arrival[i] = 0.0
            elif s == "poisson":
                self.next_arrival[i] = self.gap(i, 0)
        self.served, self.dispatched = np.zeros(n, np.int64), np.zeros(n, np.int64)
        self.arrived, self.dropped = np.zeros(n, np.int64), np.zeros(n, np.int64)
        self.work = np.zeros((n, m))
        self.busy, self.blocked = np.zeros(m), np.zeros(m)
        self.series = np.zeros((settings.bins, n), np.int64)
        self.choices, self.decisions = [], []

    # Sources ---------------------------------------------------------------------------
    def gap(self, i, k):
        """The gap before flow i's Poisson arrival k: Exp(1) / rate."""
        return -math.log(uniform(self.flows.seed, 0, i, k)) / self.flows.rates[i]

    def arrive(self, i, t):
        """Packet number arrived[i] of flow i reaches the middlebox at t: dropped if its
        queue is full, else tagged and queued."""
        k = int(self.arrived[i])
        self.arrived[i] += 1
        if len(self.queue[i]) >= self.capacity[i]:
            self.dropped[i] += 1
            if self.source[i] == "tcp":
                self.timers.append((t + self.s.rtt, LOSS, i, k))
            return
        p = Packet(i, k, [self.flows.packet_cost(i, k, j) for j in range(self.m)])
        if self.sched == "fifo":
            p.key = float(self.enqueued)
        else:
            V = [self.virtual_time(d) for d in range(self.dims)]
            p.S = [max(V[d], self.last_finish[i][d]) for d in range(self.dims)]
            p.F = [p.S[d] + self.measure(p, d) / self.flows.weights[i] for d in range(self.dims)]
            self.last_finish[i] = p.F
            p.key = p.S[0] if self.dims == 1 else max(p.S)
        self.enqueued += 1
        self.queue[i].append(p)

    def send(self, i, t):
        """TCP: send while fewer than cwnd packets are outstanding."""
        while self.outstanding[i] + 1 <= self.cwnd[i]:
            self.outstanding[i] += 1
            self.arrive(i, t)

    def acknowledged(self, i, t):
        self.outstanding[i] -= 1
        if self.cwnd[i] < self.ssthresh[i]:
            self.cwnd[i] += 1.0
        else:
            self.cwnd[i] += 1.0 / self.cwnd[i]
        self.send(i, t)

    def lost(self, i, k, t):
        self.outstanding[i] -= 1
        if k >= self.recover[i]:
            self.ssthresh[i] = max(self.cwnd[i] / 2.0, 2.0)
            self.cwnd[i] = self.ssthresh[i]
            self.recover[i] = int(self.arrived[i])
        self.send(i, t)

    # The scheduler ---------------------------------------------------------------------
    def virtual_time(self, d):
        """V in tag dimension d: the largest start tag in the middlebox, or with none the
        largest finish tag dispatched so far."""
        if self.inflight:
            return max(p.S[d] for p in self.inflight)
        return self.max_finish[d]

    def measure(self, p, d):
        """The packet's cost in the scheduler's measure, tag dimension d."""
        if self.sched == "drfq":
            return max(p.cost)
        if self.sched == "drfq-dovetail":
            return p.cost[d]
        return p.cost[self.s.resource if self.sched == "fq" else self.bottleneck]

    def dispatch(self, t):
        """The head packet with the smallest key (ties: the lower flow) leaves its queue."""
        i = min((q[0].key, i) for i, q in enumerate(self.queue) if q)[1]
        p = self.queue[i].popleft()
        for d in range(self.dims):
            self.max_finish[d] = max(self.max_finish[d], p.F[d])
        self.inflight.append(p)
        self.dispatched[i] += 1
        self.decisions.append((t, i))
        if self.source[i] == "backlogged":
            self.arrive(i, t)
        return p

    def redecide(self, t):
        """Bottleneck fairness: the resource busiest since the last re-decision."""
        used = [self.busy[j] + (t - self.start[j] if self.state[j] == SERVING else 0.0)
                for j in range(self.m)]
        delta = [used[j] - self.used[j] for j in range(self.m)]
        self.bottleneck = delta.index(max(delta))
        self.used = used
        self.choices.append(self.bottleneck)
        self.boundary += 1

    # The pipeline ----------------------------------------------------------------------
    def begin(self, j, p, t):
        """Resource j takes packet p at t."""
        self.held[j] = p
        if p.cost[j] > 0:
            self.state[j], self.start[j], self.end[j] = SERVING, t, t + p.cost[j]
        else:
            self.state[j], self.since[j] = DONE, t

    def complete(self, j, t):
        p = self.held[j]
        self.busy[j] += p.cost[j]
        self.work[p.flow, j] += p.cost[j]
        self.state[j], self.end[j], self.since[j] = DONE, math.inf, t

    def release(self, j, t):
        """Resource j lets its finished packet go."""
        p = self.held[j]
        self.blocked[j] += t - self.since[j]
        self.state[j], self.held[j] = IDLE, None
        return p

    def depart(self, p, t):
        assert self.inflight[0] is p            # the pipeline is FIFO
        self.inflight.pop(0)
        self.served[p.flow] += 1
        if self.s.bins:
            self.series[min(int(t * self.s.bins / self.s.duration), self.s.bins - 1), p.flow] += 1
        if self.source[p.flow] == "tcp":
            self.timers.append((t + self.s.rtt, ACK, p.flow, None))   # k: for a LOSS only

    def advance(self, t):
        moved = True
        while moved:
            moved = False
            for j in reversed(range(self.m)):
                if self.state[j] == DONE:
                    if j == self.m - 1:
                        self.depart(self.release(j, t), t)
                        moved = True
                    elif len(self.stage[j + 1]) < self.s.stage_buffer:
                        self.stage[j + 1].append(self.release(j, t))
                        moved = True
                if self.state[j] == IDLE:
                    if j > 0 and self.stage[j]:
                        self.begin(j, self.stage[j].popleft(), t)
                        moved = True
                    elif j == 0 and any(self.queue):
                        self.begin(0, self.dispatch(t), t)
                        moved = True

    # The event loop --------------------------------------------------------------------
    def next_boundary(self):
        return self.boundary * self.s.interval if self.sched == "bottleneck" else math.inf

    def instant(self, t):
        if self.next_boundary() == t:
            self.redecide(t)
        for j in range(self.m):
            if self.end[j] == t:
                self.complete(j, t)
        while self.timers and self.timers[0][0] == t:
            _, kind, i, k = self.timers.popleft()
            if kind == ACK:
                self.acknowledged(i, t)
            else:
                self.lost(i, k, t)
        while True:
            due = [i for i, when in self.next_arrival.items() if when == t]
            if not due:
                break
            i = min(due)
            self.arrive(i, t)
            k = int(self.arrived[i])
            self.next_arrival[i] = (k / self.flows.rates[i] if self.source[i] == "constant"
                                    else t + self.gap(i, k))
        self.advance(t)

    def run(self):
        for i, s in enumerate(self.source):
            if s == "backlogged":
                self.arrive(i, 0.0)
            elif s == "tcp":
                self.send(i, 0.0)
        self.instant(0.0)
        while True:
            t = min([self.next_boundary(), *self.end,
                     self.timers[0][0] if self.timers else math.inf,
                     *self.next_arrival.values()])
            if t >= self.s.duration:
                break
            self.instant(t)
        T = self.s.duration
        for j in range(self.m):
            if self.state[j] == SERVING:
                self.busy[j] += T - self.start[j]
                self.work[self.held[j].flow, j] += T - self.start[j]
            elif self.state[j] == DONE:
                self.blocked[j] += T - self.since[j]
        return {"served": self.served, "dispatched": self.dispatched, "arrived": self.arrived,
                "dropped": self.dropped, "work": self.work, "busy": self.busy,
                "blocked": self.blocked, "series": self.series,
                "bottleneck": np.array(self.choices, np.int64),
                "decision_time": np.array([d[0] for d in self.decisions], dtype=float),
                "decision_flow": np.array([d[1] for d in self.decisions], dtype=np.int64)}


def simulate(flows, settings):
    """The outputs of one literal run.

    Parameters
    ----------
    flows : Flows
    settings : Settings

    Returns
    -------
    dict
        Arrays (see Middlebox.run).
    """
    return Middlebox(flows, settings).run()
