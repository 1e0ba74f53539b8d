# SPDX-License-Identifier: GPL-2.0 OR MIT
"""The seed experiments (docs/experiments.md): ``python3 -m slablab experiment NAME``.

Each reruns the argument of one of the design discussions in ``shared/seeds/``
(:mod:`slablab.seeds`) on this kernel and prints its table in the seed's shape, the
seed's figures beside ours, with a verdict on each comparison. One module per seed,
beside the parts they share:

- :mod:`.core`: pure and shared: runs.csv's columns, the designs this module has and
  each experiment's columns, sizes and titles, the statistics, the verdict rule, the
  primary verdicts (PRIMARY) and the Holm ranking of the others, the A/A twin, the table
  helpers, the readers of an experiment's folder
- :mod:`.guest`: what every seed runs inside the VM: :class:`~.guest.Lab` (storms, a
  runs.csv row after each), the kmalloc design switch, /sys/kernel/slab, live.csv
- :mod:`.seed_000` … :mod:`.seed_004`: each seed's storms (``run_NNN``), table and
  verdicts (``table_NNN``) and live row (fio, hackbench, tbench)
- :mod:`.replays`: the recorded workloads' replay rows (seed-002, seed-003)
- :mod:`.report`: an experiment's folder as text and figures (``tables``, ``report``,
  ``plot``), wherever it runs
- :mod:`.host`: what runs on the host: seed-004's boots, the VM booted once per sample
- :mod:`.cli`: ``run_experiment`` (in the VM), the ``--publish`` folder, ``main``

The tables, verdicts and availability are pure (a DataFrame in, text out):
tests/host/test_experiment.py runs them without a kernel. :mod:`slablab.experiment`, the
single module these came from, stays for a release as a facade re-exporting its names.
"""
