# SPDX-License-Identifier: GPL-2.0
"""Replay fuzz (issue 40, item 1): hostile event streams on every replay target, sent
by a raw generic netlink client (test_hostile.py's: the Python client cannot send a
malformed payload) and through the Python client (a trace file it reads as it is).

Each stream goes through every step a replay takes (replay-new, replay-data,
replay-run, then the replay to its end): it must be refused at the step that can tell,
with the errno and the extack message that say why, and a stream that is accepted must
run as its events say. A kmalloc event of 0 bytes is refused at replay-data: before,
the native targets' kmalloc(0) returned ZERO_SIZE_PTR, which was counted live and
then freed as an object (virt_to_folio(0x10) in target_kfree(): an oops in
replay_thread_fn, a splat that fails the VM run). Afterwards nothing of slablab's may
be left: no replay cache (slablab's or the kernel's), the kmalloc classes' objects
as before, the replay finished; kmemleak (the debug kernel, test_kmemleak.py) and the
splat check of scripts/vm.sh watch the rest.
"""
import errno
import struct
import time
from typing import Any, Dict, Tuple

import pytest

import slablab
from test_hostile import (A, A_, BADLEN, RP_, U, Genl, nest,  # noqa: E402
                          parse_attrs, u32, u64)

ALLOC, FREE = 1, 2     # SLABLAB_REPLAY_OP_* (include/slablab/replay.h)
MAX_SIZE = 4 << 20     # replay.c's REPLAY_MAX_SIZE: the largest kmalloc event
TARGETS = {"slablab": U["SLABLAB_TARGET_SLABLAB"], "native": U["SLABLAB_TARGET_NATIVE"],
           "kmalloc": U["SLABLAB_TARGET_KMALLOC"],
           "native-kmalloc": U["SLABLAB_TARGET_NATIVE_KMALLOC"]}


def ev(op, obj, cache=0, cpu=0, size=64, reserved=b"\0\0\0"):
    """A struct slablab_replay_event."""
    return struct.pack("=IIHHB3s", obj, size, cpu, cache, op, reserved)


def rcache(size, align=0):
    """A struct slablab_replay_cache."""
    return struct.pack("=32sII", b"fuzz", size, align)


CACHES = rcache(64) + rcache(128)       # the streams' two caches, numbered 1 and 2


@pytest.fixture(scope="module")
def nl():
    g = Genl()
    yield g
    g.close()


def state(nl):
    r = nl.cmd("REPLAY_GET")
    assert r.error == 0, r
    return {t: v for t, v in parse_attrs(dict(r.replies[0][1])[A_["REPLAY"]])}


def state_name(st):
    v = struct.unpack("=I", st[RP_["STATE"]])[0]
    return next(n for n in ("NONE", "LOADING", "RUNNING", "DONE", "STOPPED")
                if U[f"SLABLAB_REPLAY_{n}"] == v)


def wait_finished(nl, timeout=120):
    """The replay once no longer running (its last kthread queues its finish)."""
    deadline = time.monotonic() + timeout
    while True:
        st = state(nl)
        if state_name(st) != "RUNNING":
            return st
        assert time.monotonic() < deadline, "the replay did not finish"
        time.sleep(0.02)


class Stream:
    """A replay as a client sends it. new/data: extra attributes, or a whole payload
    in place of the one the fields make (malformed attributes)."""

    def __init__(self, events, nr_objects=None, cpus=2, caches=CACHES, nr_events=None,
                 new_extra=(), events_raw=None, offset=0, data_extra=(), max_live=None):
        self.nr_events = len(events) if nr_events is None else nr_events
        self.nr_objects = min(2, self.nr_events) if nr_objects is None else nr_objects
        self.events, self.cpus, self.caches = events, cpus, caches
        self.new_extra, self.events_raw, self.offset = new_extra, events_raw, offset
        self.data_extra, self.max_live = data_extra, max_live

    def drive(self, nl, target):
        """(step, reply or replay-get state): the step that refused it, else "ran" with
        the state of the finished replay."""
        attrs = [u32(RP_["TARGET"], TARGETS[target]), u64(RP_["NR_EVENTS"], self.nr_events),
                 u32(RP_["NR_OBJECTS"], self.nr_objects), u32(RP_["NR_CPUS"], self.cpus),
                 *self.new_extra]
        if self.caches:
            attrs.append(A(RP_["CACHES"], self.caches))
        if self.max_live is not None:
            attrs.append(u64(RP_["MAX_LIVE_BYTES"], self.max_live))
        r = nl.cmd("REPLAY_NEW", nest(A_["REPLAY"], *attrs))
        if r.error:
            return "new", r
        payload = b"".join(self.events) if self.events_raw is None else self.events_raw
        r = nl.cmd("REPLAY_DATA", nest(A_["REPLAY"], *(
            [] if self.offset is None else [u64(RP_["OFFSET"], self.offset)]),
            A(RP_["EVENTS"], payload), *self.data_extra))
        if r.error:
            return "data", r
        r = nl.cmd("REPLAY_RUN")
        if r.error:
            return "run", r
        return "ran", wait_finished(nl)


E = ev(ALLOC, 1)        # a good first event: the bad one is event 1
KM0 = "kmalloc of 0 bytes (sizes are 1..4194304)"

# name: (stream, step, errno, extack message[, the replay's state after])
REFUSED: Dict[str, Tuple[Any, ...]] = {
    # sizes
    "kmalloc-0-bytes": (Stream([E, ev(ALLOC, 2, size=0)]), "data", errno.EINVAL,
                        f"event 1: {KM0}"),
    # the reproducer: alloc 0 B, free it, alloc 0 B (an oops on native targets)
    "kmalloc-0-free-kmalloc-0": (Stream([ev(ALLOC, 1, size=0), ev(FREE, 1, size=0),
                                         ev(ALLOC, 2, size=0)]),
                                 "data", errno.EINVAL, f"event 0: {KM0}"),
    "kmalloc-0-on-another-cpu": (Stream([E, ev(ALLOC, 2, cpu=1, size=0)]), "data",
                                 errno.EINVAL, f"event 1: {KM0}"),
    "size-just-over": (Stream([E, ev(ALLOC, 2, size=MAX_SIZE + 1)]), "data", errno.EINVAL,
                       f"event 1: size {MAX_SIZE + 1} over {MAX_SIZE}"),
    "size-huge": (Stream([E, ev(ALLOC, 2, size=0xFFFFFFFF)]), "data", errno.EINVAL,
                  f"event 1: size 4294967295 over {MAX_SIZE}"),
    "cache-event-size-huge": (Stream([E, ev(ALLOC, 2, cache=1, size=0x80000000)]), "data",
                              errno.EINVAL, f"event 1: size 2147483648 over {MAX_SIZE}"),
    # caches, objects, cpus, ops
    "cache-unknown": (Stream([E, ev(ALLOC, 2, cache=3)]), "data", errno.EINVAL,
                      "event 1: cache 3, but 2 caches given"),
    "cache-65535": (Stream([E, ev(ALLOC, 2, cache=0xFFFF)]), "data", errno.EINVAL,
                    "event 1: cache 65535, but 2 caches given"),
    "cache-without-caches": (Stream([E, ev(ALLOC, 2, cache=1)], caches=b""), "data",
                             errno.EINVAL, "event 1: cache 1, but 0 caches given"),
    "object-0": (Stream([E, ev(ALLOC, 0)]), "data", errno.EINVAL,
                 "event 1: object 0, not in 1..2 (nr-objects)"),
    "object-past-nr-objects": (Stream([E, ev(ALLOC, 3)]), "data", errno.EINVAL,
                               "event 1: object 3, not in 1..2 (nr-objects)"),
    "object-u32-max": (Stream([E, ev(FREE, 0xFFFFFFFF)]), "data", errno.EINVAL,
                       "event 1: object 4294967295, not in 1..2 (nr-objects)"),
    "cpu-past-nr-cpus": (Stream([E, ev(ALLOC, 2, cpu=2)]), "data", errno.EINVAL,
                         "event 1: cpu 2, not below nr-cpus 2"),
    "op-0": (Stream([E, ev(0, 2)]), "data", errno.EINVAL,
             "event 1: op 0, not alloc (1) or free (2)"),
    "op-255": (Stream([E, ev(255, 2)]), "data", errno.EINVAL,
               "event 1: op 255, not alloc (1) or free (2)"),
    "reserved": (Stream([E, ev(ALLOC, 2, reserved=b"\0\0\1")]), "data", errno.EINVAL,
                 "event 1: reserved bytes not zero"),
    # the stream's order (replay_check(), at replay-run: nothing made yet)
    "free-before-alloc": (Stream([ev(FREE, 1), ev(ALLOC, 1)], nr_objects=1), "run",
                          errno.EINVAL, "event 0 frees object 1, not live"),
    "double-free": (Stream([E, ev(FREE, 1), ev(FREE, 1)], nr_objects=1), "run",
                    errno.EINVAL, "event 2 frees object 1, not live"),
    "double-alloc": (Stream([E, ev(ALLOC, 1)], nr_objects=1), "run", errno.EINVAL,
                     "event 1 allocates object 1 a second time"),
    "free-to-another-cache": (Stream([ev(ALLOC, 1, cache=1), ev(FREE, 1, cache=2)],
                                     nr_objects=1), "run", errno.EINVAL,
                              "event 1: object 1 allocated from cache 1, freed to 2"),
    "kfree-of-a-cache-object": (Stream([ev(ALLOC, 1, cache=2), ev(FREE, 1)], nr_objects=1),
                                "run", errno.EINVAL,
                                "event 1: object 1 allocated from cache 2, freed to 0"),
    "huge-sizes-over-max-live": (Stream([ev(ALLOC, 1, size=MAX_SIZE),
                                         ev(ALLOC, 2, size=MAX_SIZE)], max_live=MAX_SIZE),
                                 "run", errno.E2BIG,
                                 "trace peaks at 8 MiB, over the 4 MiB cap (max-live-bytes)"),
    # (the replay stays loading: the rest may still come)
    "events-missing": (Stream([E], nr_events=2), "run", errno.EINVAL, "1 of 2 events given",
                       "LOADING"),
    # payloads and attributes
    "events-truncated": (Stream([E], events_raw=E + E[:7]), "data", errno.EINVAL,
                         "events is not an array of struct slablab_replay_event"),
    "events-past-nr-events": (Stream([E, ev(FREE, 1), E], nr_events=2), "data",
                              errno.EINVAL, "events 0..3: expected from 0, 2 in all"),
    "offset-ahead": (Stream([E], nr_events=2, offset=1), "data", errno.EINVAL,
                     "events 1..2: expected from 0, 2 in all"),
    "offset-u32": (Stream([E], offset=None, data_extra=[u32(RP_["OFFSET"], 0)]), "data",
                   errno.EINVAL, BADLEN),
    "times-unasked": (Stream([E], data_extra=[A(RP_["TIMES"], struct.pack("=Q", 0))]),
                      "data", errno.EINVAL, "times without time-scale"),
    "times-truncated": (Stream([E, ev(FREE, 1)], new_extra=[u32(RP_["TIME_SCALE"], 1000)],
                               data_extra=[A(RP_["TIMES"], struct.pack("=Q", 0) + b"\0" * 4)]),
                        "data", errno.EINVAL, "times is not one __u64 per event"),
    "caches-truncated": (Stream([E], caches=rcache(64) + b"\0" * 39), "new", errno.EINVAL,
                         "caches is not an array of struct slablab_replay_cache"),
    "cache-size-0": (Stream([E], caches=rcache(0)), "new", errno.ERANGE,
                     "cache 0: size 0 out of range"),
    "objects-over-events": (Stream([E], nr_objects=2), "new", errno.EINVAL,
                            "more objects than events"),
}


@pytest.fixture(scope="module")
def baseline(client):
    """What slablab holds before the first stream: its caches, and the objects in
    the kmalloc classes."""
    return snapshot(client)


def snapshot(client):
    caches = client.cache_list()
    return {"caches": sorted(c["name"] for c in caches),
            "kmalloc objects": {c["name"]: c["gauges"]["objects"] for c in caches
                                if c["owner"] == "kmalloc"},
            "native replay caches": native_replay_caches()}


def native_replay_caches():
    """The kernel's caches a native replay made (slablab-replay-ID[-N|-kmalloc-SIZE])."""
    with open("/proc/slabinfo") as f:
        return sorted(line.split()[0] for line in f if line.startswith("slablab-replay-"))


@pytest.mark.parametrize("target", list(TARGETS))
@pytest.mark.parametrize("case", list(REFUSED))
def test_hostile_stream_is_refused(nl, client, baseline, target, case):
    stream, step, err, msg, *after = REFUSED[case]
    got, r = stream.drive(nl, target)
    if got == "ran":
        pytest.fail(f"{case} ran on {target}: {state_name(r)}, expected refused at {step}")
    assert (got, r.error) == (step, err) and msg in r.msg, (got, r)
    # refused at run: the replay is gone, nothing was made; at data: still loading (a
    # corrected chunk may follow); at new: the replay before it is left as it was
    now = state_name(state(nl))
    want = after[0] if after else {"run": "NONE", "data": "LOADING"}.get(step, now)
    assert now == want != "RUNNING", now
    assert native_replay_caches() == baseline["native replay caches"]


# Hostile but well formed: what a replay must take and count as it says. A cache
# event's size and a free's size are not read (the cache's size, the allocation's),
# a kmalloc event of 1 byte and one of 4 MiB (the largest) are allocations, and the
# objects left live are freed at the end.
LEGAL = [ev(ALLOC, 1, cache=1, size=0), ev(ALLOC, 2, size=1, cpu=1),
         ev(ALLOC, 3, size=MAX_SIZE), ev(FREE, 2, size=0), ev(FREE, 1, cache=1, size=7),
         ev(ALLOC, 4, cache=2, size=MAX_SIZE, cpu=1), ev(FREE, 3, cpu=1),
         ev(ALLOC, 5, size=8192), ev(ALLOC, 6, size=8193, cpu=1)]


@pytest.mark.parametrize("target", list(TARGETS))
def test_hostile_but_legal_stream_runs(nl, client, baseline, target):
    got, st = Stream(LEGAL, nr_objects=6).drive(nl, target)
    assert got == "ran", st
    assert state_name(st) == "DONE"
    n = {k: struct.unpack("=Q", st[RP_[k]])[0]
         for k in ("ALLOCS", "FREES", "FAILURES", "LIVE_AT_END")}
    # the 4 MiB allocation may fail (an order-10 page, NOWARN): then its free is skipped
    assert n["FAILURES"] <= 1, n
    assert n["ALLOCS"] + n["FAILURES"] == 6, n
    assert n["FREES"] == 3 - n["FAILURES"], n
    assert n["LIVE_AT_END"] == 3, n


def test_client_refuses_a_trace_of_kmalloc_0(client, tmp_path):
    """The same refusal through the Python client, which reads a trace file as it is
    (docs/replay.md's format, version 1): a recorded kmalloc(0)."""
    events = [(ALLOC, 1, 64), (ALLOC, 2, 0), (FREE, 2, 0)]
    raw = b"".join(struct.pack("<QIIIIHHB3x", i, obj, size, size, 0xcc0, 0, 0, op)
                   for i, (op, obj, size) in enumerate(events))
    head = b"SLABTRC\0" + struct.pack("<IIIIQQQQQQQ", 1, 80, 1, 0, len(events), 2, 0, 0, 1,
                                      64, len(events))
    path = tmp_path / "kmalloc0.trace"
    path.write_bytes(head + raw)
    for target in TARGETS:
        with pytest.raises(slablab.Error) as e:
            client.replay(path, target)
        assert f"event 1: {KM0}" in str(e.value), (target, e.value)


def test_nothing_is_left(nl, client, baseline):
    """After every stream above: the replay finished or gone, no replay cache of
    slablab's or of the kernel's, the kmalloc classes' objects as before."""
    got, st = Stream([E, ev(FREE, 1)], nr_objects=1).drive(nl, "slablab")
    assert got == "ran" and state_name(st) == "DONE", st
    assert snapshot(client) == baseline
    for c in client.cache_list():
        if c["owner"] == "kmalloc":
            assert client.cache_validate(c["name"])["errors"] == 0, c["name"]
