"""Checks the rule tests make their own way, apart from the code under test, so that the two can disagree."""


def connected(edges) -> bool:
    """Whether lattice edges form one piece: a flood over shared ends (rules/sticks.py has `is_connected`)."""
    edges = list(set(edges))
    if not edges:
        return True
    seen, todo = {edges[0]}, [edges[0]]
    while todo:
        e = todo.pop()
        for f in edges:
            if f not in seen and {e.a, e.b} & {f.a, f.b}:
                seen.add(f)
                todo.append(f)
    return len(seen) == len(edges)
