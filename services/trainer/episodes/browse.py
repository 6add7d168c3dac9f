"""Synthetic task kinds that browse: search-and-open, and multi-screen menu navigation."""

from __future__ import annotations

from . import apps
from .flows import Trace
from .screens import Node, Row, Screen, button, label

_TABS = (("Home", "Explore", "Library"), ("For you", "Browse", "Saved"), ("Home", "Search", "You"))


def _results(trace: Trace, target: tuple[str, str], query: str) -> tuple[list[Row], int]:
    """Result rows for ``query``: the target among look-alikes, at a random rank."""
    rng = trace.rng
    catalogue = apps.SEARCH_APPS[trace.app][2]
    others = [entry for entry in catalogue if entry != target]
    title = target[0]
    lookalikes = [
        (f"{title} ({x})", rng.choice(others)[1])
        for x in rng.sample(apps.SEARCH_EXTRA, rng.randint(2, 6))
    ]
    entries = lookalikes + rng.sample(others, rng.randint(1, 5))
    rng.shuffle(entries)
    rank = rng.randint(0, len(entries))
    entries.insert(rank, target)
    rows = [(button(t, f"res:{i}", 3), label(s, 2)) for i, (t, s) in enumerate(entries)]
    return [(label(f'Results for "{query}"'),), *rows], rank


def _search_goal(trace: Trace, query: str, target: tuple[str, str], verb: str | None) -> str:
    title, subtitle = target
    shown = f"'{title}' ({subtitle.split(' · ')[0]})"
    opener = trace.rng.choice(
        (
            f"Open {trace.app}, search for '{query}' and open {shown}",
            f"In {trace.app}, type '{query}' into search and open the result {shown}",
            f"Use {trace.app} to look up '{query}', then open {shown}",
        )
    )
    return opener + (f", then tap {verb}." if verb else ".")


def search_flow(trace: Trace) -> None:
    rng = trace.rng
    app = rng.choice(sorted(apps.SEARCH_APPS))
    hint, verbs, catalogue = apps.SEARCH_APPS[app]
    target = rng.choice(catalogue)
    words = target[0].split()
    query = " ".join(words[: rng.randint(1, len(words))]).lower()
    verb = rng.choice(verbs) if rng.random() < 0.5 else None
    trace.app = app
    trace.goal = _search_goal(trace, query, target, verb)
    featured = rng.sample(catalogue, 3)
    rows: list[Row] = [(label("Recommended for you"),)]
    rows += [(button(t, f"feat:{t}", 3), label(s, 2)) for t, s in featured]
    in_bar = rng.random() < 0.5
    main = Screen(
        app,
        app,
        tuple(rows if in_bar else [(button(hint, "search"),), *rows]),
        trace.style,
        actions=(button("Search", "search"),) if in_bar else (button("Account"),),
        bottom=tuple(button(t, f"tab:{t}") for t in rng.choice(_TABS)),
    )
    trace.click(trace.open(app, main), "search")
    recent = [(button(q, f"recent:{q}"),) for q in rng.sample(apps.SEARCH_EXTRA, 3)]
    field = Node(hint, True, "field", 5)
    search = Screen(
        app,
        None,
        ((label("Recent searches"),), *recent),
        trace.style,
        header=(field,),
        up=True,
        focus="field",
    )
    trace.act(search, "type", query)
    results, rank = _results(trace, target, query)
    typed = search.replace_node("field", Node(query, True, "field", 5)).with_rows(tuple(results))
    trace.click(trace.settle(typed, 0.4), f"res:{rank}")
    detail_rows: list[Row] = [(label(target[1]),), tuple(button(v, f"verb:{v}") for v in verbs)]
    detail_rows.append((label(f"More like {target[0]}"),))
    detail = Screen(app, target[0], tuple(detail_rows), trace.style, up=True)
    trace.final = detail
    if verb:
        trace.click(detail, f"verb:{verb}")
        done = {"Play": "Playing", "Add to cart": "Added to cart"}.get(verb, f"{verb}: done")
        trace.final = detail.with_rows((*detail.rows, (label(done),)))


def _nav_screen(trace: Trace, title: str, names: list[str], prefix: str, meta: str) -> Screen:
    rng = trace.rng
    rows: list[Row] = [
        (button(n, f"{prefix}:{n}", 3), label(meta.format(rng.randint(2, 40)), 2)) for n in names
    ]
    return Screen(trace.app, title, tuple(rows), trace.style, up=True, actions=(button("Search"),))


def navigation_flow(trace: Trace) -> None:
    rng = trace.rng
    app = rng.choice(sorted(apps.NAV_APPS))
    menu, tree = apps.NAV_APPS[app]
    section = rng.choice(sorted(tree))
    sub = rng.choice(sorted(tree[section]))
    leaves = list(tree[section][sub])
    item = rng.choice(leaves)
    back_twice = rng.random() < 0.35
    trace.app = app
    trace.goal = _nav_goal(trace, menu, [section, sub, item], back_twice)
    recent = [
        (button(n, f"recent:{n}", 3), label("Opened recently", 2))
        for n in rng.sample(leaves, min(2, len(leaves)))
    ]
    main = Screen(
        app,
        app,
        ((label("Recent"),), *recent),
        trace.style,
        actions=(button(menu, "menu"), button("Search")),
    )
    trace.click(trace.open(app, main), "menu")
    drawer_items = [*sorted(tree), "Trash", "Settings", "Help & feedback"]
    drawer = Screen(app, app, tuple((button(n, f"sec:{n}"),) for n in drawer_items), trace.style)
    trace.click(drawer, f"sec:{section}")
    section_screen = _nav_screen(trace, section, sorted(tree[section]), "sub", "{} items")
    section_screen = trace.click(trace.settle(section_screen, 0.15), f"sub:{sub}")
    filler = [
        f"{sub.split()[0].lower()}_{n:02d}" for n in rng.sample(range(1, 60), rng.randint(2, 12))
    ]
    names = leaves + filler
    rng.shuffle(names)
    listing = trace.click(
        _nav_screen(trace, sub, names, "item", "Modified {} days ago"), f"item:{item}"
    )
    detail = Screen(
        app,
        item,
        ((label(f"{item} · {sub}"),), (button("Share"), button("Open with"), button("Delete"))),
        trace.style,
        up=True,
    )
    trace.act(detail, "back")
    trace.final = listing
    if back_twice:
        trace.act(listing, "back")
        trace.final = section_screen


def _nav_goal(trace: Trace, menu: str, path: list[str], back_twice: bool) -> str:
    section, sub, item = path
    back = f"go back to {section}" if back_twice else f"return to {sub}"
    return trace.rng.choice(
        (
            f"In {trace.app}, open the menu, go to {section} > {sub}, open {item}, then {back}.",
            f"Open {trace.app}, tap '{menu}', pick {section}, then {sub}; open {item} and {back}.",
            f"Using {trace.app}'s menu, navigate to {section}/{sub}, view {item}, and {back}.",
        )
    )
