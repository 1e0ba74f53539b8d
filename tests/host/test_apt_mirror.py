# SPDX-License-Identifier: GPL-2.0
"""scripts/apt-mirror.py: the Debian mirror scripts/apt-suite.sh writes into its private
bookworm-backports sources list comes from the machine's own apt sources (one-line
sources.list files and deb822 .sources stanzas), never from a host name in the code."""
import os
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(REPO, "scripts", "apt-mirror.py")
ENV = "SLABLAB_DEBIAN_MIRROR"


def mirror(tmp_path, files, suite="bookworm", lists=None, env=None):
    """Run the script on @files ({name: text}) in tmp_path: (rc, stdout, stderr)."""
    paths = []
    for name, text in files.items():
        p = tmp_path / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
        paths.append(str(p))
    e = {k: v for k, v in os.environ.items() if k != ENV}
    e.update(env or {})
    lists_dir = lists or tmp_path / "lists"
    os.makedirs(lists_dir, exist_ok=True)
    r = subprocess.run([sys.executable, SCRIPT, "--suite", suite, "--lists", str(lists_dir)]
                       + paths, capture_output=True, text=True, env=e)
    return r.returncode, r.stdout.strip(), r.stderr


ONE_LINE = """\
# deb http://commented.example.org/debian bookworm main
deb [ arch=amd64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg ] \
http://mirror.example.lan/debian bookworm main contrib non-free-firmware # a comment
deb-src http://src.example.lan/debian bookworm main
deb http://mirror.example.lan/debian-security bookworm-security main
"""

DEB822 = """\
# The security archive first: it must not be taken.
Types: deb
URIs: http://sec.example.lan/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://disabled.example.lan/debian
Suites: bookworm
Components: main
Enabled: no

Types: deb deb-src
# a comment inside the stanza
URIs: http://mirror.example.lan/debian/
Suites: bookworm bookworm-updates
Components: main contrib
Signed-By:
 -----BEGIN PGP PUBLIC KEY BLOCK-----
 .
 mQINBF...
 -----END PGP PUBLIC KEY BLOCK-----
"""


def test_one_line_with_options(tmp_path):
    assert mirror(tmp_path, {"sources.list": ONE_LINE}) == (0, "http://mirror.example.lan/debian", "")


def test_deb822_several_stanzas(tmp_path):
    rc, out, err = mirror(tmp_path, {"sources.list.d/debian.sources": DEB822})
    assert (rc, out) == (0, "http://mirror.example.lan/debian/"), err


def test_security_and_commented_entries_are_ignored(tmp_path):
    rc, out, err = mirror(tmp_path, {
        "sources.list": "#deb http://mirror.example.lan/debian bookworm main\n"
                        "deb http://mirror.example.lan/debian-security bookworm-security main\n"
                        "deb http://mirror.example.lan/debian bookworm/updates main\n",
        "sources.list.d/debian.sources": "Types: deb\nURIs: http://sec.example.lan/debian\n"
                                         "Suites: bookworm-security\nComponents: main\n"})
    assert rc == 1 and out == "", out
    assert "no Debian archive mirror for bookworm" in err
    assert ENV in err


def test_plain_suite_wins_over_updates_only(tmp_path):
    rc, out, _ = mirror(tmp_path, {
        "a.list": "deb http://updates.example.lan/debian bookworm-updates main\n",
        "b.list": "deb http://plain.example.lan/debian bookworm main\n"})
    assert (rc, out) == (0, "http://plain.example.lan/debian")
    # updates-only is taken when nothing serves the plain suite
    rc, out, _ = mirror(tmp_path, {
        "a.list": "deb http://updates.example.lan/debian bookworm-updates main\n",
        "b.list": "deb http://plain.example.lan/debian trixie main\n"})
    assert (rc, out) == (0, "http://updates.example.lan/debian")


def test_third_party_repositories_are_not_taken(tmp_path):
    """A repository that calls its suite bookworm too (component main) is not Debian's
    archive: no debian path, keyring or Origin says it is."""
    rc, out, _ = mirror(tmp_path, {
        "php.list": "deb https://php.example.com/php/ bookworm main\n",
        "node.sources": "Types: deb\nURIs: https://node.example.com/node_20.x\n"
                        "Suites: nodistro\nComponents: main\n",
        "debian.list": "deb http://10.0.0.5/mirror/debian bookworm main contrib\n"})
    assert (rc, out) == (0, "http://10.0.0.5/mirror/debian")


def test_release_origin_decides(tmp_path):
    """apt's Release file for the entry: Origin Debian makes a mirror of any path one;
    another Origin rules out even a path ending in debian."""
    lists = tmp_path / "lists"
    lists.mkdir()
    (lists / "cache.example.lan_apt_dists_bookworm_InRelease").write_text(
        "-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA512\n\nOrigin: Debian\nLabel: Debian\n")
    (lists / "other.example.lan_debian_dists_bookworm_Release").write_text("Origin: Other\n")
    rc, out, _ = mirror(tmp_path, {
        "a.list": "deb http://other.example.lan/debian bookworm main\n"
                  "deb http://cache.example.lan/apt/ bookworm main\n"}, lists=lists)
    assert (rc, out) == (0, "http://cache.example.lan/apt/")


def test_mirror_method_uri(tmp_path):
    """Cloud images list their mirrors in a file (apt's mirror+file method)."""
    rc, out, _ = mirror(tmp_path, {"debian.sources": (
        "Types: deb\nURIs: mirror+file:///etc/apt/mirrors/debian.list\n"
        "Suites: bookworm bookworm-updates bookworm-backports\nComponents: main\n")})
    assert (rc, out) == (0, "mirror+file:///etc/apt/mirrors/debian.list")


def test_nothing_found_names_the_files_and_the_override(tmp_path):
    rc, out, err = mirror(tmp_path, {"sources.list": "# empty\n",
                                     "sources.list.d/x.sources": "Types: deb-src\n"
                                     "URIs: http://m.example.lan/debian\nSuites: bookworm\n"
                                     "Components: main\n"})
    assert rc == 1 and out == ""
    assert str(tmp_path / "sources.list") in err
    assert str(tmp_path / "sources.list.d" / "x.sources") in err
    assert f"{ENV}=" in err


def test_the_override_wins(tmp_path):
    rc, out, _ = mirror(tmp_path, {"sources.list": ONE_LINE},
                        env={ENV: "http://override.example.lan/debian"})
    assert (rc, out) == (0, "http://override.example.lan/debian")


@pytest.mark.parametrize("suite", ["bookworm", "trixie"])
def test_the_suite_is_the_machines(tmp_path, suite):
    rc, out, _ = mirror(tmp_path, {"s.list": "deb http://a.example.lan/debian bookworm main\n"
                                             "deb http://b.example.lan/debian trixie main\n"},
                        suite=suite)
    assert (rc, out) == (0, {"bookworm": "http://a.example.lan/debian",
                             "trixie": "http://b.example.lan/debian"}[suite])
