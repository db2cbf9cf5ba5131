# The tables of README.md from measure.sh lanes logs: per size and lane count, each launch's
# rate, the ratio to one lane, and the TCP segments h0 retransmitted during each run.
import re, sys, statistics
def parse(path):
    rows = {}  # (bytes, L) -> [rate per launch], retrans delta list
    prev = None; last_key = None; deltas = {}
    for line in open(path):
        m = re.match(r"lanes-(\d+)-of-(\d+) bytes=(\d+) .*median=([\d.]+)", line)
        if m:
            L, k, b, med = int(m[1]), int(m[2]), int(m[3]), float(m[4])
            last_key = (b, L)
            rows.setdefault(last_key, []).append(b * 8 / med / 1e6)
            continue
        m = re.search(r"retransmitted segments so far: (\d+)", line)
        if m and last_key:
            r = int(m[1])
            if prev is not None:
                deltas.setdefault(last_key, []).append(r - prev)
            prev = r
    return rows, deltas
for path in sys.argv[1:]:
    rows, deltas = parse(path)
    lanes = sorted({L for _, L in rows})
    print(f"{path.split('/')[-1]}: Mbit/s each way (median time of 7 per launch; launch 1 / launch 2), and TCP segments h0 retransmitted during each run")
    print()
    print("| in all | " + " | ".join(f"{L} lane{'s' if L > 1 else ''}" for L in lanes) + " | " + " | ".join(f"{L} vs 1" for L in lanes[1:]) + " |")
    print("|---" * (2 * len(lanes)) + "|")
    for b in sorted({b for b, _ in rows}):
        cells = []
        for L in lanes:
            r = rows[(b, L)]; d = deltas.get((b, L), [])
            cells.append(" / ".join(f"{x:.0f}" for x in r) + (f" ({'/'.join(map(str, d))} rtx)" if d else ""))
        base = statistics.mean(rows[(b, 1)])
        ratios = [f"{statistics.mean(rows[(b, L)]) / base:.2f}" for L in lanes[1:]]
        print(f"| {b >> 20} MiB | " + " | ".join(cells) + " | " + " | ".join(ratios) + " |")
    print()
