"""The order in which a graph can be solved: levels of an acyclic graph, or the strongly
connected components of a cyclic one, sinks first.

- ``parents(graph)``: the edges reversed (for each position, the edges that lead to it), as
  numpy arrays: ``reverse_first`` offsets into ``reverse_edge`` (edge ids), sorted by child.
- ``levels(graph)``: when no cycle exists, the positions grouped by *height* (0: terminal;
  h: every move leads to height < h, one to h - 1), computed a level at a time with numpy; None
  when some position is on a cycle (a self-loop counts).
- ``components(graph)``: Tarjan's algorithm, iteratively (no recursion limit), giving the
  strongly connected components in reverse topological order: every move out of a component
  leads to one listed earlier.
"""

from __future__ import annotations

import numpy as np


def edge_owner(graph) -> np.ndarray:
    """For each edge, the position it leaves."""
    cached = graph.stats.get("_owner")
    if cached is None:
        counts = np.diff(graph.first)
        cached = np.repeat(np.arange(len(graph), dtype=graph.child.dtype), counts)
        graph.stats["_owner"] = cached
    return cached


def parents(graph) -> tuple[np.ndarray, np.ndarray]:
    """``(reverse_first, reverse_edge)``: the edges into position p are
    ``reverse_edge[reverse_first[p]:reverse_first[p + 1]]``."""
    cached = graph.stats.get("_parents")
    if cached is None:
        reverse_edge = np.argsort(graph.child, kind="stable").astype(graph.child.dtype)
        counts = np.bincount(graph.child, minlength=len(graph))
        reverse_first = np.zeros(len(graph) + 1, dtype=np.int64)
        np.cumsum(counts, out=reverse_first[1:])
        cached = (reverse_first, reverse_edge)
        graph.stats["_parents"] = cached
    return cached


def gather(first: np.ndarray, items: np.ndarray, nodes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The concatenated ranges ``items[first[v]:first[v + 1]]`` for v in ``nodes``, and the
    length of each range."""
    starts = first[nodes]
    counts = first[nodes + 1] - starts
    total = int(counts.sum())
    if total == 0:
        return items[:0], counts
    offsets = np.repeat(starts - np.concatenate(([0], np.cumsum(counts)[:-1])), counts)
    return items[np.arange(total) + offsets], counts


def levels(graph, allowed: np.ndarray | None = None) -> list[np.ndarray] | None:
    """Positions by height, terminals first, or None when the graph has a cycle. With
    ``allowed`` (a mask over edges), only those edges count."""
    n = len(graph)
    reverse_first, reverse_edge = parents(graph)
    owner = edge_owner(graph)
    remaining = (np.diff(graph.first) if allowed is None
                 else np.bincount(owner[allowed], minlength=n))
    frontier = np.flatnonzero(remaining == 0)
    result = []
    done = 0
    while len(frontier):
        result.append(frontier)
        done += len(frontier)
        edges, _ = gather(reverse_first, reverse_edge, frontier)
        if allowed is not None:
            edges = edges[allowed[edges]]
        if not len(edges):
            break
        found, times = np.unique(owner[edges], return_counts=True)
        remaining[found] -= times
        frontier = found[remaining[found] == 0]
    return result if done == n else None


def components(graph, discovery: list | None = None) -> list[list[int]]:
    """Strongly connected components, each move out of one leading to an earlier one. With
    ``discovery`` (a list), it receives each position's depth-first discovery number: inside a
    component, the moves to a higher number form no cycle."""
    n = len(graph)
    first = graph.first.tolist()
    child = graph.child.tolist()
    number = [-1] * n           # discovery number
    low = [0] * n
    on_stack = [False] * n
    stack: list[int] = []
    result: list[list[int]] = []
    counter = 0
    for start in range(n):
        if number[start] >= 0:
            continue
        work = [(start, first[start])]
        number[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack[start] = True
        while work:
            node, edge = work[-1]
            end = first[node + 1]
            descended = False
            while edge < end:
                target = child[edge]
                edge += 1
                if number[target] < 0:
                    work[-1] = (node, edge)
                    number[target] = low[target] = counter
                    counter += 1
                    stack.append(target)
                    on_stack[target] = True
                    work.append((target, first[target]))
                    descended = True
                    break
                if on_stack[target] and number[target] < low[node]:
                    low[node] = number[target]
            if descended:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                if low[node] < low[parent]:
                    low[parent] = low[node]
            if low[node] == number[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack[member] = False
                    component.append(member)
                    if member == node:
                        break
                result.append(component)
    if discovery is not None:
        discovery[:] = number
    return result


def weak_components(n: int, source: np.ndarray, target: np.ndarray) -> np.ndarray:
    """For positions ``0..n-1`` joined by the moves ``source[i] -> target[i]`` (direction
    ignored), each position's component, named by its smallest position: label propagation
    with numpy, pointer jumping halving the rounds on long chains."""
    u, v = source.astype(np.int64), target.astype(np.int64)
    label = np.arange(n)
    while True:
        lowest = np.minimum(label[u], label[v])
        new = label.copy()
        np.minimum.at(new, u, lowest)
        np.minimum.at(new, v, lowest)
        new = new[new]
        if np.array_equal(new, label):
            return label
        label = new
