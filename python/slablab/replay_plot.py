# SPDX-License-Identifier: GPL-2.0 OR MIT
"""slablab.replay_plot: pages over time of replays, one line per target (docs/replay.md).

The input is what :meth:`slablab.Client.replay_compare` returns, or ``slabctl replay
--compare --json``'s document (its ``compare``), or a list of replay dicts; each replay
needs its ``samples`` (a time-scaled replay has them; else pass ``sample_ms``)::

    res = client.replay_compare("hb.trace", "slub,sheaves,native", time_scale=1.0)
    slablab.replay_plot.save(res, "build/hb-pages")   # hb-pages.png, hb-pages.svg

or from a shell::

    slabctl replay hb.trace --compare slub,sheaves,native --time-scale 1 --json > hb.json
    python3 -m slablab.replay_plot hb.json -o build/hb-pages
"""

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any, List, Mapping, Optional, Sequence, Union

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["replays_of", "plot_pages", "save", "main"]

Replays = Union[Mapping[str, Any], Sequence[Mapping[str, Any]]]


def replays_of(data: Replays) -> List[Mapping[str, Any]]:
    """The replay dicts of a compare result, a ``slabctl --json`` document or a list."""
    if not isinstance(data, Mapping):
        return list(data)
    doc: Mapping[str, Any] = data["compare"] if "compare" in data else data
    if "replays" in doc:
        return list(doc["replays"])
    if "replay" in doc:
        return [doc["replay"]]
    return [doc]


def plot_pages(data: Replays, ax: "Optional[Axes]" = None) -> "Axes":
    """One line per replay: the pages it held (above the start's) against seconds since
    its start; a replay without samples is left out. Returns the Axes."""
    if ax is None:
        import matplotlib.pyplot as plt
        _, ax = plt.subplots(figsize=(8, 4.5))
    drawn = 0
    for r in replays_of(data):
        s = r.get("samples") or {}
        ns, pages = s.get("ns") or [], s.get("pages") or []
        if not ns:
            continue
        kib = r.get("page_size", 4096) / 1024
        ax.plot([t / 1e9 for t in ns], [p * kib / 1024 for p in pages],
                label=r.get("label") or r.get("target"), drawstyle="steps-post")
        drawn += 1
    if not drawn:
        raise ValueError("no replay has samples (time-scaled mode, or sample_ms)")
    scale = replays_of(data)[0].get("time_scale") or 0
    ax.set_xlabel("seconds since the start" +
                  (f" (time scale {scale:g})" if scale else " (as fast as possible)"))
    ax.set_ylabel("MiB in pages held")
    ax.set_title("Replay: pages over time")
    ax.grid(True, alpha=0.3)
    ax.legend()
    return ax


def save(data: Replays, prefix: str) -> List[str]:
    """plot_pages() into ``prefix.png`` and ``prefix.svg`` (matplotlib's Agg: no
    display needed); returns the two paths."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    ax = plot_pages(data)
    ax.figure.tight_layout()
    paths = [f"{prefix}.png", f"{prefix}.svg"]
    for path in paths:
        ax.figure.savefig(path, dpi=110)
    plt.close(ax.figure)
    return paths


def main(argv: Optional[Sequence[str]] = None) -> int:
    p = argparse.ArgumentParser(prog="python3 -m slablab.replay_plot",
                                description="Pages over time of replays (PNG and SVG).")
    p.add_argument("json", help="slabctl replay --compare --json output ('-': stdin)")
    p.add_argument("-o", "--output", required=True, help="path prefix of the .png/.svg")
    a = p.parse_args(argv)
    data = json.load(sys.stdin if a.json == "-" else open(a.json))
    for path in save(data, a.output):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
