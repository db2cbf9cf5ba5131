#!/usr/bin/python3
"""Regenerates every plot in docs/img/ from the data sets under benchmarks/results/.

    /usr/bin/python3 benchmarks/results/plot_all.py [--sim build/tools/cclx-sim] [--only NAME ...]

Needs matplotlib (Debian: python3-matplotlib). Each plot, its data set and its script:

  scaling      docs/img/scaling_*.png and the GENERATED tables of docs/simulation.md, from
               scaling-sim/*.json (plot_scaling.py --from-results; no simulator run)
  auto-sweep   docs/img/auto-sweep-2ranks{,-margin,-pooled}.png, from auto-tuning/sweep-2ranks*,
               and docs/img/auto-paired-testbed-2x2.png, from
               testbed-hierarchical/2026-11-29-804b494-paired/ (auto_sweep.py, --paired)
  adaptive     docs/img/adaptive_*.png, from adaptive-testbed/ (adaptive_campaign.py); needs
               cclx-sim (--sim, default build/tools/cclx-sim, built by `bash cmake/setup.sh`) for
               the predictions (about 4 minutes of CPU for the three plot sets); skipped when
               it is missing
  testbed      docs/img/testbed_{efficiency,straggler}.png and the GENERATED tables of
               docs/results-testbed.md, from testbed-allreduce/ (plot_testbed.py); needs cclx-sim
               (--sim) for the predictions (seconds); skipped when it is missing
  trainer      docs/trainer.png, from trainer/2026-11-28/ (examples/trainer/plot.py)

The GENERATED tables of the other pages are rewritten by their scripts' --write modes (each
script's docstring; the ctest docs-*-tables checks them).
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SCRIPTS = os.path.join(HERE, "scripts")
IMG = os.path.join(ROOT, "docs", "img")
PY = sys.executable


def run(args):
    print("+", " ".join(args), file=sys.stderr)
    subprocess.run(args, check=True, cwd=ROOT)


def scaling(_):
    run([PY, os.path.join(SCRIPTS, "plot_scaling.py"), "--from-results"])


def auto_sweep(_):
    sweeps = os.path.join(HERE, "auto-tuning")
    pooled = ",".join(os.path.join(sweeps, "sweep-2ranks-pooled", f"launch{i}") for i in (1, 2, 3))
    for data, png in ((os.path.join(sweeps, "sweep-2ranks"), "auto-sweep-2ranks.png"),
                      (os.path.join(sweeps, "sweep-2ranks-margin"), "auto-sweep-2ranks-margin.png"),
                      (pooled, "auto-sweep-2ranks-pooled.png")):
        with open(os.devnull, "w") as quiet:  # the tables: auto_sweep.py --write
            print("+ auto_sweep.py", os.path.relpath(data.split(",")[0], ROOT), png, file=sys.stderr)
            subprocess.run([PY, os.path.join(SCRIPTS, "auto_sweep.py"), data,
                            os.path.join(IMG, png)], check=True, cwd=ROOT, stdout=quiet)
    paired = os.path.join(HERE, "testbed-hierarchical", "2026-11-29-804b494-paired")
    with open(os.devnull, "w") as quiet:
        print("+ auto_sweep.py --paired", os.path.relpath(paired, ROOT), file=sys.stderr)
        subprocess.run([PY, os.path.join(SCRIPTS, "auto_sweep.py"), "--paired", paired,
                        os.path.join(IMG, "auto-paired-testbed-2x2.png")], check=True, cwd=ROOT,
                       stdout=quiet)


def adaptive(sim):
    if not os.access(sim, os.X_OK):
        print(f"adaptive: skipped, no cclx-sim at {sim} (build it, or pass --sim)", file=sys.stderr)
        return
    camp = os.path.join(HERE, "adaptive-testbed")
    owners = os.path.join(camp, "owners")
    script = os.path.join(SCRIPTS, "adaptive_campaign.py")
    with tempfile.TemporaryDirectory() as combo:
        # The owner-plan jobs: 3 repetitions at 0 and 80 ms and for the late rank, 5 at 40 and 150.
        for name in ("jitter8-j0", "jitter8-j80", "slowrank8-d300", "topo-uniform8"):
            shutil.copy(os.path.join(owners, "last-rank", name + ".json"), combo)
        for name in ("jitter8-j40", "jitter8-j150"):
            shutil.copy(os.path.join(owners, "last-rank-5reps", name + ".json"), combo)
        for data, prefix in ((camp, "adaptive_"), (combo, "adaptive_owners_"),
                             (os.path.join(owners, "margin"), "adaptive_margin_")):
            with open(os.devnull, "w") as quiet:
                print("+ adaptive_campaign.py", prefix, file=sys.stderr)
                subprocess.run([PY, script, "--data", data, "--sim", sim,
                                "--img-prefix", os.path.join(IMG, prefix)],
                               check=True, cwd=ROOT, stdout=quiet)


def testbed(sim):
    if not os.access(sim, os.X_OK):
        print(f"testbed: skipped, no cclx-sim at {sim} (build it, or pass --sim)", file=sys.stderr)
        return
    run([PY, os.path.join(SCRIPTS, "plot_testbed.py"), "--sim", sim])


def trainer(_):
    run([PY, os.path.join(ROOT, "examples", "trainer", "plot.py"),
         os.path.join(HERE, "trainer", "2026-11-28"), os.path.join(ROOT, "docs", "trainer.png")])


STEPS = {"scaling": scaling, "auto-sweep": auto_sweep, "adaptive": adaptive, "testbed": testbed,
         "trainer": trainer}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sim", default=os.path.join(ROOT, "build", "tools", "cclx-sim"))
    ap.add_argument("--only", nargs="*", choices=list(STEPS))
    a = ap.parse_args()
    for name, step in STEPS.items():
        if not a.only or name in a.only:
            step(os.path.abspath(a.sim))


if __name__ == "__main__":
    main()
