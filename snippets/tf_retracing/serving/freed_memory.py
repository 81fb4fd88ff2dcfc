"""Give the C library's freed heap memory back to the system every so many tenant checks.

A tenant's first request runs the architecture's Keras call eagerly (the check). Its
temporaries are freed, but the tenant's long-lived allocations (its tensors' handles)
land between them, and glibc's allocator keeps the gaps resident: measured on the small
CNN of the benchmarks, 15 KB per tenant beside its 21 KB of weights, which ``malloc_trim``
returned (1,000 tenants, a fresh interpreter each way). Trimming walks the whole heap
(1.5 ms a call at 3,000 tenants here), so it runs once per ``CHECKS_PER_TRIM`` checks,
not on every first request. Without glibc (macOS, musl) it does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import threading

CHECKS_PER_TRIM = 32


def _glibc_trim():
    """glibc's ``malloc_trim``, or None where the C library has none."""
    name = ctypes.util.find_library("c")
    try:
        return ctypes.CDLL(name).malloc_trim if name else None
    except (OSError, AttributeError):
        return None


class FreedMemory:
    """Counts tenant checks and trims the heap after every ``every``-th."""

    def __init__(self, every: int = CHECKS_PER_TRIM, trim=None):
        self.every = every
        self._trim = trim if trim is not None else _glibc_trim()
        self._checks = 0
        self._lock = threading.Lock()
        self.trims = 0

    def after_check(self) -> None:
        if self._trim is None:
            return
        with self._lock:
            self._checks += 1
            due = self._checks % self.every == 0
        if due:
            self._trim(0)
            self.trims += 1
