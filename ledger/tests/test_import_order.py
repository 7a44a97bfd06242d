"""The ledger's modules import in any order: a fresh interpreter that imports one of them first works.

``ledger.sales_history`` once took its quarter-hours from ``ledger.services.sales_months``, which
ran the services package's ``__init__`` and came back to ``ledger.stock_velocity`` half-imported:
importing ``ledger.stock_velocity`` first failed (a test helper that did so could not load).
"""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("module", ["ledger.stock_velocity", "ledger.sales_history", "ledger.services.sales_months"])
def test_a_ledger_module_imported_first_in_a_fresh_process_loads(module):
    code = ("import os, django; os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'shelfwise.settings'); "
            f"django.setup(); import {module}")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
