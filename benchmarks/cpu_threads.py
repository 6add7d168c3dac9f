"""torch's intra-op thread count for a CPU benchmark run.

The local checkpoints the benchmarks train and decode are small: every op is short, and
with more intra-op threads than free cores each one waits at an OpenMP barrier for a
descheduled thread. On the 2-core machine at load average 8, the parse benchmark's
``hf:`` generation ran about 7 times faster with one thread than with torch's default two
(a 1237-token prefill of the ``tiny`` model: 1.06 s with two threads, 0.07 s with one), so
the benchmarks run with one thread unless told otherwise.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["DEFAULT_THREADS", "torch_threads"]

DEFAULT_THREADS = 1


@contextmanager
def torch_threads(count: int) -> Iterator[int]:
    """Run the body with ``count`` torch intra-op threads (0: leave torch's own setting);
    yields the count in effect and puts the previous one back on exit."""
    import torch

    before = torch.get_num_threads()
    if count > 0:
        torch.set_num_threads(count)
    try:
        yield torch.get_num_threads()
    finally:
        torch.set_num_threads(before)
