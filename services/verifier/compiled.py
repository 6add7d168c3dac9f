"""Compiled tasks, kept between requests: the planner sends one task with many timelines.

A task's JSON is compiled once (validated, converted to frames, indexed by a
:class:`Verifier`) and reused while it stays among the most recently used. The key is the
task's exact JSON bytes, so any change to the task is a different entry.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import orjson

from services.common.body import validate
from services.verifier.protocol import TaskIn
from services.verifier.score import Verifier


class TaskCache:
    """A bounded LRU of compiled tasks (``Verifier`` objects, each holding its ``Task``)."""

    def __init__(self, maxsize: int = 256) -> None:
        self.maxsize = maxsize
        self._entries: OrderedDict[bytes, Verifier] = OrderedDict()
        self.hits = self.misses = 0

    def get(self, task_data: Any) -> Verifier:
        """The compiled task for ``task_data`` (the wire JSON); invalid data is a 422."""
        key = orjson.dumps(task_data)
        verifier = self._entries.get(key)
        if verifier is not None:
            self.hits += 1
            self._entries.move_to_end(key)
            return verifier
        self.misses += 1
        verifier = Verifier(validate(TaskIn, task_data, loc=("task",)).to_task())
        if self.maxsize > 0:
            self._entries[key] = verifier
            if len(self._entries) > self.maxsize:
                self._entries.popitem(last=False)
        return verifier
