"""The drawing of a package: its rooms, their floors, the arrows between them, cycles.

    PYTHONPATH=. python -m benchmarks.architecture_map [application] [adapters.inprocess ...]

A room is a module or sub-package directly inside the package. An arrow runs from
one room to another when any module of the first imports any module of the second
(``TYPE_CHECKING`` imports included). Floors are counted from the bottom: a room
that imports no other room stands on floor 1, any other room one floor above the
highest room it imports, once the arrows that close a cycle are set aside; those
arrows, which run to a room on the same floor or above, are the arrows back up.
Room cycles are the groups of rooms that reach each other; file cycles are the
groups of modules, anywhere under the package, that import each other. Prints the
drawing of each package named (``application`` when none is).
"""

import sys
from collections import defaultdict
from dataclasses import dataclass

import grimp


def _components(nodes: list[str], edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of more than one node (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def visit(node: str) -> None:
        nonlocal counter
        index[node] = low[node] = counter
        counter += 1
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(edges.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                group.append(top)
                if top == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    sys.setrecursionlimit(10_000)
    for node in sorted(nodes):
        if node not in index:
            visit(node)
    return sorted(found)


def _floors(
    rooms: list[str], arrows: dict[str, set[str]]
) -> tuple[dict[str, int], set[tuple[str, str]]]:
    """Each room's floor, and the arrows that close a cycle (set aside to count floors)."""
    back: set[tuple[str, str]] = set()
    state: dict[str, int] = {}  # 1: on the path being walked, 2: done

    def walk(room: str) -> None:
        state[room] = 1
        for nxt in sorted(arrows.get(room, ())):
            if state.get(nxt) == 1:
                back.add((room, nxt))
            elif nxt not in state:
                walk(nxt)
        state[room] = 2

    for room in sorted(rooms):
        if room not in state:
            walk(room)
    floor: dict[str, int] = {}

    def height(room: str) -> int:
        if room not in floor:
            below = [height(n) for n in arrows.get(room, ()) if (room, n) not in back]
            floor[room] = 1 + max(below, default=0)
        return floor[room]

    for room in rooms:
        height(room)
    return floor, back


@dataclass(frozen=True)
class Drawing:
    package: str
    rooms: list[str]
    floors: dict[str, int]
    arrows: list[tuple[str, str]]
    arrows_back_up: list[tuple[str, str]]
    room_cycles: list[list[str]]
    file_cycles: list[list[str]]


def draw(package: str) -> Drawing:
    """The drawing of ``package`` (a dotted name), read from its imports."""
    graph = grimp.build_graph(package.split(".")[0], cache_dir=None)
    modules = sorted(graph.find_descendants(package) | {package})
    depth = package.count(".") + 1

    def room_of(module: str) -> str | None:
        parts = module.split(".")
        return ".".join(parts[: depth + 1]) if len(parts) > depth else None

    rooms = sorted({r for m in modules if (r := room_of(m))})
    arrows: dict[str, set[str]] = defaultdict(set)
    file_edges: dict[str, set[str]] = defaultdict(set)
    for module in modules:
        for imported in graph.find_modules_directly_imported_by(module):
            if imported != package and not imported.startswith(package + "."):
                continue
            file_edges[module].add(imported)
            a, b = room_of(module), room_of(imported)
            if a and b and a != b:
                arrows[a].add(b)
    floor, _ = _floors(rooms, arrows)
    return Drawing(
        package=package,
        rooms=rooms,
        floors=floor,
        arrows=sorted((a, b) for a in arrows for b in arrows[a]),
        arrows_back_up=sorted((a, b) for a in arrows for b in arrows[a] if floor[b] >= floor[a]),
        room_cycles=_components(rooms, arrows),
        file_cycles=_components(modules, file_edges),
    )


def show(d: Drawing) -> str:
    """The drawing as text: the counts, the rooms floor by floor, the arrows, the cycles."""

    def s(name: str) -> str:
        return name[len(d.package) + 1 :] if name.startswith(d.package + ".") else name

    def cycles(groups: list[list[str]]) -> str:
        return "; ".join(" <-> ".join(s(n) for n in g) for g in groups) or "none"

    top = max(d.floors.values(), default=0)
    lines = [
        f"== {d.package}",
        f"rooms {len(d.rooms)}, floors {top}, arrows {len(d.arrows)}, "
        f"arrows back up {len(d.arrows_back_up)}, room cycles {len(d.room_cycles)}, "
        f"file cycles {len(d.file_cycles)}",
    ]
    for level in range(top, 0, -1):
        here = [s(r) for r in d.rooms if d.floors[r] == level]
        lines.append(f"  floor {level}: " + ", ".join(here))
    lines.append("arrows:")
    for a in d.rooms:
        targets = [b for x, b in d.arrows if x == a]
        if targets:
            lines.append(f"  {s(a)} -> " + ", ".join(s(b) for b in targets))
    back = ", ".join(f"{s(a)} -> {s(b)}" for a, b in d.arrows_back_up) or "none"
    lines.append("arrows back up: " + back)
    lines.append("room cycles: " + cycles(d.room_cycles))
    lines.append("file cycles: " + cycles(d.file_cycles))
    return "\n".join(lines)


def main(argv: list[str]) -> None:
    for package in argv or ["application"]:
        print(show(draw(package)))


if __name__ == "__main__":
    main(sys.argv[1:])
