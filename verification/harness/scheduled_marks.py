"""A pytest plugin for tests/test_pages_on_schedule.py
(``-p verification.harness.scheduled_marks``): once collection is done, it prints each
test's id after ``scheduled`` or ``make-test``, so that one collection tells which tests
each of the two runs gets."""

from __future__ import annotations

import pytest


@pytest.hookimpl(trylast=True)  # after tests/conftest.py has marked the scheduled pages
def pytest_collection_modifyitems(config, items):
    for item in items:
        run = "scheduled" if item.get_closest_marker("scheduled") else "make-test"
        print(f"{run} {item.nodeid}")
