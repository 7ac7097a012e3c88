"""Mesos's hierarchical DRF sorter: the order in which the allocator offers resources to
roles (or frameworks), the naive hierarchical DRF the H-DRF paper criticises.

Restated from apache/mesos at commit c1b42f79d157aa900be5cbb0c1023f1479962aa7
(2024-08-23): src/master/allocator/mesos/sorter/drf/sorter.hpp and sorter.cpp.

Clients are paths ("eng/ml"); the tree holds one node per path component. A client that
also has children ("eng" beside "eng/ml") is a virtual leaf "eng/." under the internal
node "eng", competing with its siblings at weight 1 (the weight set for "eng" applies to
the internal node). Every node's allocation is the sum of its subtree's, and it counts how
many times it (or anything below it) was allocated to. A node's share is

    max over resources r with total_r > 0 of allocation_r / total_r, divided by its weight

(weights by path, default 1). `sort` orders the active children of every node by (share,
allocation count, path) and lists the active leaves in that pre-order. Inactive leaves
keep their allocation (it counts in their ancestors' shares) but are not listed.

Only scalar quantities are kept (upstream's shared and non-scalar resources are not);
weights are read by path at every sort, where upstream caches a node's weight and misses a
later update_weight of an internal node that is not itself a client.
"""
import math
import numbers

ACTIVE, INACTIVE, INTERNAL = "active", "inactive", "internal"
VIRTUAL = "."


def _quantities(resources, what):
    out = {}
    for name, value in dict(resources).items():
        if not isinstance(name, str) or isinstance(value, bool) or \
                not isinstance(value, numbers.Real) or not math.isfinite(value) or value < 0:
            raise ValueError(f"{what}: {name!r} must name a resource with a finite quantity "
                             f">= 0, got {value!r:.80}")
        out[name] = float(value)
    return out


class _Allocation:
    """A node's allocation: quantities per agent, their totals, the allocation count."""

    def __init__(self, other=None):
        self.by_agent = {a: dict(q) for a, q in other.by_agent.items()} if other else {}
        self.totals = dict(other.totals) if other else {}
        self.count = other.count if other else 0

    def add(self, agent, q):
        held = self.by_agent.setdefault(agent, {})
        for r, v in q.items():
            held[r] = held.get(r, 0.0) + v
            self.totals[r] = self.totals.get(r, 0.0) + v
        self.count += 1

    def subtract(self, agent, q, who):
        held = self.by_agent.get(agent, {})
        short = [r for r, v in q.items() if v > held.get(r, 0.0) * (1 + 1e-12)]
        if short:
            raise ValueError(f"{who} holds {held} on agent {agent!r}, not {q}")
        for r, v in q.items():
            if not v:                       # a zero quantity is nothing to give back
                continue
            held[r] -= v
            self.totals[r] -= v
            if held[r] <= 0:
                del held[r]
        if not held:
            self.by_agent.pop(agent, None)


class _Node:
    def __init__(self, name, kind, parent):
        self.name, self.kind, self.parent = name, kind, parent
        self.children = []
        self.allocation = _Allocation()
        if parent is None:
            self.path = ""
        elif parent.parent is None:
            self.path = name
        else:
            self.path = parent.path + "/" + name

    @property
    def client(self):
        """The client path: a virtual leaf's is its parent's."""
        return self.parent.path if self.name == VIRTUAL else self.path


class DRFSorter:
    """Mesos's DRFSorter. Resources are {name: quantity}; agents are any hashable ids.

    Parameters
    ----------
    exclude : iterable of str
        Resource names left out of the shares (upstream's fairnessExcludeResourceNames).

    Raises
    ------
    ValueError
        From its methods: an unknown client, agent or node, a client added twice, a bad
        client path, a weight not finite and positive.
    """

    def __init__(self, exclude=()):
        self.root = _Node("", INTERNAL, None)
        self.clients = {}
        self.weights = {}
        self.agents = {}
        self.exclude = frozenset(exclude)

    # -- clients -------------------------------------------------------------------------

    def _node(self, client):
        node = self.clients.get(client)
        if node is None:
            raise ValueError(f"no client {client!r}")
        return node

    def add(self, client):
        """Add an inactive client; an existing leaf on its path becomes a virtual leaf.

        Parameters
        ----------
        client : str
            A path of non-empty names joined by "/".

        Raises
        ------
        ValueError
            A bad path, or a client already added.
        """
        tokens = client.split("/") if isinstance(client, str) else None
        if not tokens or any(t in ("", VIRTUAL) for t in tokens):
            raise ValueError(f"client must be a path of non-empty names other than "
                             f"{VIRTUAL!r} joined by '/', got {client!r}")
        if client in self.clients:
            raise ValueError(f"client {client!r} already added")
        current, i = self.root, 0
        while True:
            if i == len(tokens):                 # an internal node: its virtual leaf
                current = self._child(current, VIRTUAL, INACTIVE)
                break
            if current.kind != INTERNAL:         # a leaf on the way: it moves below
                virtual = _Node(VIRTUAL, current.kind, current)
                virtual.allocation = _Allocation(current.allocation)
                current.kind = INTERNAL
                current.children.append(virtual)
                self.clients[virtual.client] = virtual
                break
            child = next((c for c in current.children if c.name == tokens[i]), None)
            if child is None:
                break
            current, i = child, i + 1
        for j in range(i, len(tokens)):
            current = self._child(current, tokens[j],
                                  INACTIVE if j == len(tokens) - 1 else INTERNAL)
        self.clients[client] = current

    @staticmethod
    def _child(parent, name, kind):
        node = _Node(name, kind, parent)
        parent.children.append(node)
        return node

    def remove(self, client):
        """Remove a client; its allocation leaves its ancestors, empty internal nodes go, an
        internal node left with only its virtual leaf becomes that leaf again.

        Parameters
        ----------
        client : str

        Raises
        ------
        ValueError
            No such client.
        """
        leaf = self._node(client)
        held = leaf.allocation.by_agent
        del self.clients[client]
        current = leaf
        while current is not self.root:
            parent = current.parent
            for agent, q in held.items():
                parent.allocation.subtract(agent, q, repr(parent.path))
            if not current.children:
                parent.children.remove(current)
            elif len(current.children) == 1 and current.children[0].name == VIRTUAL:
                current.kind = current.children[0].kind
                current.children = []
                self.clients[current.path] = current
            current = parent

    def activate(self, client):
        node = self._node(client)
        if node.kind == INACTIVE:
            node.kind = ACTIVE

    def deactivate(self, client):
        node = self._node(client)
        if node.kind == ACTIVE:
            node.kind = INACTIVE

    def update_weight(self, path, weight):
        """The weight of the node at `path` (a client or an internal node, now or later).

        Parameters
        ----------
        path : str
        weight : float
            Finite and positive.

        Raises
        ------
        ValueError
            A weight not finite and positive.
        """
        if isinstance(weight, bool) or not isinstance(weight, numbers.Real) or \
                not math.isfinite(weight) or weight <= 0:
            raise ValueError(f"weight of {path!r} must be finite and positive, got {weight!r}")
        self.weights[path] = float(weight)

    def contains(self, client):
        return client in self.clients

    def count(self):
        return len(self.clients)

    # -- allocations and totals ----------------------------------------------------------

    def allocated(self, client, agent, resources):
        """Resources allocated to a client on an agent (each node on its path counts one more
        allocation).

        Parameters
        ----------
        client : str
            A path of names joined by "/".
        agent : hashable
        resources : dict
            `{name: quantity}`.
        """
        q = _quantities(resources, f"allocation to {client!r}")
        node = self._node(client)
        while node is not None:
            node.allocation.add(agent, q)
            node = node.parent

    def unallocated(self, client, agent, resources):
        """Resources given back (the allocation count stays).

        Parameters
        ----------
        client : str
            A path of names joined by "/".
        agent : hashable
        resources : dict
            `{name: quantity}`.
        """
        q = _quantities(resources, f"unallocation from {client!r}")
        node = self._node(client)
        node.allocation.subtract(agent, q, repr(client))
        node = node.parent
        while node is not None:
            node.allocation.subtract(agent, q, repr(node.path))
            node = node.parent

    def update(self, client, agent, old, new):
        """Replace part of a client's allocation on an agent (no new allocation counted).

        Parameters
        ----------
        client : str
        agent : hashable
        old, new : dict
            `{name: quantity}`: the part replaced and what replaces it.
        """
        self.unallocated(client, agent, old)
        node = self._node(client)
        q = _quantities(new, f"update of {client!r}")
        while node is not None:
            count = node.allocation.count
            node.allocation.add(agent, q)
            node.allocation.count = count
            node = node.parent

    def allocation(self, client=None, agent=None):
        """A client's quantities: on one agent, or over all agents.

        Parameters
        ----------
        client : str, optional
            None: everyone's.
        agent : hashable, optional
            None: over all agents.

        Returns
        -------
        dict
            `{name: quantity}`.
        """
        node = self.root if client is None else self._node(client)
        if agent is None:
            return {r: v for r, v in node.allocation.totals.items() if v > 0}
        return dict(node.allocation.by_agent.get(agent, {}))

    def add_agent(self, agent, resources):
        if agent in self.agents:
            raise ValueError(f"agent {agent!r} already added")
        self.agents[agent] = _quantities(resources, f"agent {agent!r}")

    def remove_agent(self, agent):
        if agent not in self.agents:
            raise ValueError(f"no agent {agent!r}")
        del self.agents[agent]

    # -- order ---------------------------------------------------------------------------

    def total(self):
        out = {}
        for q in self.agents.values():
            for r, v in q.items():
                out[r] = out.get(r, 0.0) + v
        return out

    def share(self, node_path):
        """The share of the node at a path.

        Parameters
        ----------
        node_path : str
            A client's virtual leaf is "path/.".

        Returns
        -------
        float
        """
        node = self.root
        for token in node_path.split("/"):
            node = next((c for c in node.children if c.name == token), None)
            if node is None:
                raise ValueError(f"no node {node_path!r}")
        return self._share(node, self.total())

    def _share(self, node, total):
        s = 0.0
        for r, t in total.items():
            if r not in self.exclude and t > 0:
                s = max(s, node.allocation.totals.get(r, 0.0) / t)
        return s / self.weights.get(node.path, 1.0)

    def sort(self):
        """Active clients, the tree walked in pre-order, each node's active children by (share,
        allocation count, path).

        Returns
        -------
        list of str
        """
        total, out = self.total(), []

        def walk(node):
            live = [c for c in node.children if c.kind != INACTIVE]
            live.sort(key=lambda c: (self._share(c, total), c.allocation.count, c.path))
            for child in live:
                if child.kind == ACTIVE:
                    out.append(child.client)
                else:
                    walk(child)

        walk(self.root)
        return out
