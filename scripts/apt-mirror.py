#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Print the URI of the Debian archive mirror this machine's apt already uses, for
scripts/apt-suite.sh's private "<URI> SUITE main" sources lists:

    scripts/apt-mirror.py [--suite SUITE] [--lists DIR] [FILE...]

FILE...: the sources files to read (default: /etc/apt/sources.list and, in name order,
/etc/apt/sources.list.d/*.list (one-line format) and *.sources (deb822 stanzas)).
SUITE: the machine's suite (default: VERSION_CODENAME of /etc/os-release, else bookworm).

An entry is a candidate when it is enabled, of type deb, has the component main and a
suite of the Debian archive proper for SUITE: SUITE itself, SUITE-updates,
SUITE-backports or SUITE-proposed-updates (never SUITE-security nor SUITE/updates, which
the security archive serves). A candidate must also look like Debian's archive: apt's
Release file for it (in --lists, default /var/lib/apt/lists) says "Origin: Debian", or it
is signed by debian-archive-keyring, or its URI's last path element is "debian" (as a
local mirror's http://mirror.example.lan/debian is); a Release file with another Origin
rules it out (a third-party repository that also names its suite "bookworm"). Of the
candidates, the first that serves SUITE itself wins, else the first at all.

SLABLAB_DEBIAN_MIRROR, when set, is printed as it is and no file is read. Nothing found:
an error on stderr naming the files read and that variable, exit status 1.
Standard library only (it runs with /usr/bin/python3 before any venv exists).
"""
import argparse
import glob
import os
import re
import sys
from typing import Dict, List, Optional, Tuple

ENV = "SLABLAB_DEBIAN_MIRROR"
LISTS = "/var/lib/apt/lists"


def default_files() -> List[str]:
    files = ["/etc/apt/sources.list"]
    d = "/etc/apt/sources.list.d"
    files += sorted(glob.glob(os.path.join(d, "*.list")) + glob.glob(os.path.join(d, "*.sources")),
                    key=os.path.basename)
    return [f for f in files if os.path.isfile(f)]


def default_suite(os_release: str = "/etc/os-release") -> str:
    try:
        with open(os_release) as f:
            for line in f:
                m = re.match(r"VERSION_CODENAME=\"?([^\"\s]+)", line)
                if m:
                    return m.group(1)
    except OSError:
        pass
    return "bookworm"


# An entry: (types, uris, suites, components, options) with option names lower-cased.
Entry = Tuple[List[str], List[str], List[str], List[str], Dict[str, str]]


def parse_one_line(text: str) -> List[Entry]:
    """sources.list(5) one-line format: TYPE [OPTIONS] URI SUITE [COMPONENT...]."""
    entries = []
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        m = re.match(r"(\S+)\s+(?:\[([^\]]*)\]\s*)?(\S+)\s+(\S+)\s*(.*)$", line)
        if not m:
            continue
        options = {}
        for opt in (m.group(2) or "").split():
            k, _, v = opt.partition("=")
            options[k.lower().rstrip("+-")] = v
        entries.append(([m.group(1)], [m.group(3)], [m.group(4)], m.group(5).split(), options))
    return entries


def parse_deb822(text: str) -> List[Entry]:
    """sources.list(5) deb822 format: stanzas of Types, URIs, Suites, Components."""
    entries = []
    stanzas: List[Dict[str, str]] = [{}]
    key = None
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        if not line.strip():
            if stanzas[-1]:
                stanzas.append({})
            key = None
            continue
        if line[0] in " \t":
            if key:
                stanzas[-1][key] += "\n" + line.strip()
            continue
        k, sep, v = line.partition(":")
        if not sep:
            continue
        key = k.strip().lower()
        stanzas[-1][key] = v.strip()
    for s in stanzas:
        if not s or s.get("enabled", "yes").lower() == "no":
            continue
        entries.append((s.get("types", "").split(), s.get("uris", "").split(),
                        s.get("suites", "").split(), s.get("components", "").split(), s))
    return entries


def parse_file(path: str) -> List[Entry]:
    with open(path, errors="replace") as f:
        text = f.read()
    return parse_deb822(text) if path.endswith(".sources") else parse_one_line(text)


def list_name(uri: str) -> str:
    """The prefix of apt's list file names for @uri (apt's URItoFileName, roughly)."""
    u = re.sub(r"^[a-z0-9+.-]+://", "", uri.rstrip("/"))
    u = re.sub(r"^[^/@]*@", "", u)  # user:password@
    return u.replace("/", "_")


def release_origin(uri: str, suite: str, lists: str) -> Optional[str]:
    for name in ("InRelease", "Release"):
        path = os.path.join(lists, f"{list_name(uri)}_dists_{suite}_{name}")
        try:
            with open(path, errors="replace") as f:
                for line in f:  # the fields come before the file lists
                    if line.startswith("Origin:"):
                        return line.split(":", 1)[1].strip()
                    if line.startswith(("MD5Sum:", "SHA256:", "SHA1:")):
                        break
        except OSError:
            continue
    return None


def looks_debian(uri: str, suite: str, options: Dict[str, str], lists: str) -> bool:
    origin = release_origin(uri, suite, lists)
    if origin is not None:
        return origin == "Debian"
    if "debian-archive-keyring" in options.get("signed-by", ""):
        return True
    last = uri.rstrip("/").rsplit("/", 1)[-1]
    return last.split(".", 1)[0].lower() == "debian"


def find_mirror(files: List[str], suite: str, lists: str = LISTS) -> Optional[str]:
    archive = {suite: 0, f"{suite}-updates": 1, f"{suite}-backports": 1,
               f"{suite}-proposed-updates": 1}
    best: Optional[Tuple[int, str]] = None
    for path in files:
        for types, uris, suites, components, options in parse_file(path):
            if "deb" not in types or "main" not in components:
                continue
            for uri in uris:
                if uri.rstrip("/").endswith("-security"):
                    continue
                for s in suites:
                    rank = archive.get(s.rstrip("/"))
                    if rank is None or not looks_debian(uri, s.rstrip("/"), options, lists):
                        continue
                    if best is None or rank < best[0]:
                        best = (rank, uri)
    return best[1] if best else None


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--suite", default=None)
    ap.add_argument("--lists", default=LISTS)
    ap.add_argument("files", nargs="*")
    args = ap.parse_args(argv)
    override = os.environ.get(ENV, "").strip()
    if override:
        print(override)
        return 0
    suite = args.suite or default_suite()
    files = args.files or default_files()
    uri = find_mirror(files, suite, args.lists)
    if uri:
        print(uri)
        return 0
    read = ", ".join(files) if files else "none (no /etc/apt/sources.list nor sources.list.d)"
    print(f"apt-mirror: error: no Debian archive mirror for {suite} (type deb, component main, "
          f"suite {suite} or {suite}-updates, not security) in the apt sources read: {read}; "
          f"set {ENV} to the mirror's URI (e.g. {ENV}=http://mirror.example.lan/debian)",
          file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
