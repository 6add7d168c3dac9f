"""Screens of the synthetic phone, laid out into UI trees.

A :class:`Screen` is the state of one app screen (title, body rows, scroll position, focus,
loading); :func:`render` lays it out top to bottom — status bar, app bar, the body rows that
fit, bottom navigation — into an :class:`Observation`. Items of a row share its height and
split the width by weight, with gaps, so no two bboxes overlap. Element ids are assigned in
layout order, so two renders of the same layout give each element the same id.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from .model import SCREEN_HEIGHT, SCREEN_WIDTH, Observation, UIElement

STATUS_H = 80
APPBAR_H = 168
NAV_H = 160
MARGIN = 32
GAP = 24
ROW_GAP = 12


@dataclass(frozen=True)
class Node:
    """An element before layout; ``key`` lets a flow find it again after rendering."""

    text: str
    clickable: bool = False
    key: str | None = None
    weight: int = 1


Row = tuple[Node, ...]


def label(text: str, weight: int = 1) -> Node:
    return Node(text, False, None, weight)


def button(text: str, key: str | None = None, weight: int = 1) -> Node:
    return Node(text, True, key or text, weight)


@dataclass(frozen=True)
class Style:
    """Per-episode look: row height and status-bar texts."""

    row_height: int = 168
    clock: str = "9:41"
    battery: int = 80
    signal: str = "Signal full"


@dataclass(frozen=True)
class Screen:
    """One screen's state; flows derive the next screen with :func:`dataclasses.replace`.

    The app bar shows ``header`` (e.g. a search field) or else ``title``, between the optional
    up button and the ``actions``; it stays visible while the body loads or scrolls.
    """

    app: str
    title: str | None
    rows: tuple[Row, ...]
    style: Style = field(default_factory=Style)
    header: Row | None = None
    up: bool = False
    actions: tuple[Node, ...] = ()
    bottom: tuple[Node, ...] = ()
    offset: int = 0
    focus: str | None = None
    loading: bool = False

    def with_rows(self, rows: tuple[Row, ...]) -> Screen:
        return replace(self, rows=rows)

    @property
    def capacity(self) -> int:
        """How many body rows fit on the screen at once."""
        top = STATUS_H + (APPBAR_H if self._has_bar else 0)
        bottom = NAV_H if self.bottom else 0
        return (SCREEN_HEIGHT - top - bottom) // (self.style.row_height + ROW_GAP)

    @property
    def _has_bar(self) -> bool:
        return self.title is not None or self.header is not None

    def row_of(self, key: str) -> int:
        for index, row in enumerate(self.rows):
            if any(node.key == key for node in row):
                return index
        raise KeyError(key)

    def shows(self, key: str) -> bool:
        """The keyed node is on screen now (fixed bars always are; body rows when in view)."""
        fixed = (*(self.header or ()), *self.actions, *self.bottom)
        if (key == "nav:up" and self.up) or any(node.key == key for node in fixed):
            return True
        index = self.row_of(key)
        return not self.loading and self.offset <= index < self.offset + self.capacity

    def scrolled_down(self) -> Screen:
        """The screen after one ``scroll down``: a page on, keeping one row of context."""
        last = max(0, len(self.rows) - self.capacity)
        return replace(self, offset=min(last, self.offset + max(1, self.capacity - 1)))

    def scrolled_up(self) -> Screen:
        return replace(self, offset=max(0, self.offset - max(1, self.capacity - 1)))

    def replace_node(self, key: str, node: Node) -> Screen:
        """The same screen with the keyed node (in the body or the header) swapped."""

        def swap(row: Row) -> Row:
            return tuple(node if n.key == key else n for n in row)

        header = swap(self.header) if self.header is not None else None
        return replace(self, rows=tuple(swap(row) for row in self.rows), header=header)


def _lay_row(nodes: Row, top: int, height: int) -> list[tuple[Node, tuple[int, int, int, int]]]:
    total = sum(node.weight for node in nodes)
    usable = SCREEN_WIDTH - 2 * MARGIN - GAP * (len(nodes) - 1)
    placed: list[tuple[Node, tuple[int, int, int, int]]] = []
    left = MARGIN
    for index, node in enumerate(nodes):
        width = usable * node.weight // total
        if index == len(nodes) - 1:
            width = SCREEN_WIDTH - MARGIN - left
        placed.append((node, (left, top, left + width, top + height)))
        left += width + GAP
    return placed


def _bands(screen: Screen) -> list[tuple[Row, int, int]]:
    """Every row to draw with its top and height."""
    style = screen.style
    status: Row = (
        label(style.clock, 2),
        label(style.signal, 2),
        label(f"Battery {style.battery}%", 2),
    )
    bands: list[tuple[Row, int, int]] = [(status, 0, STATUS_H - 8)]
    top = STATUS_H
    if screen.header is not None or screen.title is not None:
        bar: list[Node] = [button("Navigate up", "nav:up")] if screen.up else []
        bar.extend(screen.header or (label(screen.title or "", 5),))
        bar.extend(screen.actions)
        bands.append((tuple(bar), top + 8, APPBAR_H - 16))
        top += APPBAR_H
    pitch = style.row_height + ROW_GAP
    if screen.loading:
        bands.append(((label("Loading…"),), top + ROW_GAP, style.row_height))
    else:
        visible = screen.rows[screen.offset : screen.offset + screen.capacity]
        for index, row in enumerate(visible):
            bands.append((row, top + index * pitch + ROW_GAP, style.row_height))
    if screen.bottom:
        bands.append((screen.bottom, SCREEN_HEIGHT - NAV_H + 8, NAV_H - 16))
    return bands


def render(screen: Screen) -> tuple[Observation, dict[str, UIElement]]:
    """Lay the screen out; return the observation and its keyed elements."""
    elements: list[UIElement] = []
    keyed: dict[str, UIElement] = {}
    for row, top, height in _bands(screen):
        for node, bbox in _lay_row(row, top, height):
            element = UIElement(
                id=f"e{len(elements) + 1}",
                text=node.text,
                bbox=bbox,
                clickable=node.clickable,
                focused=node.key is not None and node.key == screen.focus,
            )
            elements.append(element)
            if node.key is not None:
                keyed[node.key] = element
    return Observation(ui=tuple(elements), screen=(SCREEN_WIDTH, SCREEN_HEIGHT)), keyed
