"""The four synthetic task kinds, each a walk through screens that records (screen, op) pairs.

A flow never writes an observation or an action itself: it records the screen it is on and
the op it takes (``click`` a keyed node, ``type`` text, ``scroll``, ``open_app``, ``back``,
``wait``), then derives the next screen from that op. The generator renders the record, so
every action is computed from the very screen it is taken on.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace

from . import apps
from .screens import Node, Row, Screen, Style, button, label

Op = tuple[str, str]


@dataclass
class Trace:
    """What a flow produces: the goal, the (screen, op) pairs and the screen left at the end."""

    rng: random.Random
    style: Style
    goal: str = ""
    app: str = ""
    frames: list[tuple[Screen, Op]] = field(default_factory=list)
    final: Screen | None = None

    def act(self, screen: Screen, op: str, arg: str = "") -> None:
        self.frames.append((screen, (op, arg)))

    def click(self, screen: Screen, key: str) -> Screen:
        """Scroll until the keyed node is in view, click it, return the screen it was on."""
        while not screen.shows(key):
            up = screen.row_of(key) < screen.offset
            self.act(screen, "scroll", "up" if up else "down")
            screen = screen.scrolled_up() if up else screen.scrolled_down()
        self.act(screen, "click", key)
        return screen

    def open(self, app: str, screen: Screen) -> Screen:
        """Open ``app`` from the launcher; sometimes it shows a loading screen first."""
        self.app = app
        self.act(home_screen(self.rng, self.style), "open_app", app)
        return self.settle(screen, 0.25)

    def settle(self, screen: Screen, chance: float) -> Screen:
        if self.rng.random() < chance:
            self.act(replace(screen, loading=True), "wait")
        return screen


def home_screen(rng: random.Random, style: Style) -> Screen:
    names = rng.sample(apps.LAUNCHER_APPS, 16)
    rows: list[Row] = [(label(rng.choice(("Mon, Mar 3", "Tue, Jun 10", "Fri, Oct 24")), 3),)]
    rows += [tuple(button(n, f"app:{n}") for n in names[i : i + 4]) for i in range(4, 16, 4)]
    rows.append((button("Search apps", "search", 4), button("Voice search", "voice")))
    dock = tuple(button(n, f"dock:{n}") for n in names[:4])
    return Screen(app="Home", title=None, rows=tuple(rows), style=style, bottom=dock)


def _on_off(on: bool) -> str:
    return "On" if on else "Off"


def _toggle_row(name: str, on: bool) -> Row:
    return (label(name, 4), Node(f"{name} switch: {_on_off(on)}", True, f"tog:{name}", 2))


def _with_fillers(rng: random.Random, rows: list[Row], fillers: list[Row]) -> tuple[Row, ...]:
    """Interleave distractor rows at random places, keeping the key rows' order."""
    out = list(rows)
    for filler in fillers:
        out.insert(rng.randint(0, len(out)), filler)
    return tuple(out)


# --- settings toggles ------------------------------------------------------------------


def _settings_main(trace: Trace) -> Screen:
    rng = trace.rng
    sections = [(name, spec[0]) for name, spec in apps.SETTINGS.items()]
    sections += rng.sample(apps.SETTINGS_FILLER, rng.randint(2, len(apps.SETTINGS_FILLER)))
    rng.shuffle(sections)
    below = rng.random() < 0.4
    rows: list[Row] = [(button("Search settings", "search"),)]
    for name, summary in sections:
        if below:
            rows += [(button(name, f"sec:{name}"),), (label(summary),)]
        else:
            rows.append((button(name, f"sec:{name}", 3), label(summary, 2)))
    return Screen("Settings", "Settings", tuple(rows), trace.style)


def _settings_page(
    trace: Trace,
    name: str,
    toggles: tuple[str, ...],
    subs: tuple[str, ...],
    items: tuple[str, ...],
    state: dict[str, bool],
) -> Screen:
    rows = [_toggle_row(t, state[t]) for t in toggles] + [(button(s, f"sub:{s}"),) for s in subs]
    fillers = [(button(item, f"item:{item}"),) for item in items]
    fillers += [(label(f"{t} settings are saved to this device"),) for t in toggles[:1]]
    return Screen("Settings", name, _with_fillers(trace.rng, rows, fillers), trace.style, up=True)


def _all_toggles() -> list[str]:
    names = []
    for _, toggles, subs, _ in apps.SETTINGS.values():
        names += [*toggles, *(t for page in subs.values() for t in page)]
    return names


def settings_flow(trace: Trace) -> None:
    rng = trace.rng
    sections = rng.sample(sorted(apps.SETTINGS), 2)
    picks: list[tuple[str, str | None, str]] = []
    for section in sections[: 1 + (rng.random() < 0.35)]:
        _, toggles, subs, _ = apps.SETTINGS[section]
        sub = rng.choice(sorted(subs)) if rng.random() < 0.3 else None
        picks.append((section, sub, rng.choice(subs[sub] if sub else toggles)))
    want = {toggle: rng.random() < 0.7 for _, _, toggle in picks}
    state = {t: rng.random() < 0.5 for t in _all_toggles()} | {t: not on for t, on in want.items()}
    trace.goal = _settings_goal(rng, [(t, want[t]) for _, _, t in picks])
    stack = [trace.open("Settings", _settings_main(trace))]
    for section, sub, toggle in picks:
        path = [f"sec:{section}"] + ([f"sub:{sub}"] if sub else [])
        while len(stack) > 1 and stack[-1].title not in (section, sub):
            trace.act(stack.pop(), "back")
        _, toggles, subs, items = apps.SETTINGS[section]
        for key in path[len(stack) - 1 :]:
            stack[-1] = trace.click(stack[-1], key)
            name = key.split(":", 1)[1]
            if key.startswith("sec:"):
                page = _settings_page(trace, name, toggles, tuple(subs), items, state)
            else:
                page = _settings_page(trace, name, subs[name], (), ("Learn more",), state)
            stack.append(trace.settle(page, 0.1))
        screen = trace.click(stack[-1], f"tog:{toggle}")
        state[toggle] = want[toggle]
        stack[-1] = screen.replace_node(f"tog:{toggle}", _toggle_row(toggle, want[toggle])[1])
    trace.final = stack[-1]


def _settings_goal(rng: random.Random, picks: list[tuple[str, bool]]) -> str:
    verbs = {True: ("Turn on", "Enable", "Switch on"), False: ("Turn off", "Disable", "Switch off")}
    parts = [f"{rng.choice(verbs[on]).lower()} {name}" for name, on in picks]
    text = " and then ".join(parts)
    opener = rng.choice(("", "In Settings, ", "Open Settings and ", "Please "))
    return (opener + text)[0].upper() + (opener + text)[1:] + "."


# --- form filling ----------------------------------------------------------------------


def _person(rng: random.Random) -> tuple[str, str]:
    return rng.choice(apps.FIRST_NAMES), rng.choice(apps.LAST_NAMES)


def _phone(rng: random.Random) -> str:
    return f"555-{rng.randint(100, 999)}-{rng.randint(1000, 9999)}"


def _contact_form(trace: Trace) -> tuple[Screen, list[tuple[str, str]], str]:
    rng = trace.rng
    first, last = _person(rng)
    values = [("First name", first), ("Last name", last)]
    optional = [
        ("Phone", _phone(rng)),
        ("Email", f"{first.lower()}.{last.lower()}@example.com"),
        ("Company", rng.choice(apps.COMPANIES)),
    ]
    values += rng.sample(optional, rng.randint(1, 3))
    trace.goal = rng.choice(
        (
            "Add a new contact {who} with {rest} in Contacts.",
            "Create a contact for {who}; set {rest}.",
            "Save {who} as a new contact with {rest}.",
        )
    ).format(who=f"{first} {last}", rest=", ".join(f"{f.lower()} {v}" for f, v in values[2:]))
    people = sorted({" ".join(_person(rng)) for _ in range(6)})
    main = Screen(
        "Contacts",
        "Contacts",
        (
            *tuple((button(p, f"person:{p}"),) for p in people),
            (button("Create contact", "create"),),
        ),
        trace.style,
        actions=(button("Search"), button("More options")),
        bottom=(button("Contacts", "tab:contacts"), button("Highlights"), button("Fix & manage")),
    )
    trace.click(trace.open("Contacts", main), "create")
    fields = ["First name", "Last name", "Company", "Phone", "Email"]
    extra = [(button("Add picture"),), (label("Save to: Device"),), (button("More fields"),)]
    rows = _with_fillers(rng, [(button(f, f"field:{f}"),) for f in fields], extra)
    form = Screen(
        "Contacts",
        "Create contact",
        rows,
        trace.style,
        up=True,
        actions=(button("Save", "submit"),),
    )
    return form, values, f"{first} {last}"


def _to_address_book(trace: Trace) -> None:
    """Shop → Account tab → Your addresses → Add a new address."""
    rng = trace.rng
    tabs = tuple(button(t, f"tab:{t}") for t in ("Home", "Categories", "Cart", "Account"))
    home = Screen(
        "Shop",
        "Shop",
        (
            (button("Search products", "search"),),
            (label("Deals of the day"),),
            (button("Wireless earbuds"), button("Desk lamp")),
        ),
        trace.style,
        bottom=tabs,
    )
    trace.click(trace.open("Shop", home), "tab:Account")
    account = Screen(
        "Shop",
        "Account",
        tuple(
            (button(t, f"acc:{t}"),)
            for t in ("Your orders", "Your addresses", "Payment methods", "Login & security")
        ),
        trace.style,
        bottom=tabs,
    )
    trace.click(account, "acc:Your addresses")
    book = Screen(
        "Shop",
        "Your addresses",
        (
            (label(f"{rng.randint(1, 99)} {rng.choice(apps.STREETS)}"),),
            (button("Add a new address", "create"),),
        ),
        trace.style,
        up=True,
    )
    trace.click(book, "create")


def _address_form(trace: Trace) -> tuple[Screen, list[tuple[str, str]], str]:
    rng = trace.rng
    who = " ".join(_person(rng))
    values = [
        ("Full name", who),
        ("Street address", f"{rng.randint(1, 250)} {rng.choice(apps.STREETS)}"),
        ("City", rng.choice(apps.CITIES)),
        ("ZIP code", f"{rng.randint(10000, 99999)}"),
    ]
    details = ", ".join(f"{f.lower()} {v}" for f, v in values)
    trace.goal = rng.choice(
        (
            f"In Shop, add a new delivery address: {details}.",
            f"Save a shipping address in the Shop app with {details}.",
            f"Add this address to my Shop account - {details}.",
        )
    )
    _to_address_book(trace)
    rows = [(button(f, f"field:{f}"),) for f, _ in values] + [(button("Save address", "submit"),)]
    extra = [(label("Country: United States"),), (button("Use current location"),)]
    form = Screen(
        "Shop",
        "Add address",
        (*_with_fillers(rng, rows[:-1], extra), rows[-1]),
        trace.style,
        up=True,
    )
    return form, values, "Address saved"


def _signup_form(trace: Trace) -> tuple[Screen, list[tuple[str, str]], str]:
    rng = trace.rng
    first, last = _person(rng)
    user = f"{first.lower()}{rng.randint(1, 99)}"
    values = [
        ("Full name", f"{first} {last}"),
        ("Email", f"{user}@{rng.choice(apps.DOMAINS)}"),
        ("Username", user),
    ]
    if rng.random() < 0.5:
        values.append(("Phone number", _phone(rng)))
    details = ", ".join(f"{f.lower()} {v}" for f, v in values)
    trace.goal = rng.choice(
        (
            f"Sign up for Pulse with {details}.",
            f"Create a Pulse account using {details}.",
            f"Register a new account in Pulse: {details}.",
        )
    )
    welcome = Screen(
        "Pulse",
        None,
        (
            (label("Welcome to Pulse", 3),),
            (label("Track workouts and share progress"),),
            (button("Create account", "create"),),
            (button("Log in"),),
            (button("Continue with Google"),),
        ),
        trace.style,
    )
    trace.click(trace.open("Pulse", welcome), "create")
    rows = [(button(f, f"field:{f}"),) for f, _ in values]
    rows += [(label("By signing up you agree to the Terms"),), (button("Sign up", "submit"),)]
    return (
        Screen("Pulse", "Create account", tuple(rows), trace.style, up=True),
        values,
        f"Welcome, {first}!",
    )


def form_flow(trace: Trace) -> None:
    builder = trace.rng.choice((_contact_form, _address_form, _signup_form))
    form, values, done = builder(trace)
    for name, value in values:
        form = trace.click(form, f"field:{name}")
        form = replace(form, focus=f"field:{name}")
        trace.act(form, "type", value)
        form = form.replace_node(f"field:{name}", button(f"{name}: {value}", f"field:{name}"))
    trace.click(form, "submit")
    trace.final = Screen(
        trace.app, done, tuple((label(f"{n}: {v}"),) for n, v in values), trace.style, up=True
    )
