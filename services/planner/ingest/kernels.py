"""librosa, imported once per process under a lock shared by every process on the machine.

librosa compiles its numba kernels with ``cache=True`` when its modules are imported. Two
processes that compile them at the same moment on a fresh install (two test workers, two
job workers) can leave a kernel's two cache files out of step, and from then on every
process that loads that cache crashes with a segmentation fault (numba issue #10128).
Importing under an inter-process file lock lets the first process write the cache while
the others wait, then read it.
"""

from __future__ import annotations

import functools
import importlib
import tempfile
from pathlib import Path
from types import ModuleType

from filelock import FileLock

KERNEL_MODULES = ("librosa.beat", "librosa.onset", "librosa.feature", "librosa.util.utils")
"""librosa's lazily loaded submodules that define cached numba kernels the analysis uses."""

IMPORT_LOCK = Path(tempfile.gettempdir()) / "refinery-librosa-import.lock"


@functools.cache
def librosa() -> ModuleType:
    """The ``librosa`` module, its numba kernels compiled or loaded from cache."""
    with FileLock(IMPORT_LOCK):
        module = importlib.import_module("librosa")
        for name in KERNEL_MODULES:
            importlib.import_module(name)
    return module
