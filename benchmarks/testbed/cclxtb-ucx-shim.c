/* libcclxtb-ucx.so: LD_PRELOAD shim for MPICH (ch4:ucx) ranks on the cclx testbed.
 * Built by cclx-testbed ("cclx-testbed build"); preloaded into the ranks by
 * "cclx-testbed run" (never into mpiexec or its proxies). Two independent fixes,
 * each enabled by an environment variable:
 *
 * CCLXTB_FINALIZE_FIX=1 -- MPI_Finalize hang (MPICH 4.0.2 + UCX 1.13 over TCP).
 *   MPICH's UCX finalize hook closes every endpoint with ucp_disconnect_nb (a
 *   flush-mode close), progresses until all closes complete, and only then enters
 *   the PMI barrier. A flush-mode close over TCP needs the peer to progress; a peer
 *   that finished its own closes first already sits in the PMI barrier and never
 *   progresses again, so the close (and the job) can hang forever when ranks reach
 *   MPI_Finalize at different times. The fix:
 *     - MPI_Finalize runs PMPI_Barrier(MPI_COMM_WORLD) first, so every rank has
 *       received everything addressed to it before any rank stops progressing;
 *     - ucp_disconnect_nb returns "done" without starting a flush-mode close; the
 *       endpoints are destroyed by ucp_worker_destroy after the PMI barrier,
 *       which waits for nothing (the kernel still delivers what sits in sockets).
 *
 * CCLXTB_IDLE_BLOCK=1 -- let idle ranks sleep instead of busy-polling.
 *   ucp_init gets UCP_FEATURE_WAKEUP; when ucp_worker_progress finds nothing for
 *   CCLXTB_IDLE_SPIN_US microseconds (default 50), the wrapper arms the worker
 *   (ucp_worker_arm) and poll()s its event fd for at most CCLXTB_IDLE_POLL_MS
 *   milliseconds (default 1; the timeout bounds the damage of a missed event).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ucp/api/ucp.h>

static int flag(const char *name) {
  const char *v = getenv(name);
  return v && *v && *v != '0' && *v != 'n' && *v != 'N';
}

static long env_long(const char *name, long dflt) {
  const char *v = getenv(name);
  return v && *v ? atol(v) : dflt;
}

static void *next_sym(const char *name) {
  void *p = dlsym(RTLD_NEXT, name);
  if (!p) {
    fprintf(stderr, "cclxtb-ucx-shim: symbol %s not found\n", name);
    abort();
  }
  return p;
}

/* ---------------------------------------------------------------- finalize fix */

/* CCLXTB_FINALIZE_FIX: 1 = both parts; "barrier" or "noclose" = one part only
 * (the single parts exist to show that neither alone is enough). */
static int fin_part(const char *part) {
  const char *v = getenv("CCLXTB_FINALIZE_FIX");
  if (!flag("CCLXTB_FINALIZE_FIX")) return 0;
  if (!strcmp(v, "barrier") || !strcmp(v, "noclose")) return !strcmp(v, part);
  return 1;
}

int MPI_Finalize(void) {
  if (fin_part("barrier")) PMPI_Barrier(MPI_COMM_WORLD);
  return PMPI_Finalize();
}

ucs_status_ptr_t ucp_disconnect_nb(ucp_ep_h ep) {
  static ucs_status_ptr_t (*real)(ucp_ep_h);
  if (fin_part("noclose")) return NULL; /* UCS_OK: nothing to wait for */
  if (!real) real = (ucs_status_ptr_t (*)(ucp_ep_h))next_sym("ucp_disconnect_nb");
  return real(ep);
}

/* ---------------------------------------------------------------- idle blocking */

static int idle_block = -1;
static long spin_ns, poll_ms;

static void idle_init(void) {
  if (idle_block >= 0) return;
  spin_ns = env_long("CCLXTB_IDLE_SPIN_US", 50) * 1000;
  poll_ms = env_long("CCLXTB_IDLE_POLL_MS", 1);
  idle_block = flag("CCLXTB_IDLE_BLOCK");
}

ucs_status_t ucp_init_version(unsigned api_major_version, unsigned api_minor_version,
                              const ucp_params_t *params, const ucp_config_t *config,
                              ucp_context_h *context_p) {
  static ucs_status_t (*real)(unsigned, unsigned, const ucp_params_t *, const ucp_config_t *,
                              ucp_context_h *);
  if (!real) real = next_sym("ucp_init_version");
  idle_init();
  if (!idle_block || !params) return real(api_major_version, api_minor_version, params, config,
                                          context_p);
  ucp_params_t p = *params;
  if (!(p.field_mask & UCP_PARAM_FIELD_FEATURES)) p.features = 0;
  p.field_mask |= UCP_PARAM_FIELD_FEATURES;
  p.features |= UCP_FEATURE_WAKEUP;
  return real(api_major_version, api_minor_version, &p, config, context_p);
}

static long now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

#define MAX_WORKERS 16
static struct {
  ucp_worker_h worker;
  int fd;        /* -1: no event fd (blocking disabled for this worker) */
  long idle_since; /* 0: not idle */
} workers[MAX_WORKERS];

unsigned ucp_worker_progress(ucp_worker_h worker) {
  static unsigned (*real)(ucp_worker_h);
  static ucs_status_t (*arm)(ucp_worker_h);
  static ucs_status_t (*get_efd)(ucp_worker_h, int *);
  if (!real) real = (unsigned (*)(ucp_worker_h))next_sym("ucp_worker_progress");
  unsigned n = real(worker);
  idle_init();
  if (!idle_block) return n;
  int w = 0;
  while (w < MAX_WORKERS && workers[w].worker && workers[w].worker != worker) ++w;
  if (w == MAX_WORKERS) return n;
  if (!workers[w].worker) {
    if (!arm) {
      arm = (ucs_status_t (*)(ucp_worker_h))next_sym("ucp_worker_arm");
      get_efd = (ucs_status_t (*)(ucp_worker_h, int *))next_sym("ucp_worker_get_efd");
    }
    workers[w].worker = worker;
    workers[w].fd = -1;
    if (get_efd(worker, &workers[w].fd) != UCS_OK) {
      fprintf(stderr, "cclxtb-ucx-shim: no UCX event fd; idle ranks keep polling\n");
      workers[w].fd = -1;
    }
  }
  if (n || workers[w].fd < 0) {
    workers[w].idle_since = 0;
    return n;
  }
  long t = now_ns();
  if (!workers[w].idle_since) {
    workers[w].idle_since = t;
    return 0;
  }
  if (t - workers[w].idle_since < spin_ns) return 0;
  if (arm(worker) == UCS_OK) {
    struct pollfd pfd = {.fd = workers[w].fd, .events = POLLIN};
    poll(&pfd, 1, (int)poll_ms);
  }
  workers[w].idle_since = 0;
  return 0;
}
