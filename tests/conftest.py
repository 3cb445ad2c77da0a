"""Tests marked `slow` are the long forms of checks whose short forms always run; they run
only with MBDAE_LONG=1 (`MBDAE_LONG=1 python -m pytest -q`)."""
import os

import pytest


def pytest_collection_modifyitems(config, items):
    if os.environ.get("MBDAE_LONG"):
        return
    skip = pytest.mark.skip(reason="long check (marked slow): run with MBDAE_LONG=1")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)
