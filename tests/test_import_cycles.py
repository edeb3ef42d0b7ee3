"""No import cycles among fairacq's modules.

The graph is grimp's (the engine of ``lint-imports``): every ``import`` statement of the
package, including those inside functions and under ``if TYPE_CHECKING:``, counts.
"""

from __future__ import annotations

import itertools

import pytest

grimp = pytest.importorskip("grimp")  # installed with import-linter (the dev extra)

#: Edges allowed to close a cycle, each with its reason. None today; keep it that way.
KNOWN_CYCLE_EDGES: set[tuple[str, str]] = set()


def strongly_connected(graph: grimp.ImportGraph) -> list[list[str]]:
    """Return the strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph.modules):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append(
                        (child, iter(sorted(graph.find_modules_directly_imported_by(child))))
                    )
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def describe(graph: grimp.ImportGraph, component: list[str]) -> str:
    """One cycle through the component's first module, as ``a -> b -> ... -> a``."""
    first = component[0]
    members = set(component)
    nxt = sorted(members & graph.find_modules_directly_imported_by(first))[0]
    back = graph.find_shortest_chain(importer=nxt, imported=first) or (nxt, first)
    return " -> ".join((first, *back)) + f"  (component: {', '.join(component)})"


def package_graph() -> grimp.ImportGraph:
    graph = grimp.build_graph("fairacq", "fairacq_experiments", cache_dir=None)
    for importer, imported in KNOWN_CYCLE_EDGES:
        if graph.direct_import_exists(importer=importer, imported=imported):
            graph.remove_import(importer=importer, imported=imported)
    return graph


def test_no_import_cycles() -> None:
    graph = package_graph()
    cycles = [describe(graph, c) for c in strongly_connected(graph)]
    assert not cycles, "Import cycles among fairacq's modules:\n" + "\n".join(cycles)


@pytest.mark.parametrize(
    ("edges", "expected"),
    [
        ([("p.a", "p.b"), ("p.b", "p.c")], []),
        (
            [("p.a", "p.b"), ("p.b", "p.c"), ("p.c", "p.a"), ("p.c", "p.d")],
            [["p.a", "p.b", "p.c"]],
        ),
        (
            [("p.a", "p.b"), ("p.b", "p.a"), ("p.c", "p.d"), ("p.d", "p.c")],
            [["p.a", "p.b"], ["p.c", "p.d"]],
        ),
    ],
)
def test_cycle_finder(edges: list[tuple[str, str]], expected: list[list[str]]) -> None:
    graph = grimp.ImportGraph()
    for importer, imported in edges:
        graph.add_import(importer=importer, imported=imported)
    components = strongly_connected(graph)
    assert sorted(components) == expected
    for component in components:
        chain = describe(graph, component).split("  (")[0].split(" -> ")
        assert chain[0] == chain[-1]
        assert all(
            graph.direct_import_exists(importer=a, imported=b)
            for a, b in itertools.pairwise(chain)
        )
