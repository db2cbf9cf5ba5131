#!/usr/bin/env python3
"""Writes a cclx-sim topology (explicit JSON form, include/cclx/topology/topology_json.hpp) of a
two-level machine whose ranks are placed round-robin: rank r on host r mod H. The links are
cclx-sim --ranks-per-host's: intra-host rank-to-rank links, and across hosts rank -> NIC ->
switch -> NIC -> rank with the latency on the NIC's uplink, so a host's ranks share its NIC.
docs/hierarchical.md compares flat and hierarchical allreduce on it.

  benchmarks/round_robin_topology.py --hosts 8 --ranks-per-host 8 > rr.json
  build/tools/cclx-sim --algo ring,multilane_ring --topology rr.json --bytes 16M
"""
import argparse
import json
import sys


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--hosts", type=int, default=8)
    p.add_argument("--ranks-per-host", type=int, default=8)
    p.add_argument("--alpha", type=float, default=1e-6, help="intra-host latency (s)")
    p.add_argument("--bw", type=float, default=50e9, help="intra-host bandwidth (bytes/s)")
    p.add_argument("--inter-alpha", type=float, default=5e-6, help="NIC latency (s)")
    p.add_argument("--inter-bw", type=float, default=12.5e9, help="NIC bandwidth (bytes/s)")
    a = p.parse_args()
    h, n = a.hosts, a.hosts * a.ranks_per_host
    vertices = [{"kind": "rank", "name": f"r{r}", "rank": r, "host": r % h, "ports": 1}
                for r in range(n)]
    nics = []
    for j in range(h):
        nics.append(len(vertices))
        vertices.append({"kind": "nic", "name": f"h{j}/nic0", "host": j})
    switch = len(vertices)
    vertices.append({"kind": "switch", "name": "switch"})
    links = [{"from": x, "to": y, "alpha": a.alpha, "bw": a.bw, "kind": "direct", "duplex": True}
             for x in range(n) for y in range(x + 1, n) if x % h == y % h]
    links += [{"from": r, "to": nics[r % h], "alpha": 0, "bw": 1e15, "duplex": True}
              for r in range(n)]
    for j in range(h):
        links.append({"from": nics[j], "to": switch, "alpha": a.inter_alpha, "bw": a.inter_bw})
        links.append({"from": switch, "to": nics[j], "alpha": 0, "bw": a.inter_bw})
    json.dump({"format": "cclx-topology", "version": 1, "hosts": [f"h{j}" for j in range(h)],
               "vertices": vertices, "links": links}, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
