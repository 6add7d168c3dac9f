"""The compiled-task cache: bounded by count and by estimated bytes, least recently used out."""

from __future__ import annotations

import copy
import json
import threading
from pathlib import Path

import orjson
import pytest

from services.verifier.compiled import BYTES_PER_JSON_BYTE, TaskCache
from services.verifier.errors import VerifierError

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture(scope="module")
def task() -> dict:
    return json.loads((EXAMPLES / "surf-reel" / "task.json").read_text())


def variant(task: dict, i: int) -> dict:
    other = copy.deepcopy(task)
    other["id"] = f"t{i:03d}"
    return other


def cost(task: dict) -> int:
    return len(orjson.dumps(task)) * BYTES_PER_JSON_BYTE


def test_bytes_bound_evicts_the_least_recently_used(task: dict) -> None:
    each = cost(variant(task, 0))
    cache = TaskCache(maxsize=100, max_bytes=3 * each)
    first = cache.get(variant(task, 0))
    cache.get(variant(task, 1))
    cache.get(variant(task, 2))
    assert cache.get(variant(task, 0)) is first  # a hit, and now the most recent
    cache.get(variant(task, 3))  # over the bytes: t001, the least recent, goes
    assert len(cache) == 3 and cache.bytes <= cache.max_bytes
    assert cache.evictions == 1
    misses = cache.misses
    cache.get(variant(task, 0))
    cache.get(variant(task, 2))
    assert cache.misses == misses
    cache.get(variant(task, 1))
    assert cache.misses == misses + 1


def test_many_distinct_tasks_stay_within_the_bytes(task: dict) -> None:
    cache = TaskCache(maxsize=1_000, max_bytes=5 * cost(variant(task, 0)))
    for i in range(40):
        cache.get(variant(task, i))
    assert len(cache) == 5 and cache.bytes <= cache.max_bytes


def test_a_task_larger_than_the_whole_budget_is_compiled_but_not_kept(task: dict) -> None:
    cache = TaskCache(maxsize=10, max_bytes=cost(task) - 1)
    verifier = cache.get(task)
    assert verifier.task.id == task["id"]
    assert len(cache) == 0 and cache.bytes == 0


def test_the_count_bound_still_holds(task: dict) -> None:
    cache = TaskCache(maxsize=2, max_bytes=10**12)
    for i in range(5):
        cache.get(variant(task, i))
    assert len(cache) == 2


def test_zero_size_disables_it(task: dict) -> None:
    cache = TaskCache(maxsize=0)
    assert cache.get(task) is not cache.get(task)
    assert len(cache) == 0


def test_threads_share_one_entry(task: dict) -> None:
    cache = TaskCache(maxsize=10)
    found = []
    threads = [threading.Thread(target=lambda: found.append(cache.get(task))) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(found) == 8 and len(cache) == 1
    assert cache.bytes == cost(task)


def test_a_task_nested_past_the_serialiser_is_a_422_naming_it() -> None:
    deep: list = []
    for _ in range(300):
        deep = [deep]
    with pytest.raises(VerifierError) as raised:
        TaskCache().get(deep)
    assert raised.value.param == "task" and raised.value.code == "too_deep"
