#!/usr/bin/env python3
"""StragglAR round plans by SAT: is R rounds (after the prologue) feasible for n ranks, and a plan.

Offline tool, not a build or test dependency: needs a SAT solver on PATH (Debian: `cadical`).
Model (the labels of include/cclx/schedule/stragglar.hpp): non-stragglers 0..n-2, straggler
S = n-1; in round t < n-1 rank t and S exchange chunk t (both then hold it fully reduced); every
round is a matching; each direction of an exchange carries at most one fully reduced chunk the
sender holds and the receiver lacks; the straggler never receives one. Goal: every non-straggler
holds every chunk after round R-1. Fixing "rank t meets S in round t" loses nothing (the
non-stragglers are interchangeable before they meet the straggler).

  python3 tools/stragglar_sat.py check 12:14 12:13      # feasibility (SAT / UNSAT / TIMEOUT)
  python3 tools/stragglar_sat.py plan 12:14 14:16 ... --out DIR   # plans as DIR/plan<n>.json
  python3 tools/stragglar_sat.py emit DIR > lib/algo/stragglar_plan_table.inc

`emit` writes the plans found for lib/algo/stragglar_plan_table.cpp (docs/algorithms/stragglar.md,
"Plans found by SAT"); the library checks every one with check_plan before use.
"""
import argparse
import glob
import itertools
import json
import os
import subprocess
import sys
import tempfile
import time


class Cnf:
    def __init__(self):
        self.nv, self.clauses = 0, []

    def new(self):
        self.nv += 1
        return self.nv

    def amo(self, lits):  # at most one: pairwise when small, else a sequential counter
        lits = list(lits)
        if len(lits) <= 6:
            self.clauses += [[-a, -b] for a, b in itertools.combinations(lits, 2)]
            return
        s = [self.new() for _ in lits[:-1]]
        self.clauses.append([-lits[0], s[0]])
        for i in range(1, len(lits) - 1):
            self.clauses += [[-lits[i], s[i]], [-s[i - 1], s[i]], [-lits[i], -s[i - 1]]]
        self.clauses.append([-lits[-1], -s[-1]])


def solve(n, R, solver="cadical", timeout=600):
    """(plan rounds | False (UNSAT) | None (timeout)), variables, clauses."""
    S, K, ranks = n - 1, n - 1, range(n)
    f = Cnf()
    pair = {}  # (u, v, t) with u < v: u and v are matched in round t
    for t in range(R):
        for u, v in itertools.combinations(ranks, 2):
            if t <= n - 2 and (u in (t, S) or v in (t, S)):
                continue  # rank t and the straggler are matched with each other
            pair[(u, v, t)] = f.new()
    for t in range(R):
        for w in ranks:
            f.amo(pair[k] for k in ((min(w, z), max(w, z), t) for z in ranks if z != w) if k in pair)
    has = {(v, c, t): f.new() for v in ranks for c in range(K) for t in range(R)}
    send = {}  # (u, v, c, t): u sends fully reduced chunk c to v in round t
    for t in range(R):
        for u in ranks:
            for v in ranks:
                key = (min(u, v), max(u, v), t)
                if u == v or v == S or key not in pair:
                    continue
                for c in range(min(K, t)):  # chunk c is complete from round c on
                    var = send[(u, v, c, t)] = f.new()
                    f.clauses += [[-var, pair[key]], [-var, has[(u, c, t - 1)]],
                                  [-var, -has[(v, c, t - 1)]]]
                f.amo(send[(u, v, c, t)] for c in range(K) if (u, v, c, t) in send)
    for v in ranks:
        for c in range(K):
            for t in range(R):
                h = has[(v, c, t)]
                if t == c and v in (c, S):
                    f.clauses.append([h])
                    continue
                why = ([has[(v, c, t - 1)]] if t else []) + \
                      [send[(u, v, c, t)] for u in ranks if (u, v, c, t) in send]
                f.clauses.append([-h] + why)
                f.clauses += [[h, -w] for w in why]
            f.clauses.append([has[(v, c, R - 1)]])
    fd, path = tempfile.mkstemp(suffix=".cnf")
    with os.fdopen(fd, "w") as out:
        out.write(f"p cnf {f.nv} {len(f.clauses)}\n")
        out.writelines(" ".join(map(str, cl)) + " 0\n" for cl in f.clauses)
    try:
        text = subprocess.run([solver, "-q", path], capture_output=True, text=True,
                              timeout=timeout).stdout
    except subprocess.TimeoutExpired:
        return None, f.nv, len(f.clauses)
    finally:
        os.unlink(path)
    if "s SATISFIABLE" not in text:
        return False, f.nv, len(f.clauses)
    true = {int(x) for line in text.splitlines() if line.startswith("v ")
            for x in line[2:].split() if int(x) > 0}
    rounds = []
    for t in range(R):
        ex = {}
        for (u, v, c, tt), var in send.items():
            if tt == t and var in true:
                a, b = min(u, v), max(u, v)
                ex.setdefault((a, b), [a, b, -1, -1])[2 if u == a else 3] = c
        rounds.append(([[t, S, t, t]] if t <= n - 2 else []) + [ex[k] for k in sorted(ex)])
    return rounds, f.nv, len(f.clauses)


def emit(directory):
    plans = sorted((json.load(open(p)) for p in glob.glob(os.path.join(directory, "plan*.json"))),
                   key=lambda p: p["n"])
    print("// Generated by tools/stragglar_sat.py emit; do not edit. StragglAR plans found by")
    print("// SAT for the n where the greedy planner misses round_lower_bound_slots(n). Per plan:")
    print("// n, rounds, then per round: the number of exchanges and a, b, chunk_ab, chunk_ba each.")
    for p in plans:
        flat = [p["n"], len(p["rounds"])]
        for rnd in p["rounds"]:
            flat.append(len(rnd))
            for e in rnd:
                flat += e
        body = ",".join(map(str, flat))
        print(f"CCLX_STRAGGLAR_PLAN({p['n']}, {body})")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("what", choices=["check", "plan", "emit"])
    ap.add_argument("args", nargs="+", help="n:R pairs (check, plan) or a directory (emit)")
    ap.add_argument("--out", default=".", help="plan: directory for plan<n>.json")
    ap.add_argument("--timeout", type=int, default=600, help="seconds per instance")
    ap.add_argument("--solver", default="cadical")
    a = ap.parse_args()
    if a.what == "emit":
        emit(a.args[0])
        return
    for arg in a.args:
        n, R = map(int, arg.split(":"))
        t0 = time.time()
        res, nv, nc = solve(n, R, a.solver, a.timeout)
        state = "SAT" if res else ("UNSAT" if res is False else "TIMEOUT")
        print(f"n={n} R={R}: {state} ({time.time() - t0:.1f} s, {nv} variables, {nc} clauses)",
              flush=True)
        if res and a.what == "plan":
            json.dump({"n": n, "rounds": res}, open(os.path.join(a.out, f"plan{n}.json"), "w"))


if __name__ == "__main__":
    sys.exit(main())
