"""Compiled tasks, kept between requests: the planner sends one task with many timelines.

A task's JSON is compiled once (validated, converted to frames, indexed by a
:class:`Verifier`) and reused while it stays among the most recently used. The key is the
task's exact JSON bytes, so any change to the task is a different entry.

The cache is bounded by count and by memory. An entry's memory is estimated from its key:
a compiled task (its models, frames, word sets and memos, and the key itself) measures
13–16 times its JSON size, so each counts :data:`BYTES_PER_JSON_BYTE` times ``len(key)``.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

import orjson

from protocol.verifier import TaskIn
from services.common.body import validate
from services.verifier.errors import VerifierError
from services.verifier.score import Verifier

BYTES_PER_JSON_BYTE = 16


class TaskCache:
    """A bounded LRU of compiled tasks (``Verifier`` objects, each holding its ``Task``).

    Safe to share between threads: routes compile in a threadpool. Two threads missing on
    the same task both compile it; one entry is kept.
    """

    def __init__(self, maxsize: int = 256, max_bytes: int = 256 * 1024 * 1024) -> None:
        self.maxsize = maxsize
        self.max_bytes = max_bytes
        self.bytes = 0
        self._entries: OrderedDict[bytes, tuple[Verifier, int]] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = self.misses = self.evictions = 0

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, task_data: Any) -> Verifier:
        """The compiled task for ``task_data`` (the wire JSON); invalid data is a 422."""
        key = _key(task_data)
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                self.hits += 1
                self._entries.move_to_end(key)
                return entry[0]
            self.misses += 1
        verifier = Verifier(validate(TaskIn, task_data, loc=("task",)).to_task())
        self._keep(key, verifier)
        return verifier

    def _keep(self, key: bytes, verifier: Verifier) -> None:
        cost = len(key) * BYTES_PER_JSON_BYTE
        if self.maxsize <= 0 or cost > self.max_bytes:
            return
        with self._lock:
            if key in self._entries:
                return
            self._entries[key] = (verifier, cost)
            self.bytes += cost
            while len(self._entries) > self.maxsize or self.bytes > self.max_bytes:
                _, (_, freed) = self._entries.popitem(last=False)
                self.bytes -= freed
                self.evictions += 1


def _key(task_data: Any) -> bytes:
    try:
        return orjson.dumps(task_data)
    except orjson.JSONEncodeError:  # nested past orjson's 255 levels: no Task.1 is
        raise VerifierError(
            "task is nested too deeply to be a Task.1 (which nests a few levels)",
            param="task",
            code="too_deep",
        ) from None
