/* tbcheck: small MPI checks for the cclx emulated testbed (benchmarks/testbed).
 *
 * Usage: tbcheck MODE [options]
 *   shm  [-k K]         node check: the MPI_COMM_TYPE_SHARED sub-communicators must
 *                       be exactly the groups of ranks with the same host name
 *                       (MPI_Get_processor_name), and hold K ranks each (default
 *                       1: no shared memory between emulated hosts; the last host
 *                       may hold fewer); prints each rank's host and group, exits
 *                       1 otherwise
 *   bw   -s BYTES       one-way transfer rank 0 -> rank P (-p P, default 1), timed on
 *                       rank 0 until a 1-byte ack returns; prints per-iteration
 *                       times, median, and the achieved rate in Mbit/s
 *   xchg -s BYTES       ranks 0 and P exchange BYTES simultaneously (MPI_Sendrecv)
 *   lat  -s BYTES       ping-pong 0 <-> P; every other rank waits in MPI_Barrier
 *                       (so idle ranks poll); prints median one-way latency (us)
 *   rhd  -s BYTES       the exchanges of a recursive halving-doubling allreduce of
 *                       BYTES on 2 hosts x 2 ranks (4 ranks; 0,1 on one host):
 *                       BYTES/2 with the host's other rank, BYTES/4 twice with the
 *                       same rank of the other host, BYTES/2 inside the host again;
 *                       with -c only the two exchanges between the hosts. Each host's
 *                       link carries BYTES each way (the printed rate); no reduction
 *   ag   -s BYTES       the exchanges of an allgather of BYTES in all (BYTES/n per rank),
 *                       no copies: -P ring (default), n - 1 steps of BYTES/n to the next
 *                       rank, from the previous; -P rd (recursive doubling, n a power of
 *                       two), log2 n steps with rank ^ d of d * BYTES/n; -P rd-alt the same
 *                       with the partners in reverse order (n/2 first) every other call, so
 *                       that each call starts with the partner the last one ended with; prints the
 *                       slowest rank's time per iteration (with -b, per allgather of
 *                       iterations run back to back: a rank starts the next as soon as
 *                       its own part of the last one is done)
 *   lanes -s BYTES      BYTES each way between two hosts of K ranks (-k K; ranks 0..K-1 on
 *                       the first): lane i < L (-L L, default K) is rank i and rank K + i,
 *                       which exchange BYTES/L at once (MPI_Sendrecv); the other ranks wait
 *                       in MPI_Barrier. Prints the slowest lane's time per iteration and the
 *                       rate of BYTES over it: what L flows together get of one link
 *   allreduce -s BYTES  MPI_Allreduce of BYTES of floats (sum) on every rank, after a barrier;
 *                       prints the slowest rank's time per call (an unmodified MPI program's
 *                       collective: the preload library's, when it is preloaded)
 *   fin                 finalize stress: an allreduce, then rank r sleeps r*D ms
 *                       (-d D, default 50) so ranks reach MPI_Finalize at
 *                       different times
 * Options: -i ITERS (default 10), -w WARMUP (default 2), -d STAGGER_MS,
 *          -p PEER (rank 0's partner in bw/xchg/lat, default 1), -k RANKS_PER_HOST,
 *          -c  rhd: the exchanges between the hosts only, -P PATTERN  ag: ring or rd,
 *          -L LANES  lanes: how many lane pairs carry the bytes,
 *          -b  ag: ITERS allgathers back to back, timed as one block,
 *          -B  no MPI_Barrier before MPI_Finalize (default: barrier)
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

static double cpu_seconds(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + 1e-6 * (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

static long parse_size(const char *s) {
  char *end = NULL;
  double v = strtod(s, &end);
  if (end && (*end == 'k' || *end == 'K')) v *= 1024;
  if (end && (*end == 'm' || *end == 'M')) v *= 1024 * 1024;
  if (end && (*end == 'g' || *end == 'G')) v *= 1024.0 * 1024 * 1024;
  return (long)v;
}

static void print_times(const char *what, long bytes, double *t, int n) {
  printf("%s bytes=%ld times_s=", what, bytes);
  for (int i = 0; i < n; ++i) printf("%s%.4f", i ? "," : "", t[i]);
  double tmin = t[0], tmax = t[0];
  for (int i = 1; i < n; ++i) {
    if (t[i] < tmin) tmin = t[i];
    if (t[i] > tmax) tmax = t[i];
  }
  double med = median(t, n);
  printf(" min=%.4f median=%.4f max=%.4f", tmin, med, tmax);
  if (bytes >= 65536) printf(" rate_mbit=%.1f", bytes * 8.0 / med / 1e6);
  printf("\n");
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *mode = argc > 1 ? argv[1] : "shm";
  long bytes = 16L * 1024 * 1024;
  int iters = 10, warmup = 2, barrier_before_finalize = 1, peer = 1, per_host = 1, cross_only = 0;
  int back_to_back = 0, lanes = 0;
  long stagger_ms = 50;
  const char *pattern = "ring";
  for (int i = 2; i < argc; ++i) {
    if (!strcmp(argv[i], "-s") && i + 1 < argc) bytes = parse_size(argv[++i]);
    else if (!strcmp(argv[i], "-i") && i + 1 < argc) iters = atoi(argv[++i]);
    else if (!strcmp(argv[i], "-w") && i + 1 < argc) warmup = atoi(argv[++i]);
    else if (!strcmp(argv[i], "-d") && i + 1 < argc) stagger_ms = atol(argv[++i]);
    else if (!strcmp(argv[i], "-p") && i + 1 < argc) peer = atoi(argv[++i]);
    else if (!strcmp(argv[i], "-k") && i + 1 < argc) per_host = atoi(argv[++i]);
    else if (!strcmp(argv[i], "-B")) barrier_before_finalize = 0;
    else if (!strcmp(argv[i], "-c")) cross_only = 1;
    else if (!strcmp(argv[i], "-P") && i + 1 < argc) pattern = argv[++i];
    else if (!strcmp(argv[i], "-b")) back_to_back = 1;
    else if (!strcmp(argv[i], "-L") && i + 1 < argc) lanes = atoi(argv[++i]);
    else {
      if (rank == 0) fprintf(stderr, "tbcheck: unknown option %s\n", argv[i]);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  if (iters < 1) iters = 1;
  int rc = 0;
  char name[MPI_MAX_PROCESSOR_NAME];
  int name_len = 0;
  MPI_Get_processor_name(name, &name_len);

  if (!strcmp(mode, "shm")) {
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    int nsize = 0, leader = rank;
    MPI_Comm_size(node, &nsize);
    MPI_Allreduce(MPI_IN_PLACE, &leader, 1, MPI_INT, MPI_MIN, node);
    int maxsize = 0;
    MPI_Allreduce(&nsize, &maxsize, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    /* every rank's group (its lowest rank), group size and host name, on rank 0 */
    int mine[2] = {leader, nsize};
    int *groups = rank == 0 ? malloc(2 * sizeof(int) * (size_t)size) : NULL;
    char *names = rank == 0 ? calloc((size_t)size, MPI_MAX_PROCESSOR_NAME) : NULL;
    MPI_Gather(mine, 2, MPI_INT, groups, 2, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Gather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0,
               MPI_COMM_WORLD);
    if (rank == 0) {
      int bad = 0;
      for (int r = 0; r < size; ++r) {
        const char *nr = names + (size_t)r * MPI_MAX_PROCESSOR_NAME;
        /* same group <=> same host name; group size K (fewer only on the last host) */
        for (int q = 0; q < r; ++q) {
          const char *nq = names + (size_t)q * MPI_MAX_PROCESSOR_NAME;
          if ((groups[2 * q] == groups[2 * r]) != !strcmp(nq, nr)) bad = 1;
        }
        int expect = size - groups[2 * r] < per_host ? size - groups[2 * r] : per_host;
        if (groups[2 * r + 1] != expect) bad = 1;
        if (size <= 64) {
          printf("shm-check: rank %d host %s shared_group %d size %d\n", r, nr, groups[2 * r],
                 groups[2 * r + 1]);
        }
      }
      printf("shm-check: ranks=%d ranks_per_host=%d max_shared_comm_size=%d %s\n", size, per_host,
             maxsize,
             !bad ? (per_host == 1 ? "OK (no shared memory between hosts)"
                                   : "OK (shared memory exactly within each host)")
                  : "FAIL (shared-memory groups are not the emulated hosts)");
      rc = bad;
      free(groups);
      free(names);
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Comm_free(&node);
  } else if (!strcmp(mode, "bw") || !strcmp(mode, "xchg") || !strcmp(mode, "lat")) {
    if (size < 2 || peer < 1 || peer >= size) {
      if (rank == 0) fprintf(stderr, "tbcheck %s needs at least 2 ranks and 0 < -p PEER < ranks\n", mode);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char *sbuf = malloc((size_t)bytes + 1), *rbuf = malloc((size_t)bytes + 1);
    memset(sbuf, rank + 1, (size_t)bytes + 1);
    memset(rbuf, 0, (size_t)bytes + 1);
    double *t = calloc((size_t)iters, sizeof *t);
    double cpu0 = 0, wall0 = 0;
    for (int it = -warmup; it < iters; ++it) {
      MPI_Barrier(MPI_COMM_WORLD);
      if (it == 0) {
        cpu0 = cpu_seconds();
        wall0 = MPI_Wtime();
      }
      double t0 = MPI_Wtime(), dt = 0;
      if (!strcmp(mode, "bw")) {
        char ack = 0;
        if (rank == 0) {
          MPI_Send(sbuf, (int)bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
          MPI_Recv(&ack, 1, MPI_BYTE, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == peer) {
          MPI_Recv(rbuf, (int)bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          MPI_Send(&ack, 1, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
        }
        dt = MPI_Wtime() - t0;
      } else if (!strcmp(mode, "xchg")) {
        if (rank == 0 || rank == peer) {
          int other = rank == 0 ? peer : 0;
          MPI_Sendrecv(sbuf, (int)bytes, MPI_BYTE, other, 3, rbuf, (int)bytes, MPI_BYTE, other, 3,
                       MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        dt = MPI_Wtime() - t0;
        double dmax = 0;
        MPI_Reduce(&dt, &dmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        dt = dmax;
      } else { /* lat: 100 round trips per iteration */
        const int reps = 100;
        if (rank == 0 || rank == peer) {
          for (int r = 0; r < reps; ++r) {
            if (rank == 0) {
              MPI_Send(sbuf, (int)bytes, MPI_BYTE, peer, 4, MPI_COMM_WORLD);
              MPI_Recv(rbuf, (int)bytes, MPI_BYTE, peer, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
              MPI_Recv(rbuf, (int)bytes, MPI_BYTE, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
              MPI_Send(sbuf, (int)bytes, MPI_BYTE, 0, 4, MPI_COMM_WORLD);
            }
          }
        }
        dt = (MPI_Wtime() - t0) / (2.0 * reps);
      }
      if (it >= 0) t[it] = dt;
    }
    /* CPU use of all ranks during the measured iterations, in cores */
    double cpu = cpu_seconds() - cpu0, wall = MPI_Wtime() - wall0, cpu_sum = 0, wall_max = 0;
    MPI_Reduce(&cpu, &cpu_sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&wall, &wall_max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == peer && strcmp(mode, "lat") && bytes > 0 && rbuf[bytes - 1] != 1) {
      fprintf(stderr, "tbcheck: data check failed on rank %d\n", peer);
      rc = 1;
    }
    if (rank == 0) {
      if (!strcmp(mode, "lat")) {
        for (int i = 0; i < iters; ++i) t[i] *= 1e6;
        double m = median(t, iters);
        printf("lat bytes=%ld ranks=%d median_oneway_us=%.1f min_us=%.1f max_us=%.1f", bytes,
               size, m, t[0], t[iters - 1]);
      } else {
        print_times(mode, bytes, t, iters);
      }
      printf("%scpu_cores_used=%.2f (all %d ranks, %.2f s wall)\n", strcmp(mode, "lat") ? "" : " ",
             cpu_sum / wall_max, size, wall_max);
    }
    free(t);
    free(sbuf);
    free(rbuf);
  } else if (!strcmp(mode, "rhd")) {
    if (size != 4) {
      if (rank == 0) fprintf(stderr, "tbcheck rhd needs 4 ranks (2 hosts x 2 ranks)\n");
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const size_t half = (size_t)bytes / 2, quarter = (size_t)bytes / 4;
    char *sbuf = malloc(half + 1), *rbuf = malloc(half + 1);
    memset(sbuf, rank + 1, half + 1);
    memset(rbuf, 0, half + 1); /* touched: no page faults inside the timed exchanges */
    double *t = calloc((size_t)iters, sizeof *t);
    const int local = rank ^ 1, remote = rank ^ 2;
    for (int it = -warmup; it < iters; ++it) {
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime();
      if (!cross_only)
        MPI_Sendrecv(sbuf, (int)half, MPI_BYTE, local, 6, rbuf, (int)half, MPI_BYTE, local, 6,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      for (int phase = 0; phase < 2; ++phase)
        MPI_Sendrecv(sbuf, (int)quarter, MPI_BYTE, remote, 7, rbuf, (int)quarter, MPI_BYTE,
                     remote, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (!cross_only)
        MPI_Sendrecv(sbuf, (int)half, MPI_BYTE, local, 8, rbuf, (int)half, MPI_BYTE, local, 8,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      double dt = MPI_Wtime() - t0, dmax = 0;
      MPI_Reduce(&dt, &dmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
      if (it >= 0) t[it] = dmax;
    }
    if (quarter > 0 && rbuf[quarter - 1] != (char)((cross_only ? remote : local) + 1)) {
      fprintf(stderr, "tbcheck: data check failed on rank %d\n", rank);
      rc = 1;
    }
    if (rank == 0) print_times(cross_only ? "rhd-cross" : "rhd", bytes, t, iters);
    free(t);
    free(sbuf);
    free(rbuf);
  } else if (!strcmp(mode, "ag")) {
    const int alt = !strcmp(pattern, "rd-alt"), rd = alt || !strcmp(pattern, "rd");
    if ((!rd && strcmp(pattern, "ring")) || (rd && (size & (size - 1)) != 0) || size < 2) {
      if (rank == 0)
        fprintf(stderr, "tbcheck ag: -P ring, or -P rd or rd-alt on a power of two ranks\n");
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const size_t block = (size_t)bytes / (size_t)size, most = block * (size_t)(size / 2);
    char *sbuf = malloc(most + 1), *rbuf = malloc(most + 1);
    memset(sbuf, rank + 1, most + 1);
    memset(rbuf, 0, most + 1); /* touched: no page faults inside the timed exchanges */
    double *t = calloc((size_t)iters, sizeof *t);
    /* -b: one timed block of `iters` allgathers per round, 3 rounds after the warm-up */
    const int rounds = back_to_back ? 3 : iters, per_round = back_to_back ? iters : 1;
    long calls = 0;
    for (int it = -warmup; it < rounds; ++it) {
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime();
      for (int k = 0; k < (it < 0 ? 1 : per_round); ++k, ++calls) {
        if (rd) {
          /* step s moves 2^s blocks; its partner is rank ^ 2^s, or rank ^ (size / 2^(s+1))
             on an odd call of rd-alt */
          for (int d = 1; d < size; d *= 2) {
            const int partner = rank ^ (alt && calls % 2 ? size / (2 * d) : d);
            MPI_Sendrecv(sbuf, (int)(block * (size_t)d), MPI_BYTE, partner, 9, rbuf,
                         (int)(block * (size_t)d), MPI_BYTE, partner, 9, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
          }
        } else {
          for (int step = 1; step < size; ++step)
            MPI_Sendrecv(sbuf, (int)block, MPI_BYTE, (rank + 1) % size, 9, rbuf, (int)block,
                         MPI_BYTE, (rank - 1 + size) % size, 9, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
        }
      }
      double dt = (MPI_Wtime() - t0) / (it < 0 ? 1 : per_round), dmax = 0;
      MPI_Reduce(&dt, &dmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
      if (it >= 0) t[it] = dmax;
    }
    if (block > 0 && rbuf[block - 1] == 0) {
      fprintf(stderr, "tbcheck: data check failed on rank %d\n", rank);
      rc = 1;
    }
    if (rank == 0) {
      char what[64];
      snprintf(what, sizeof what, "ag-%s%s", pattern, back_to_back ? "-back-to-back" : "");
      print_times(what, bytes, t, rounds);
    }
    free(t);
    free(sbuf);
    free(rbuf);
  } else if (!strcmp(mode, "lanes")) {
    if (lanes == 0) lanes = per_host;
    if (size != 2 * per_host || lanes < 1 || lanes > per_host) {
      if (rank == 0) fprintf(stderr, "tbcheck lanes: 2 hosts x K ranks (-k K), 1 <= -L <= K\n");
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const int lane = rank % per_host, active = lane < lanes;
    const int partner = rank < per_host ? rank + per_host : rank - per_host;
    const size_t share = (size_t)bytes / (size_t)lanes;
    char *sbuf = malloc(share + 1), *rbuf = malloc(share + 1);
    memset(sbuf, rank + 1, share + 1);
    memset(rbuf, 0, share + 1); /* touched: no page faults inside the timed exchanges */
    double *t = calloc((size_t)iters, sizeof *t);
    for (int it = -warmup; it < iters; ++it) {
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime();
      if (active)
        MPI_Sendrecv(sbuf, (int)share, MPI_BYTE, partner, 10, rbuf, (int)share, MPI_BYTE,
                     partner, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      double dt = active ? MPI_Wtime() - t0 : 0, dmax = 0;
      MPI_Reduce(&dt, &dmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
      if (it >= 0) t[it] = dmax;
    }
    if (active && share > 0 && rbuf[share - 1] != (char)(partner + 1)) {
      fprintf(stderr, "tbcheck: data check failed on rank %d\n", rank);
      rc = 1;
    }
    if (rank == 0) {
      char what[64];
      snprintf(what, sizeof what, "lanes-%d-of-%d", lanes, per_host);
      print_times(what, bytes, t, iters);
    }
    free(t);
    free(sbuf);
    free(rbuf);
  } else if (!strcmp(mode, "allreduce")) {
    const int count = (int)(bytes / (long)sizeof(float));
    float *in = malloc((size_t)count * sizeof *in + 1), *out = malloc((size_t)count * sizeof *out + 1);
    for (int i = 0; i < count; ++i) in[i] = (float)(rank + 1);
    double *t = calloc((size_t)iters, sizeof *t);
    for (int it = -warmup; it < iters; ++it) {
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime();
      MPI_Allreduce(in, out, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      double dt = MPI_Wtime() - t0, dmax = 0;
      MPI_Reduce(&dt, &dmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
      if (it >= 0) t[it] = dmax;
    }
    const float expect = (float)size * (float)(size + 1) / 2;
    if (count > 0 && (out[0] != expect || out[count - 1] != expect)) {
      fprintf(stderr, "tbcheck: allreduce result wrong on rank %d\n", rank);
      rc = 1;
    }
    if (rank == 0) print_times("allreduce", bytes, t, iters);
    free(t);
    free(in);
    free(out);
  } else if (!strcmp(mode, "fin")) {
    double x = rank, sum = 0;
    MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    /* some point-to-point traffic with every peer so every endpoint is connected */
    char *buf = calloc(65536, 1), *rbuf = calloc(65536, 1);
    for (int d = 1; d < size; ++d) {
      MPI_Sendrecv(buf, 65536, MPI_BYTE, (rank + d) % size, 5, rbuf, 65536, MPI_BYTE,
                   (rank - d + size) % size, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    free(buf);
    free(rbuf);
    sleep_ms(rank * stagger_ms);
    if (rank == 0) printf("fin: ranks=%d sum=%.0f stagger_ms=%ld barrier=%d\n", size, sum,
                          stagger_ms, barrier_before_finalize);
  } else {
    if (rank == 0) fprintf(stderr, "tbcheck: unknown mode %s\n", mode);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  fflush(stdout);
  if (barrier_before_finalize) MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return rc;
}
