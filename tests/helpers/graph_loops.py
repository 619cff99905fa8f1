"""The loops of a directed graph, for the direction tests (call-cycles.py,
include-graph.py): its strongly connected components of more than one
node (Tarjan), each a sorted list."""
import sys


def loops(edges):
    """edges: node -> the nodes it points to (a node only pointed to
    needs no key)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 100000))
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out
