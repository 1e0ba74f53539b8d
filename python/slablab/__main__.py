# SPDX-License-Identifier: GPL-2.0 OR MIT
"""python3 -m slablab [sweep ARGS... | experiment NAME|all|list [--full] ... | fidelity ...
                    | findings q4,...|all|list ...]

Without arguments: the package and module versions and the kernel it runs on.
``python3 -m slablab sweep ...`` is ``python3 -m slablab.sweep ...`` (docs/sweeps.md);
``python3 -m slablab experiment seed-002`` runs a seed experiment (docs/experiments.md);
``python3 -m slablab findings q4`` answers a question of docs/findings.md;
``python3 -m slablab fidelity`` checks the design the running kernel's allocator models
against it (docs/fidelity.md).
"""
import sys
from typing import Optional, Sequence


def main(argv: Optional[Sequence[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "sweep":
        from . import sweep
        return sweep.main(argv[1:])
    if argv and argv[0] == "experiment":
        from .experiments import cli
        return cli.main(argv[1:])
    if argv and argv[0] == "findings":
        from . import findings
        return findings.main(argv[1:])
    if argv and argv[0] == "fidelity":
        from . import fidelity
        return fidelity.main(argv[1:])
    if argv:
        print((__doc__ or "").strip(), file=sys.stderr)
        return 0 if argv[0] in ("-h", "--help") else 2
    import slablab
    print(f"slablab {slablab.__version__} (protocol {slablab.API_VERSION})")
    try:
        st = slablab.Client().status()
    except slablab.ModuleNotLoaded as e:
        print(e)
        return 1
    print(f"module {st['version']} on {st['kernel_release']}, {st['nr_online_cpus']} cpus, "
          f"{st['nr_caches']} caches; features: {', '.join(st['features']) or 'none'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
