# SPDX-License-Identifier: GPL-2.0
"""The host suite's hooks: the skip policy (tests/skip_policy.py) of every session."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from skip_policy import (pytest_collection_modifyitems, pytest_collectreport,  # noqa: E402,F401
                         pytest_configure, pytest_runtest_logreport, pytest_runtest_logstart,
                         pytest_sessionfinish, pytest_terminal_summary)
