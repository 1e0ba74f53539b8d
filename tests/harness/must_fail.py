# SPDX-License-Identifier: GPL-2.0
"""Run only by tests/host/test_harness.py: a test that fails inside the VM must make
the VM run (and so `make test`) fail. Not collected by the normal suite (no test_ prefix)."""


def test_fails_on_purpose():
    assert 1 + 1 == 3, "this failure is expected: it proves VM failures propagate"
