#!/bin/bash
# measure.sh: the measurements behind docs/testbed.md, with the exact commands.
# Usage: sudo benchmarks/testbed/measure.sh [section...] 2>&1 | tee /tmp/testbed-measure.log
# Sections: rate rndv finalize idle gso ranks hierarchical hierarchical-rooted hierarchical-leaders
# hierarchical-rails hierarchical-placement hierarchical-placement-tuned hierarchical-tuned
# hierarchical-pipeline sim-fidelity sim-fidelity-rate sim-fidelity-single sim-fidelity-messages
# hierarchical-shapes hierarchical-shapes-net hierarchical-rails-net rhd-back-to-back lanes
# hierarchical-openmpi openmpi-duplex openmpi-preload hierarchical-2x8 hierarchical-2x8-tuned
# lanes-2x8 hierarchical-openmpi-2x8 (default: all but the Open MPI ones, which need OMPI_BENCH:
# a cclx-bench built against Open MPI, or OMPI_SHIM: libcclx-mpi.so built against it, and the 2x8
# ones, which need 16 cores). Uses its own testbed prefix (cclxtbm) so it never touches a testbed
# someone else brought up; tears it down on exit.
set -euo pipefail
HERE=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
export CCLX_TESTBED_PREFIX=${CCLX_TESTBED_PREFIX:-cclxtbm}
TB=$HERE/cclx-testbed
T=$("$TB" build | sed -n 1p)  # sed reads all: head could make build die of SIGPIPE
trap '"$TB" down >/dev/null 2>&1 || true' EXIT

say() { printf '\n### %s\n(load average: %s)\n' "$*" "$(cut -d' ' -f1-3 /proc/loadavg)"; }
cmd() { printf '$ %s\n' "$*"; "$@" 2>&1 | grep -av '^\[cclx-testbed\] run:' || true; }
# busy core-seconds (user+system+softirq, all cores) spent while running "$@"
cpu_of() {
  local a b
  a=$(awk '/^cpu / {print $2+$3+$4+$7+$8}' /proc/stat)
  "$@" 2>&1 | grep -av '^\[cclx-testbed\] run:' || true
  b=$(awk '/^cpu / {print $2+$3+$4+$7+$8}' /proc/stat)
  awk -v a="$a" -v b="$b" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "busy_core_seconds=%.2f\n", (b - a) / hz }'
}
# ompi K ARGS...: Open MPI's mpirun on 2 hosts x K ranks of the testbed (ob1 over the TCP BTL on
# tb0, vader inside a host; idle ranks yield; no binding: the emulated hosts share the machine's
# cores), started through netns-launch (docs/testbed-hosts.md)
ompi() {
  local k=$1
  shift
  timeout 900 ip netns exec "$CCLX_TESTBED_PREFIX-sw" mpirun.openmpi --allow-run-as-root \
    --mca plm rsh --mca plm_rsh_agent "$HERE/netns-launch" --mca oob_tcp_if_include 10.77.0.0/24 \
    --host "10.77.0.1:$k,10.77.0.2:$k" -np $((2 * k)) -x CCLX_TESTBED_PREFIX --mca btl self,vader,tcp \
    --mca btl_tcp_if_include tb0 --mca pml ob1 --mca mpi_yield_when_idle 1 --map-by slot \
    --bind-to none "$@"
}
# tbcheck built against Open MPI beside the MPICH one; prints its path
tbcheck_openmpi() {
  local t
  t=$(dirname "$T")/tbcheck-openmpi
  mpicc.openmpi -O2 -Wall -o "$t" "$HERE/tbcheck.c"
  echo "$t"
}
# up ARGS...: a fresh testbed, and its links' rate checked before anything is measured on them
# (a tbf bucket that a machine's timers cannot keep full makes every figure after it wrong)
up() {
  local out
  "$TB" down >/dev/null 2>&1
  printf '$ cclx-testbed up %s\n' "$*"
  "$TB" up "$@"
  printf '$ cclx-testbed check --size 2M\n'
  if ! out=$("$TB" check --size 2M 2>&1); then
    printf '%s\n' "$out"
    echo "measure.sh: the testbed fails its check (above); nothing measured on it" >&2
    exit 1
  fi
  printf '%s\n' "$out" | grep -a '^check:' || true
}

# fidelity_sweep CALLS REPEATS [RUN-OPTION...]: the allreduce sweep of the sim-fidelity-* sections
# on 4 hosts x 2 ranks (cclx-testbed run's options, e.g. --placement, before the command), timed
# in blocks of CALLS calls
fidelity_sweep() {
  local calls=$1 repeats=$2
  shift 2
  cmd "$TB" run --ranks-per-host 2 --idle block --timeout 1800 "$@" -- \
    "$BENCH" allreduce -m 8:4M --algos ring,rhd,multilane_ring,multilane_rhd,leader_rhd \
    -i "$calls" -x 1 --repeat "$repeats"
}

sections=${*:-rate rndv finalize idle gso ranks hierarchical hierarchical-rooted hierarchical-leaders hierarchical-rails hierarchical-placement hierarchical-placement-tuned hierarchical-tuned hierarchical-pipeline sim-fidelity sim-fidelity-rate sim-fidelity-single sim-fidelity-messages hierarchical-shapes hierarchical-shapes-net hierarchical-rails-net rhd-back-to-back lanes}
BENCH=${BENCH:-$HERE/../../build/benchmarks/cclx-bench}
TOPO=${TOPO:-$HERE/../../build/tools/cclx-topo}

# bytes through the tbf qdiscs (upload + download) of h<i>'s link (rail r, default 0), and
# through its loopback
link_total() {
  local rail=${2:-0} sw_dev=h$1 up down
  [[ $rail == 0 ]] || sw_dev=h$1r$rail
  up=$(tc -n "$CCLX_TESTBED_PREFIX-h$1" -s qdisc show dev "tb$rail" | awk '/Sent/ {print $2; exit}')
  down=$(tc -n "$CCLX_TESTBED_PREFIX-sw" -s qdisc show dev "$sw_dev" | awk '/Sent/ {print $2; exit}')
  echo $((up + down))
}
# h0's upload qdisc's drops and overlimits so far, and the TCP segments h0 has retransmitted
link_losses() {
  local qdisc retrans
  qdisc=$(tc -n "$CCLX_TESTBED_PREFIX-h0" -s qdisc show dev tb0 | grep -o 'dropped [0-9]*\|overlimits [0-9]*')
  # shellcheck disable=SC2016  # awk's own fields
  retrans=$(ip netns exec "$CCLX_TESTBED_PREFIX-h0" awk \
    '/^Tcp:/ { if (!h) { for (i = 1; i <= NF; ++i) if ($i == "RetransSegs") c = i; h = 1 } else print $c }' /proc/net/snmp)
  echo "  -> h0 tb0: $(echo "$qdisc" | paste -sd' '); h0 TCP retransmitted segments so far: $retrans"
}
lo_total() { ip netns exec "$CCLX_TESTBED_PREFIX-h$1" cat /sys/class/net/lo/statistics/tx_bytes; }
# counted CMD...: run CMD, then print the bytes it moved through h0's link and h0's loopback
counted() {
  local l0 o0
  l0=$(link_total 0) o0=$(lo_total 0)
  "$@" 2>&1 | grep -av '^\[cclx-testbed\] run:' | grep -E '^(bw|xchg|shm-check: ranks)|rror|nreachable' | cut -c1-160 || true
  echo "  -> h0 link (tbf up+down): $(($(link_total 0) - l0)) bytes, h0 lo: $(($(lo_total 0) - o0)) bytes"
}

# The hierarchical-shapes runs over SHAPES ("HOSTS RANKS_PER_HOST", ';'-separated), COLLECTIVES,
# SIZES and ITERATIONS (cclx-bench's); "$@": more `cclx-testbed run` options (--env K=V).
SHAPES="4 2;2 4"
COLLECTIVES="allgather reduce_scatter bcast"
SIZES=256K:4M
ITERATIONS="-i 2 -x 1"
shapes() {
  local shape hosts k c algos
  local -a shape_list
  IFS=';' read -r -a shape_list <<<"$SHAPES"
  for shape in "${shape_list[@]}"; do
    read -r hosts k <<<"$shape"
    up --hosts "$hosts" --rate 200mbit
    for c in $COLLECTIVES; do
      case $c in
        bcast) algos=native,binomial_tree,leader_binomial_tree,leader_rhd,multilane_rhd,auto ;;
        *) algos=native,ring,rhd,multilane_ring,multilane_rhd,leader_rhd,auto ;;
      esac
      say "hierarchical-shapes: $c, $hosts hosts x $k ranks, 200mbit${*:+ ($*)}"
      # shellcheck disable=SC2086  # ITERATIONS: several words
      cmd "$TB" run --ranks-per-host "$k" --idle block --timeout 900 "$@" -- "$BENCH" "$c" \
        -m "$SIZES" --algos "$algos" $ITERATIONS --repeat 3
    done
  done
}

# The hierarchical-tuned runs on HOSTS hosts of K ranks: tune.sh's table of CANDIDATES, then Auto
# with it beside native and the candidates (the options are those of hierarchical-tuned), for
# TUNED_COLLECTIVES, the ranks placed as TUNED_PLACEMENT says (cclx-testbed run --placement).
TUNED_COLLECTIVES="allreduce bcast allgather reduce_scatter"
TUNED_PLACEMENT=block
TUNED_SMALL=8:16K
TUNED_LARGE=32K:4M
TUNED_LARGE_ARGS="-i 3 -x 1"
TUNE_REPEAT=5
tuned() {
  local hosts=$1 k=$2 candidates=$3 range c size
  local table=${TUNE_TABLE:-$(mktemp -d)/testbed-${hosts}x$k.json}
  local run="$TB run --ranks-per-host $k --placement $TUNED_PLACEMENT --idle block --timeout 900"
  local -a map=(--ranks-per-host "$k")
  if [[ $TUNED_PLACEMENT == cyclic ]]; then
    local r hosts_of=()
    for ((r = 0; r < hosts * k; ++r)); do hosts_of+=($((r % hosts))); done
    map=(--hosts "$(IFS=,; echo "${hosts_of[*]}")")
  fi
  local -A range_sizes=([small]=$TUNED_SMALL [large]=$TUNED_LARGE)
  local -A range_args=([small]="--target-ms 50" [large]=$TUNED_LARGE_ARGS)
  say "hierarchical-tuned: tuning table, $hosts hosts x $k ranks ($TUNED_PLACEMENT), 200mbit -> $table"
  up --hosts "$hosts" --rate 200mbit
  for range in small large; do
    # shellcheck disable=SC2086  # the range's arguments are words
    bash "$HERE/../tune.sh" -o "${table%.json}-$range.json" -n $((hosts * k)) \
      -c "${TUNED_COLLECTIVES// /,}" -m "${range_sizes[$range]}" -r "${TUNE_RUNS:-1}" \
      -b "$(dirname "$(dirname "$BENCH")")" -l "$run" -a "$candidates" -- ${range_args[$range]} \
      --repeat "$TUNE_REPEAT" 2>&1 | grep -av '^\[cclx-testbed\] run:'
  done
  "$(dirname "$BENCH")/../tools/cclx-tune" merge -o "$table" "${table%.json}-small.json" "${table%.json}-large.json"
  for c in $TUNED_COLLECTIVES; do
    for range in small large; do
      say "hierarchical-tuned: $c, $range sizes, $hosts hosts x $k ranks ($TUNED_PLACEMENT), 200mbit, Auto with the table"
      # shellcheck disable=SC2206  # the range's arguments are words
      local -a bench=($run --env CCLX_TUNE_FILE="$table" -- "$BENCH" "$c" -m "${range_sizes[$range]}"
        ${range_args[$range]} --algos "native,$candidates,auto" --skip-unserving --repeat "${TUNED_REPEAT:-5}")
      if [[ -n ${TUNED_JSON:-} ]]; then
        mkdir -p "$TUNED_JSON"
        printf '$ %s --json > %s\n' "${bench[*]}" "$TUNED_JSON/$c-$range.json"
        "${bench[@]}" --json 2>&1 >"$TUNED_JSON/$c-$range.json" | grep -av '^\[cclx-testbed\] run:' || true
      else
        cmd "${bench[@]}"
      fi
    done
  done
  if [[ -n ${TUNED_JSON:-} ]]; then
    # Auto's choice at each point of the comparisons and why, for auto_sweep.py --paired.
    for c in $TUNED_COLLECTIVES; do
      for size in 8 16 32 64 128 256 512 1K 2K 4K 8K 16K 32K 64K 128K 256K 512K 1M 2M 4M; do
        printf '%s %s: %s\n' "$c" "$size" "$(CCLX_TUNE_FILE="$table" "$(dirname "$BENCH")/../tools/cclx-tune" \
          explain --collective "$c" --n $((hosts * k)) "${map[@]}" --bytes "$size" --elem-size 4)"
      done
    done >"$TUNED_JSON/choices.txt"
  fi
}

for s in $sections; do
  case $s in
  rate)
    say "rate: one-way 16 MiB rank0->rank1, achieved vs configured (expect ~95.6%)"
    for r in 50mbit 200mbit 1gbit; do
      up --hosts 2 --rate "$r"
      cmd "$TB" run --timeout 300 -- "$T" bw -s 16M -i 10
    done
    say "rate: heterogeneous: h1 at 50mbit, h0 at 200mbit (the slower link bounds the transfer)"
    up --hosts 2 --rate 200mbit --rate-of h1=50mbit
    cmd "$TB" run --timeout 300 -- "$T" bw -s 16M -i 5
    ;;
  rndv)
    say "rndv: 16 MiB exchange (MPI_Sendrecv) between 2 hosts at 200mbit, 3 jobs x 10 iterations each"
    up --hosts 2 --rate 200mbit
    for v in auto inf; do
      for _ in 1 2 3; do
        cmd "$TB" run --timeout 300 --env UCX_RNDV_THRESH=$v -- "$T" xchg -s 16M -i 10
      done
    done
    ;;
  finalize)
    say "finalize: 8 hosts, ranks reach MPI_Finalize 30 ms apart (tbcheck fin -d 30 -B), 10 jobs per variant, 20 s timeout each"
    up --hosts 8 --rate 200mbit
    for v in off barrier noclose on; do
      ok=0 hang=0
      for _ in $(seq 1 10); do
        if [[ $v == off ]]; then
          args=(--finalize-fix off)
        elif [[ $v == on ]]; then
          args=(--finalize-fix on)
        else
          args=(--finalize-fix on --env "CCLXTB_FINALIZE_FIX=$v")
        fi
        if "$TB" run "${args[@]}" --timeout 20 -- "$T" fin -d 30 -B >/dev/null 2>&1; then
          ok=$((ok + 1))
        else
          hang=$((hang + 1))
        fi
      done
      echo "finalize-fix=$v: completed=$ok hung(timeout)=$hang  [cclx-testbed run ${args[*]} --timeout 20 -- tbcheck fin -d 30 -B]"
    done
    ;;
  idle)
    say "idle: 8-byte ping-pong h0<->h1 (100 round trips x 20), other ranks wait in MPI_Barrier"
    up --hosts 8 --rate 200mbit
    for idle in poll block; do
      for np in 2 8; do
        for _ in 1 2 3; do
          cmd "$TB" run --np $np --idle $idle --timeout 300 -- "$T" lat -s 8 -i 20
        done
      done
    done
    say "idle: bandwidth must not suffer from blocking (16 MiB one-way, 8 ranks)"
    for idle in poll block; do
      cmd "$TB" run --idle $idle --timeout 300 -- "$T" bw -s 16M -i 5
    done
    ;;
  gso)
    say "gso: tbf burst >= GSO super-packet (gso on, burst 80k) vs tbf splitting (gso on, burst 16k) vs no GSO/TSO (gso off, burst 16k); 2 x 64 MiB exchange per job, 3 jobs"
    for r in 200mbit 2gbit; do
      for cfg in on:81920 on:16384 off:16384; do
        gso=${cfg%:*} burst=${cfg#*:}
        up --hosts 2 --rate "$r" --gso "$gso" --burst "$burst"
        for _ in 1 2 3; do
          printf '$ cclx-testbed run --np 2 -- tbcheck xchg -s 64M -i 2 -w 0   (rate %s, gso %s, burst %s)\n' "$r" "$gso" "$burst"
          cpu_of "$TB" run --timeout 300 -- "$T" xchg -s 64M -i 2 -w 0
        done
      done
    done
    ;;
  ranks)
    say "ranks: node detection (MPI_COMM_TYPE_SHARED groups vs host names), 2 hosts, K ranks per host"
    up --hosts 2 --rate 200mbit
    for k in 1 2 4; do
      cmd "$TB" run --ranks-per-host $k --idle block --timeout 120 -- "$T" shm -k $k
    done
    echo "# MPIR_CVAR_NOLOCAL=1 (the K = 1 setting) with 2 ranks per host: every rank a node of its own"
    cmd "$TB" run --ranks-per-host 2 --idle block --timeout 120 --env MPIR_CVAR_NOLOCAL=1 -- "$T" shm -k 2
    echo "# without the per-host UTS namespace every rank is on host 'vm': groups no longer match names"
    cmd "$TB" run --ranks-per-host 2 --idle block --timeout 120 --env CCLXTB_HOST_NS=ipc -- "$T" shm -k 2

    say "ranks: which transport UCX picks between two hosts (K = 1, 4 MiB h0 -> h1, 3 times)"
    for hns in "uts ipc" uts; do
      for tls in tcp,self all; do
        echo "# CCLXTB_HOST_NS='$hns' UCX_TLS=$tls"
        counted "$TB" run --timeout 60 --env "CCLXTB_HOST_NS=$hns" --env UCX_TLS=$tls -- "$T" bw -s 4M -i 3 -w 0
      done
    done

    say "ranks: intra- vs inter-host exchange, 2 hosts x 2 ranks (8 MiB each way, 3 times)"
    for tls in self,sm,tcp tcp,self; do
      for p in 1 2; do
        echo "# UCX_TLS=$tls, rank 0 <-> rank $p ($([[ $p == 1 ]] && echo 'both on h0' || echo 'h0 <-> h1'))"
        counted "$TB" run --ranks-per-host 2 --idle block --timeout 120 --env UCX_TLS=$tls -- \
          "$T" xchg -s 8M -i 3 -w 0 -p $p
      done
    done
    cmd "$TB" check --ranks-per-host 2 --size 8M

    if command -v mpirun.openmpi >/dev/null; then
      say "ranks: Open MPI 4.1 through netns-launch, 2 hosts x 2 ranks"
      OT=$(dirname "$T")/tbcheck-openmpi
      mpicc.openmpi -O2 -Wall -o "$OT" "$HERE/tbcheck.c"
      ompi=(ip netns exec "$CCLX_TESTBED_PREFIX-sw" timeout 120 mpirun.openmpi --allow-run-as-root
            --mca plm_rsh_agent "$HERE/netns-launch" --mca oob_tcp_if_include 10.77.0.0/24
            --host "10.77.0.1:2,10.77.0.2:2" -np 4 -x CCLX_TESTBED_PREFIX
            --mca btl_tcp_if_include tb0 --mca pml ob1)
      for hns in "uts ipc" ipc; do
        echo "# CCLXTB_HOST_NS='$hns', btl self,vader,tcp"
        CCLXTB_HOST_NS=$hns cmd "${ompi[@]}" --mca btl self,vader,tcp "$OT" shm -k 2
      done
      for btl in self,vader,tcp self,tcp; do
        for p in 1 2; do
          echo "# btl $btl, rank 0 <-> rank $p"
          counted "${ompi[@]}" --mca btl $btl "$OT" xchg -s 8M -i 3 -w 0 -p $p
        done
      done
    fi

    if [[ -x $TOPO ]]; then
      say "ranks: cclx-topo (detect_hosts + alpha/beta profile of every pair), 2 hosts x 2 ranks"
      cmd "$TB" run --ranks-per-host 2 --idle block --timeout 300 -- "$TOPO" --budget-s 4
    fi

    say "ranks: allreduce, native vs ring (functional: 2 cores, more than 2 ranks oversubscribe them)"
    for cfg in 4:1 2:2 2:4; do
      h=${cfg%:*} k=${cfg#*:}
      up --hosts "$h" --rate 200mbit
      cmd "$TB" run --ranks-per-host "$k" --idle block --timeout 600 -- \
        "$BENCH" allreduce -m 64K:4M --algos native,ring,rhd -i 3 -x 1 --repeat 3
    done
    ;;
  hierarchical)
    # The node-aware policies (docs/hierarchical.md) beside native (MPICH's node-aware composition:
    # the emulated hosts are MPI's nodes) and the flat ring and RHD; Auto with its model's host
    # map. 2 x 2 runs 4 ranks on 2 cores, idle ranks blocking; 4 x 2 (8 ranks) shows they work there.
    say "hierarchical: allreduce, 2 hosts x 2 ranks, 200mbit"
    up --hosts 2 --rate 200mbit
    cmd "$TB" run --ranks-per-host 2 --idle block --timeout 900 -- "$BENCH" allreduce -m 8:4M \
      --algos native,ring,rhd,multilane_ring,multilane_rhd,leader_recursive_doubling,leader_rhd,auto \
      -i 3 -x 1 --repeat 5
    say "hierarchical: bcast, 2 hosts x 2 ranks, 200mbit"
    cmd "$TB" run --ranks-per-host 2 --idle block --timeout 900 -- "$BENCH" bcast -m 8:4M \
      --algos native,binomial_tree,pipelined_tree,leader_binomial_tree,leader_rhd,auto \
      -i 3 -x 1 --repeat 5
    for c in allgather reduce_scatter; do
      say "hierarchical: $c, 2 hosts x 2 ranks, 200mbit"
      cmd "$TB" run --ranks-per-host 2 --idle block --timeout 900 -- "$BENCH" "$c" -m 8:4M \
        --algos native,ring,rhd,multilane_ring,multilane_rhd,leader_rhd,auto -i 3 -x 1 --repeat 5
    done
    say "hierarchical: allreduce, 4 hosts x 2 ranks, 200mbit (functional: oversubscribed)"
    up --hosts 4 --rate 200mbit
    cmd "$TB" run --ranks-per-host 2 --idle block --timeout 900 -- "$BENCH" allreduce -m 64K:4M \
      --algos native,ring,rhd,multilane_ring,leader_rhd,auto -i 3 -x 1 --repeat 3
    ;;
  sim-fidelity)
    # What the simulator's misses on 2 hosts x 2 ranks come from: the tbf bucket (80 KiB, the
    # default before 2 KiB at these rates) and UCX's shared-memory FIFO (64 slots, its default,
    # before 1024). First RHD's exchanges in plain MPI (tbcheck rhd), with and without the ones
    # inside the hosts; then the same sweep in each of the four configurations, for
    # testbed_sim_compare.py --heading 'burst B, fifo F'.
    up --hosts 2 --rate 200mbit
    for fifo in 64 1024; do
      say "sim-fidelity: tbcheck rhd, 2 hosts x 2 ranks, 200mbit, fifo $fifo"
      for size in 1M 4M; do
        for cross in -c ""; do
          # shellcheck disable=SC2086  # $cross is one word or none
          cmd "$TB" run --ranks-per-host 2 --idle block --timeout 300 --env UCX_MM_FIFO_SIZE=$fifo \
            -- "$T" rhd -s "$size" -i 9 -w 2 $cross
        done
      done
    done
    for burst in 81920 2048; do
      up --hosts 2 --rate 200mbit --burst "$burst"
      for fifo in 64 1024; do
        say "sim-fidelity: burst $burst, fifo $fifo, 2 hosts x 2 ranks, 200mbit"
        for c in allreduce allgather bcast; do
          case $c in
            allreduce) algos=ring,rhd,binomial_tree,multilane_ring,multilane_rhd,leader_rhd ;;
            allgather) algos=ring,rhd,multilane_ring,leader_rhd ;;
            bcast) algos=binomial_tree,pipelined_tree,leader_binomial_tree,multilane_rhd ;;
          esac
          cmd "$TB" run --ranks-per-host 2 --idle block --timeout 900 --env UCX_MM_FIFO_SIZE=$fifo \
            -- "$BENCH" "$c" -m 8:4M --algos "$algos" -i 3 -x 1 --repeat 3
        done
      done
    done
    ;;
  sim-fidelity-rate)
    # What the simulator's misses on 4 hosts x 2 ranks scale with: the same allreduce sweep at
    # 200 and at 50 Mbit/s per host, the ranks consecutive and dealt round. A cost per message or
    # step of the 8 ranks on the 2 cores stays as it is when the links slow down (its share of a
    # call shrinks); a cost of the network grows with the link's time.
    for rate in 200mbit 50mbit; do
      up --hosts 4 --rate "$rate"
      for placement in block cyclic; do
        say "sim-fidelity-rate: allreduce, 4 hosts x 2 ranks ($placement), $rate each"
        fidelity_sweep 3 3 --placement "$placement"
      done
    done
    ;;
  sim-fidelity-single)
    # The same sweep at 200 Mbit/s, ranks consecutive, with blocks of one call (-i 1, each after
    # a barrier) and of three, with TCP slow start after idle on (Linux's default) and off: what
    # the first call after a barrier costs beyond the calls that follow it.
    for ssai in on off; do
      up --hosts 4 --rate 200mbit --slow-start-after-idle "$ssai"
      for calls in 1 3; do
        say "sim-fidelity-single: allreduce, 4 hosts x 2 ranks (block), 200mbit each," \
          "slow start after idle $ssai, $calls call(s) per block"
        fidelity_sweep "$calls" 5
      done
    done
    ;;
  sim-fidelity-messages)
    # The 4 x 2 sweep at 200 Mbit/s, ranks consecutive, with each transfer moved whole and as
    # messages of at most 64 KiB (CCLX_MAX_MESSAGE_BYTES): whether what the exchange schedules
    # lose against the simulator comes with their large single messages.
    up --hosts 4 --rate 200mbit
    for limit in none 64K; do
      env_args=()
      [[ $limit == none ]] || env_args=(--env "CCLX_MAX_MESSAGE_BYTES=$limit")
      say "sim-fidelity-messages: allreduce, 4 hosts x 2 ranks (block), 200mbit each," \
        "messages of at most $limit"
      fidelity_sweep 3 3 "${env_args[@]}"
    done
    ;;
  hierarchical-shapes)
    # Allgather, reduce_scatter and bcast on 4 hosts x 2 ranks and 2 hosts x 4 ranks, one link
    # per host: the node-aware policies beside native, the flat algorithms and Auto (its model,
    # on its default network). 8 ranks on the 2 cores: these show the direction.
    shapes
    ;;
  hierarchical-shapes-net)
    # The same, with Auto's model told the testbed's network (the link's rate and latency that
    # sim-fidelity fits: 23.9 MB/s, 29.4 us); the settings change nothing but Auto's model.
    shapes --env CCLX_NET_BANDWIDTH=23.9M --env CCLX_NET_LATENCY=29.4e-6
    ;;
  rhd-back-to-back)
    # Recursive doubling's exchanges against the ring's on 4 hosts x 1 rank, which carry the same
    # bytes through each link: one allgather at a time and back to back. In plain MPI (tbcheck ag:
    # a barrier before each, or -b: blocks of 5 back to back; rd-alt: the partners' order reversed
    # every other call), then cclx's ring and rhd (cclx-bench -i 1: one call per timed block;
    # -i 5: five back to back).
    up --hosts 4 --rate 200mbit
    for size in 1M 4M; do
      say "rhd-back-to-back: tbcheck ag, $size, 4 hosts x 1 rank, 200mbit"
      for _ in 1 2 3; do
        for pattern in ring rd rd-alt; do
          for b2b in "" -b; do
            # shellcheck disable=SC2086  # $b2b is one word or none
            cmd "$TB" run --idle block --timeout 300 -- "$T" ag -s "$size" -P "$pattern" -i 5 -w 2 $b2b
          done
        done
      done
    done
    for i in 1 5; do
      say "rhd-back-to-back: cclx-bench allgather -i $i, 4 hosts x 1 rank, 200mbit"
      for _ in 1 2 3; do
        cmd "$TB" run --idle block --timeout 300 -- "$BENCH" allgather -m 1M:4M --algos native,ring,rhd \
          -i "$i" -x 1 --repeat 7
      done
    done
    # The multi-lane pair on 4 hosts x 2 ranks, as timed in hierarchical-shapes (-i 2) and one
    # call at a time (-i 1).
    up --hosts 4 --rate 200mbit
    for _ in 1 2; do
      for i in 1 2; do
        say "rhd-back-to-back: cclx-bench allgather -i $i, 4 hosts x 2 ranks, 200mbit"
        cmd "$TB" run --ranks-per-host 2 --idle block --timeout 600 -- "$BENCH" allgather -m 256K:4M \
          --algos native,multilane_ring,multilane_rhd -i "$i" -x 1 --repeat 5
      done
    done
    ;;
  hierarchical-2x8)
    # 2 hosts x 8 ranks, for a machine of 16 cores or more (benchmarks/testbed/kit.sh carries the
    # testbed there): the node check with its tbf counters, then the four collectives as in
    # hierarchical-shapes-net (8 B-4 MiB), without oversubscription.
    up --hosts 2 --rate 200mbit
    say "hierarchical-2x8: node check, 2 hosts x 8 ranks"
    cmd "$TB" check --ranks-per-host 8 --size 1M --skip-rate
    SHAPES="2 8" COLLECTIVES="allreduce allgather reduce_scatter bcast" SIZES=8:4M \
      ITERATIONS="--target-ms 50" shapes --env CCLX_NET_BANDWIDTH=23.9M --env CCLX_NET_LATENCY=29.4e-6
    ;;
  lanes | lanes-2x8)
    # How flows share one link: 2 hosts x K ranks (K = 4, or 8 for lanes-2x8 on 16 cores), L lane
    # pairs (rank i and rank K + i, i < L) exchanging SIZE / L each at once (tbcheck lanes), so
    # every L moves the same bytes through each host's link; after each run the first host's
    # tbf counters (drops, overlimits: h0's upload qdisc) and TCP retransmissions.
    k=4
    [[ $s == lanes-2x8 ]] && k=8
    up --hosts 2 --rate 200mbit
    for size in 1M 2M 4M 16M; do
      say "$s: tbcheck lanes, $size in all, 2 hosts x $k ranks, 200mbit"
      for _ in 1 2; do
        for ((lanes = 1; lanes <= k; lanes *= 2)); do
          cmd "$TB" run --ranks-per-host "$k" --idle block --timeout 300 -- "$T" lanes -k "$k" -L "$lanes" \
            -s "$size" -i 7 -w 2
          link_losses
        done
      done
    done
    ;;
  hierarchical-rooted)
    # Bcast and reduce: multi-lane (the root's host scatters the lanes, each lane crosses between
    # the hosts, every host allgathers them) beside leader-based, the flat trees and RHD, native.
    up --hosts 2 --rate 200mbit
    for c in bcast reduce; do
      say "hierarchical-rooted: $c, 2 hosts x 2 ranks, 200mbit"
      cmd "$TB" run --ranks-per-host 2 --idle block --timeout 900 -- "$BENCH" "$c" -m 8:4M \
        --algos native,binomial_tree,pipelined_tree,rhd,leader_binomial_tree,leader_rhd,multilane_rhd,auto \
        -i 3 -x 1 --repeat 5
    done
    ;;
  hierarchical-leaders)
    # Allgather and reduce_scatter through the hosts' leaders (gather or reduce inside the host,
    # Inter among the leaders, bcast or scatter inside) beside multi-lane, the flat ring and RHD,
    # native; on 2 hosts and on 3 (6 ranks on the 2 cores).
    for hosts in 2 3; do
      up --hosts "$hosts" --rate 200mbit
      for c in allgather reduce_scatter; do
        say "hierarchical-leaders: $c, $hosts hosts x 2 ranks, 200mbit"
        cmd "$TB" run --ranks-per-host 2 --idle block --timeout 900 -- "$BENCH" "$c" -m 8:4M \
          --algos native,ring,rhd,multilane_rhd,leader_rhd,auto -i 3 -x 1 --repeat 5
      done
    done
    ;;
  hierarchical-pipeline)
    # Multi-lane allreduce with its phases in turn and pipelined (2, 4, 8 segments) beside the
    # flat ring and RHD and native: 2 x 2, again without TCP's slow start after idle (is that
    # what the pipeline saves?), then 4 x 2 and 2 x 4 (8 ranks on the 2 cores).
    pipelined="multilane_rhd,multilane_rhd(pipeline=2),multilane_rhd(pipeline=4),multilane_rhd(pipeline=8)"
    up --hosts 2 --rate 200mbit
    say "hierarchical-pipeline: allreduce, 2 hosts x 2 ranks, 200mbit"
    cmd "$TB" run --ranks-per-host 2 --idle block --timeout 900 -- "$BENCH" allreduce -m 1M:16M \
      --algos "ring,rhd,$pipelined,multilane_ring(pipeline=4)" --repeat 5
    up --hosts 2 --rate 200mbit --slow-start-after-idle off
    say "hierarchical-pipeline: allreduce, 2 hosts x 2 ranks, 200mbit, no slow start after idle"
    cmd "$TB" run --ranks-per-host 2 --idle block --timeout 600 -- "$BENCH" allreduce -m 4M:16M \
      --algos "rhd,multilane_rhd,multilane_rhd(pipeline=8)" --repeat 3
    # Auto with a tuning table whose candidates include the pipeline (PIPELINE_TABLE: where the
    # table goes, default a temporary directory).
    table=${PIPELINE_TABLE:-$(mktemp -d)/pipeline-2x2.json}
    candidates="ring,rhd,multilane_rhd,multilane_rhd(pipeline=8)"
    up --hosts 2 --rate 200mbit
    say "hierarchical-pipeline: tuning table, 2 hosts x 2 ranks, 200mbit -> $table"
    bash "$HERE/../tune.sh" -o "$table" -n 4 -c allreduce -m 1M:16M \
      -b "$(dirname "$(dirname "$BENCH")")" \
      -l "$TB run --ranks-per-host 2 --idle block --timeout 900" -a "$candidates" -- --repeat 5 2>&1 |
      grep -av '^\[cclx-testbed\] run:'
    say "hierarchical-pipeline: allreduce, 2 hosts x 2 ranks, 200mbit, Auto with the table"
    cmd "$TB" run --ranks-per-host 2 --idle block --timeout 900 --env CCLX_TUNE_FILE="$table" -- \
      "$BENCH" allreduce -m 1M:16M --algos "native,$candidates,auto" --repeat 5
    for shape in "4 2" "2 4"; do
      read -r hosts k <<<"$shape"
      up --hosts "$hosts" --rate 200mbit
      say "hierarchical-pipeline: allreduce, $hosts hosts x $k ranks, 200mbit"
      cmd "$TB" run --ranks-per-host "$k" --idle block --timeout 1500 -- "$BENCH" allreduce \
        -m 1M:16M --algos "ring,rhd,multilane_rhd,multilane_rhd(pipeline=4),multilane_rhd(pipeline=8)" \
        --repeat 3
    done
    ;;
  hierarchical-rails)
    # Two NICs (rails) per host, each 200 Mbit/s; a rank listens on rail (local rank mod 2), so a
    # pair of ranks talks on the rail of the one connected to (a lane: its own rail). The bytes
    # each rail carried (tbf counters of h0's two links, both directions) for a run of native alone and one of native and multilane_ring
    # (cclx-bench checks every algorithm against native before timing), then the comparison.
    up --hosts 2 --nics-per-host 2 --rate 200mbit
    rails() { echo "rail0=$(link_total 0 0) rail1=$(link_total 0 1) "; }
    for algos in native native,multilane_ring; do
      say "hierarchical-rails: bytes per rail of h0, allreduce 4M, --algos $algos"
      before=$(rails)
      cmd "$TB" run --ranks-per-host 2 --idle block --timeout 300 -- "$BENCH" allreduce -m 4M:4M \
        --algos "$algos" -i 3 -x 1 --repeat 1 | grep -E '^4194304 '
      echo "before: $before"
      echo "after:  $(rails)"
    done
    for c in allreduce bcast; do
      case $c in
        allreduce) algos=native,ring,rhd,multilane_ring,multilane_rhd,leader_recursive_doubling,leader_rhd,auto ;;
        bcast) algos=native,binomial_tree,pipelined_tree,leader_binomial_tree,leader_rhd,multilane_rhd,auto ;;
      esac
      say "hierarchical-rails: $c, 2 hosts x 2 ranks, 2 NICs per host, 200mbit each"
      cmd "$TB" run --ranks-per-host 2 --idle block --timeout 900 -- "$BENCH" "$c" -m 8:4M \
        --algos "$algos" -i 3 -x 1 --repeat 5
    done
    # 3 hosts (no power of two): RHD's and ring's cross-host pairs no longer keep to one rail
    # (6 ranks on 2 cores, link-bound at these rates).
    say "hierarchical-rails: allreduce, 3 hosts x 2 ranks, 2 NICs per host, 200mbit each"
    up --hosts 3 --nics-per-host 2 --rate 200mbit
    cmd "$TB" run --ranks-per-host 2 --idle block --timeout 900 -- "$BENCH" allreduce -m 64K:4M \
      --algos native,ring,rhd,multilane_ring,multilane_rhd,leader_rhd,auto -i 3 -x 1 --repeat 5
    ;;
  hierarchical-placement)
    # Allreduce on 4 x 2 and 2 x 4 with one and two NICs per host, the ranks of a host
    # consecutive (--placement block) or dealt round the hosts (cyclic, `mpirun --map-by node`),
    # Auto told the links (CCLX_NET_LINKS and the links' rate and latency). Flat schedules on
    # consecutive ranks are node-aware by accident (RHD's first exchanges stay inside a host);
    # dealt round, their exchanges cross the links. MPICH's native allreduce is node-aware either
    # way, through the hosts' leaders, on one rail.
    for shape in "4 2" "2 4"; do
      read -r hosts k <<<"$shape"
      for nics in 1 2; do
        up --hosts "$hosts" --nics-per-host "$nics" --rate 200mbit
        net=(--env CCLX_NET_LINKS="$nics" --env CCLX_NET_BANDWIDTH=23.9M --env CCLX_NET_LATENCY=29.4e-6)
        for placement in block cyclic; do
          say "hierarchical-placement: allreduce, $hosts hosts x $k ranks ($placement), $nics NIC(s) per host, 200mbit each"
          cmd "$TB" run --ranks-per-host "$k" --placement "$placement" --idle block --timeout 900 \
            "${net[@]}" -- "$BENCH" allreduce -m 8:4M \
            --algos native,ring,rhd,multilane_ring,multilane_rhd,leader_rhd,auto -i 3 -x 1 --repeat 3
        done
      done
    done
    ;;
  hierarchical-rails-net)
    # Two NICs per host again, with Auto's model told so (CCLX_NET_LINKS=2) and the links' rate
    # and latency: bcast on 2 x 2 and 3 x 2, allreduce on 3 x 2 (64 KiB-4 MiB).
    net=(--env CCLX_NET_LINKS=2 --env CCLX_NET_BANDWIDTH=23.9M --env CCLX_NET_LATENCY=29.4e-6)
    for hosts in 2 3; do
      up --hosts "$hosts" --nics-per-host 2 --rate 200mbit
      collectives=bcast
      [[ $hosts == 3 ]] && collectives="bcast allreduce"
      for c in $collectives; do
        case $c in
          allreduce) algos=native,ring,rhd,multilane_ring,multilane_rhd,leader_rhd,auto ;;
          bcast) algos=native,binomial_tree,pipelined_tree,leader_binomial_tree,leader_rhd,multilane_rhd,auto ;;
        esac
        say "hierarchical-rails-net: $c, $hosts hosts x 2 ranks, 2 NICs per host, 200mbit each (${net[*]})"
        cmd "$TB" run --ranks-per-host 2 --idle block --timeout 900 "${net[@]}" -- "$BENCH" "$c" \
          -m 64K:4M --algos "$algos" -i 3 -x 1 --repeat 3
      done
    done
    ;;
  hierarchical-openmpi)
    # Open MPI 4.1 on 2 x 2 (one link per host): its default collectives (coll/tuned, flat) and
    # coll/han (hierarchical) as native, beside cclx's flat and node-aware schedules. OMPI_BENCH:
    # cclx-bench built against Open MPI (the release-openmpi preset builds no benchmarks:
    # cmake -S . -B DIR -DMPI_CXX_COMPILER=mpicxx.openmpi -DMPIEXEC_EXECUTABLE=/usr/bin/mpiexec.openmpi
    # -DCMAKE_BUILD_TYPE=Release -DCCLX_BUILD_TESTS=OFF && cmake --build DIR --target cclx-bench).
    # mpirun goes through netns-launch (docs/testbed-hosts.md); 4 ranks on 2 cores: idle ranks yield.
    [[ -n ${OMPI_BENCH:-} && -x $OMPI_BENCH ]] || { echo "hierarchical-openmpi: set OMPI_BENCH" >&2; exit 2; }
    up --hosts 2 --rate 200mbit
    for coll in tuned han; do
      priority=()
      [[ $coll == tuned ]] || priority=(--mca coll_han_priority 100)
      for c in allreduce bcast; do
        case $c in
          allreduce) algos=native,ring,rhd,multilane_ring,multilane_rhd,leader_rhd,auto ;;
          bcast) algos=native,binomial_tree,leader_binomial_tree,leader_rhd,multilane_rhd,auto ;;
        esac
        say "hierarchical-openmpi: $c, native = coll/$coll, 2 hosts x 2 ranks, 200mbit"
        cmd ompi 2 "${priority[@]}" "$OMPI_BENCH" "$c" -m 8:4M --algos "$algos" -i 3 -x 1 --repeat 5
      done
    done
    ;;
  openmpi-duplex)
    # Open MPI's TCP path against MPICH's, 2 hosts x 1 rank (no oversubscription): one rank
    # sending 4 MiB to the other (tbcheck bw) and both exchanging 4 MiB at once (xchg), in plain
    # MPI under each library (tbcheck built with mpicc.openmpi as well); under Open MPI also with
    # 4 MiB socket buffers and a 5 ms tbf queue; then cclx's ring and RHD allreduce beside
    # coll/tuned's under Open MPI (OMPI_BENCH, as for hierarchical-openmpi), without and with
    # CCLX_MAX_MESSAGE_BYTES=32K (below the TCP BTL's 64 KiB eager limit), and under MPICH with it;
    # last, on 2 hosts x 2 ranks, coll/han beside cclx's node-aware schedules with it.
    [[ -n ${OMPI_BENCH:-} && -x $OMPI_BENCH ]] || { echo "openmpi-duplex: set OMPI_BENCH" >&2; exit 2; }
    tb_ompi=$(tbcheck_openmpi)
    for queue in 100 5; do
      up --hosts 2 --rate 200mbit --queue-ms "$queue"
      say "openmpi-duplex: 4 MiB one way and both ways, tbf queue $queue ms, 2 hosts x 1 rank, 200mbit"
      for mode in bw xchg; do
        cmd "$TB" run --idle block --timeout 300 -- "$T" "$mode" -s 4M -p 1 -i 5
        cmd ompi 1 "$tb_ompi" "$mode" -s 4M -p 1 -i 5
      done
      cmd ompi 1 --mca btl_tcp_sndbuf 4194304 --mca btl_tcp_rcvbuf 4194304 "$tb_ompi" xchg -s 4M -p 1 -i 5
    done
    up --hosts 2 --rate 200mbit
    say "openmpi-duplex: allreduce under Open MPI, 2 hosts x 1 rank, 200mbit"
    cmd ompi 1 "$OMPI_BENCH" allreduce -m 256K:4M --algos native,ring,rhd -i 3 -x 1 --repeat 3
    say "openmpi-duplex: allreduce under Open MPI, CCLX_MAX_MESSAGE_BYTES=32K, 2 hosts x 1 rank, 200mbit"
    CCLX_MAX_MESSAGE_BYTES=32K cmd ompi 1 -x CCLX_MAX_MESSAGE_BYTES "$OMPI_BENCH" allreduce -m 256K:4M \
      --algos native,ring,rhd -i 3 -x 1 --repeat 3
    say "openmpi-duplex: allreduce under MPICH, without and with CCLX_MAX_MESSAGE_BYTES=32K, 2 hosts x 1 rank, 200mbit"
    cmd "$TB" run --idle block --timeout 300 -- "$BENCH" allreduce -m 256K:4M --algos native,ring,rhd \
      -i 3 -x 1 --repeat 3
    cmd "$TB" run --idle block --timeout 300 --env CCLX_MAX_MESSAGE_BYTES=32K -- "$BENCH" allreduce \
      -m 256K:4M --algos native,ring,rhd -i 3 -x 1 --repeat 3
    say "openmpi-duplex: allreduce under Open MPI, native = coll/han, CCLX_MAX_MESSAGE_BYTES=32K, 2 hosts x 2 ranks, 200mbit"
    CCLX_MAX_MESSAGE_BYTES=32K cmd ompi 2 -x CCLX_MAX_MESSAGE_BYTES --mca coll_han_priority 100 \
      "$OMPI_BENCH" allreduce -m 256K:4M --algos native,rhd,multilane_rhd,leader_rhd -i 3 -x 1 --repeat 5
    ;;
  openmpi-preload)
    # An unmodified MPI program's MPI_Allreduce (tbcheck allreduce, built with mpicc.openmpi) under
    # Open MPI on 2 hosts x 1 rank and 2 x 2: Open MPI's own (coll/tuned), then the preload
    # library's (OMPI_SHIM: libcclx-mpi.so built against Open MPI; its choice is algo::Auto's)
    # without and with CCLX_MAX_MESSAGE_BYTES=32K; CCLX_SHIM_REPORT says what ran.
    [[ -n ${OMPI_SHIM:-} && -r $OMPI_SHIM ]] || { echo "$s: set OMPI_SHIM" >&2; exit 2; }
    tb_ompi=$(tbcheck_openmpi)
    report=$(mktemp -d)
    up --hosts 2 --rate 200mbit
    for k in 1 2; do
      for size in 1M 4M; do
        say "$s: MPI_Allreduce of $size, 2 hosts x $k ranks, 200mbit"
        cmd ompi "$k" "$tb_ompi" allreduce -s "$size" -i 5 -w 2
        for limit in 0 32K; do
          cmd ompi "$k" -x LD_PRELOAD="$OMPI_SHIM" -x CCLX_MAX_MESSAGE_BYTES="$limit" \
            -x CCLX_SHIM_REPORT="$report/r.txt" "$tb_ompi" allreduce -s "$size" -i 5 -w 2
          echo "  (preloaded, CCLX_MAX_MESSAGE_BYTES=$limit) report: $(grep -a -i 'allreduce' "$report/r.txt" | head -3 | tr -s ' ' | paste -sd';')"
        done
      done
    done
    rm -rf "$report"
    ;;
  hierarchical-openmpi-2x8)
    # Allreduce under Open MPI on 2 hosts x 8 ranks, for a machine of 16 cores or more (kit.sh
    # carries Open MPI there when OMPI_BENCH is set at packing): coll/tuned and coll/han as native
    # beside cclx's flat and node-aware schedules, without and with CCLX_MAX_MESSAGE_BYTES=32K.
    [[ -n ${OMPI_BENCH:-} && -x $OMPI_BENCH ]] || { echo "$s: set OMPI_BENCH" >&2; exit 2; }
    up --hosts 2 --rate 200mbit
    for coll in tuned han; do
      priority=()
      [[ $coll == tuned ]] || priority=(--mca coll_han_priority 100)
      for limit in 0 32K; do
        say "$s: allreduce, native = coll/$coll, CCLX_MAX_MESSAGE_BYTES=$limit, 2 hosts x 8 ranks, 200mbit"
        CCLX_MAX_MESSAGE_BYTES=$limit cmd ompi 8 -x CCLX_MAX_MESSAGE_BYTES "${priority[@]}" \
          "$OMPI_BENCH" allreduce -m 64K:4M --algos native,rhd,multilane_ring,multilane_rhd,leader_rhd \
          -i 3 -x 1 --repeat 3
      done
    done
    ;;
  hierarchical-tuned)
    # Auto with a tuning table measured here (benchmarks/tune.sh on the testbed, 2 hosts x 2
    # ranks), beside native and every candidate of the table. Up to 16 KiB a timed block runs for
    # about 50 ms (a few hundred calls: one call's time is dominated by waking blocked ranks, which
    # varies from call to call); from 32 KiB it is 3 calls. TUNE_TABLE: where the table goes
    # (default: a temporary directory); TUNE_RUNS: launches pooled per part of the table
    # (tune.sh -r, default 1); TUNED_REPEAT: repetitions of each comparison (default 5);
    # TUNED_JSON: a directory that keeps each comparison as cclx-bench --json
    # (<collective>-small.json, <collective>-large.json; for
    # `benchmarks/results/scripts/auto_sweep.py --paired`) instead of printing its table, and
    # Auto's choice at each point (choices.txt, cclx-tune explain).
    tuned 2 2 'ring,rhd,recursive_doubling,binomial_tree,pipelined_tree,multilane_ring,multilane_rhd,leader_recursive_doubling,leader_rhd,leader_binomial_tree,multilane_rhd(pipeline=4),multilane_rhd(pipeline=8)'
    ;;
  hierarchical-placement-tuned)
    # Allreduce on 4 hosts x 2 ranks dealt round the hosts (one NIC each), Auto with a table
    # measured there, beside native and the candidates of hierarchical-placement (as
    # hierarchical-tuned: TUNE_TABLE, TUNED_REPEAT, TUNED_JSON).
    TUNED_PLACEMENT=cyclic TUNED_COLLECTIVES=allreduce \
      tuned 4 2 ring,rhd,multilane_ring,multilane_rhd,leader_rhd
    ;;
  hierarchical-2x8-tuned)
    # The same on 2 hosts x 8 ranks (16 cores or more, as hierarchical-2x8), 8 B-1 MiB, with the
    # candidates that were fastest somewhere in hierarchical-2x8 (binomial_tree as
    # leader_binomial_tree) and 3 repetitions, so that table and comparison take about 4 minutes.
    TUNED_LARGE=32K:1M TUNED_LARGE_ARGS="-i 2 -x 1" TUNE_REPEAT=3 TUNED_REPEAT=${TUNED_REPEAT:-3} \
      tuned 2 8 rhd,multilane_ring,multilane_rhd,leader_rhd,leader_binomial_tree
    ;;
  *) echo "unknown section $s" >&2; exit 2 ;;
  esac
done
