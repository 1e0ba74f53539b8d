# SPDX-License-Identifier: GPL-2.0
"""The module answers: version and status through Python, slabctl and debugfs."""
import os

import slablab
from helpers import DEBUGFS, slabctl


def test_version_python(client):
    assert client.version() == slablab.__version__


def test_status(client, ncpus):
    st = client.status()
    assert st["api_version"] == slablab.API_VERSION
    assert st["kernel_release"] == os.uname().release
    assert st["nr_online_cpus"] == ncpus
    assert st["page_size"] == os.sysconf("SC_PAGE_SIZE")
    assert st["nr_caches"] == len(client.cache_list())


def test_version_slabctl(client):
    out = slabctl("version").stdout
    assert f"slabctl {slablab.__version__}" in out
    assert client.version() in out and os.uname().release in out


def test_debugfs_mirror_exists(client):
    with open(f"{DEBUGFS}/version") as f:
        assert f.read().split()[0] == client.version()
    names = {c["name"] for c in client.cache_list()}
    assert names == set(os.listdir(f"{DEBUGFS}/caches"))
    # slablab's own kmalloc classes, 8 B to 8 KiB
    assert {"kmalloc-8", "kmalloc-4096", "kmalloc-8192"} <= names
