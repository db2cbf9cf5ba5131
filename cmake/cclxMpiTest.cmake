# MPI test registration: cclx_add_mpi_test() adds one ctest entry per rank count, each an MPI job
# with a ctest TIMEOUT and mpiexec's own MPIEXEC_TIMEOUT, so that a hang fails fast.
#
#   cclx_add_mpi_test(NAME <name> RANKS <n>... COMMAND <program> [<arg>...]
#                     [TEST_CASES <doctest pattern>...] [EXCLUDE_TEST_CASES <doctest pattern>...]
#                     [TIMEOUT <s>] [MPIEXEC_TIMEOUT <s>] [ENV <VAR=value>...] [LABELS <label>...]
#                     [MPIEXEC_FLAGS <flag>...] [SELF_LAUNCHING] [PROPERTIES <prop> <value>...])
#
# NAME      the entry's name; "{n}" in it is replaced by the rank count (mpi-n{n}-grid-data ->
#           mpi-n2-grid-data). Without "{n}" it is used as is for one rank count and gets "-n<N>"
#           appended for several.
# RANKS     the rank counts, one entry each.
# COMMAND   the program (a target name or a path) and its arguments; the entry runs
#           `mpiexec <MPIEXEC_FLAGS> -n <N> <program> <args> [doctest filters]`. "{n}" in an
#           argument is replaced by the rank count.
# TEST_CASES, EXCLUDE_TEST_CASES   doctest test-case patterns (for the doctest MPI programs): appended
#           as --test-case=<p1,p2,...> and --test-case-exclude=<...>. The ctest entry
#           check-mpi-test-cases fails when a test case of cclx-mpi-tests runs in no entry.
# TIMEOUT   ctest's timeout in seconds (default CCLX_MPI_TEST_TIMEOUT).
# MPIEXEC_TIMEOUT   seconds after which mpiexec kills the job (MPICH's hydra and Open MPI's mpirun
#           both read it; default TIMEOUT - 10). Also CCLX_TEST_STALL_S = MPIEXEC_TIMEOUT - 20: the
#           doctest MPI programs' watchdog (tests/mpi/main.cpp) reports where a rank is stuck and
#           exits before mpiexec kills the job.
# ENV       more environment, after the defaults (a variable given here wins): CCLX_MPIEXEC_ENV (the
#           MPI flavour's, ASan's) and CCLX_WAIT=${CCLX_MPI_TEST_WAIT}.
# LABELS    labels besides "mpi".
# MPIEXEC_FLAGS   instead of CCLX_MPIEXEC_FLAGS (the flavour's binding and oversubscription flags).
# SELF_LAUNCHING  COMMAND starts the MPI jobs itself (a script given mpiexec, "{n}" and the
#           program): no mpiexec prefix; MPIEXEC_TIMEOUT then bounds each of its jobs.
# PROPERTIES      further set_tests_properties() pairs (PASS_REGULAR_EXPRESSION, ...).
#
# The MPI flavour (cmake/cclxDependencies.cmake) decides CCLX_MPIEXEC_FLAGS and CCLX_MPIEXEC_ENV:
# MPICH's hydra and Open MPI's mpirun spell binding differently; Open MPI also refuses more ranks
# than cores without --oversubscribe, and root without the two variables.
include_guard(GLOBAL)

if(CCLX_MPI_FLAVOUR STREQUAL "openmpi")
  set(CCLX_MPIEXEC_FLAGS --oversubscribe --bind-to none)
  set(CCLX_MPIEXEC_ENV "CCLX_TEST_MPI=openmpi;OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
else()
  set(CCLX_MPIEXEC_FLAGS -bind-to none)
  set(CCLX_MPIEXEC_ENV "CCLX_TEST_MPI=mpich")
endif()
# Under ASan (the asan preset), MPI jobs run without LeakSanitizer: MPICH 4.0.2/UCX leave ~1 KB
# allocated by transport plugins that MPI_Finalize unloads, so the stacks end in "<unknown
# module>", which no suppression can name. Address and UB errors still fail the tests; the unit
# tests keep leak detection (with tests/sanitizers/lsan.supp).
if(CMAKE_CXX_FLAGS MATCHES "sanitize=address")
  string(APPEND CCLX_MPIEXEC_ENV ";ASAN_OPTIONS=detect_leaks=0:halt_on_error=1")
else()
  # glibc's malloc serves large blocks from fresh mappings until a freed one raises its threshold,
  # so whether a test's 4 MiB vector page-faults anew depended on which test freed what before it
  # (a page fault costs tens of microseconds on some VMs). A fixed threshold keeps the blocks in
  # the heap for reuse: in the MPICH stage the large grids', StragglAR's, the adaptive and
  # hierarchical entries at 7 and 8 ranks took 24-61% less time (docs/guide.md).
  string(APPEND CCLX_MPIEXEC_ENV
         ";MALLOC_MMAP_THRESHOLD_=1073741824;MALLOC_TRIM_THRESHOLD_=4294967296")
endif()
# Oversubscription is fine; CCLX_WAIT=backoff lets the rank with work run instead of a spinning one
# (measured with n=8 on the grid's data collectives and the api tests on a loaded 2-core machine:
# spin 56 s, yield 23-38 s, backoff 20-26 s). MPI's own waits are tests/CMakeLists.txt's concern
# (MPICH's jobs preload a yield-when-idle wrapper).
set(CCLX_MPI_TEST_WAIT "backoff" CACHE STRING "CCLX_WAIT for the MPI tests (spin|yield|backoff)")
set(CCLX_MPI_TEST_TIMEOUT 240 CACHE STRING "Default timeout in seconds of an MPI ctest entry")

function(cclx_add_mpi_test)
  cmake_parse_arguments(PARSE_ARGV 0 T "SELF_LAUNCHING" "NAME;TIMEOUT;MPIEXEC_TIMEOUT"
                        "RANKS;COMMAND;TEST_CASES;EXCLUDE_TEST_CASES;ENV;LABELS;MPIEXEC_FLAGS;PROPERTIES")
  if(T_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "cclx_add_mpi_test(${T_NAME}): unknown arguments ${T_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT T_NAME OR NOT T_RANKS OR NOT T_COMMAND)
    message(FATAL_ERROR "cclx_add_mpi_test: NAME, RANKS and COMMAND are required")
  endif()
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT ${CCLX_MPI_TEST_TIMEOUT})
  endif()
  if(NOT T_MPIEXEC_TIMEOUT)
    math(EXPR T_MPIEXEC_TIMEOUT "${T_TIMEOUT} - 10")
  endif()
  if(T_MPIEXEC_TIMEOUT GREATER_EQUAL T_TIMEOUT OR T_MPIEXEC_TIMEOUT LESS 1)
    message(FATAL_ERROR "cclx_add_mpi_test(${T_NAME}): MPIEXEC_TIMEOUT ${T_MPIEXEC_TIMEOUT} must "
                        "be positive and below TIMEOUT ${T_TIMEOUT}")
  endif()
  math(EXPR stall "${T_MPIEXEC_TIMEOUT} - 20")
  if(stall LESS 10)
    set(stall 10)
  endif()
  if(NOT DEFINED T_MPIEXEC_FLAGS)
    set(T_MPIEXEC_FLAGS ${CCLX_MPIEXEC_FLAGS})
  endif()

  list(POP_FRONT T_COMMAND program)
  if(TARGET ${program})
    set(program $<TARGET_FILE:${program}>)
  endif()
  set(filters)
  if(T_TEST_CASES)
    list(JOIN T_TEST_CASES "," patterns)
    list(APPEND filters "--test-case=${patterns}")
  endif()
  if(T_EXCLUDE_TEST_CASES)
    list(JOIN T_EXCLUDE_TEST_CASES "," patterns)
    list(APPEND filters "--test-case-exclude=${patterns}")
  endif()

  set(env ${CCLX_MPIEXEC_ENV} CCLX_WAIT=${CCLX_MPI_TEST_WAIT} MPIEXEC_TIMEOUT=${T_MPIEXEC_TIMEOUT}
          CCLX_TEST_STALL_S=${stall} ${T_ENV})
  set(labels mpi ${T_LABELS})
  list(REMOVE_DUPLICATES labels)
  foreach(n IN LISTS T_RANKS)
    string(FIND "${T_NAME}" "{n}" at)
    list(LENGTH T_RANKS counts)
    if(at GREATER_EQUAL 0)
      string(REPLACE "{n}" "${n}" name "${T_NAME}")
    elseif(counts EQUAL 1)
      set(name "${T_NAME}")
    else()
      set(name "${T_NAME}-n${n}")
    endif()
    string(REPLACE "{n}" "${n}" args "${T_COMMAND}")
    if(T_SELF_LAUNCHING)
      set(command ${program} ${args} ${filters})
    else()
      set(command ${MPIEXEC_EXECUTABLE} ${T_MPIEXEC_FLAGS} ${MPIEXEC_NUMPROC_FLAG} ${n} ${program}
                  ${args} ${filters})
    endif()
    add_test(NAME ${name} COMMAND ${command})
    set_tests_properties(${name} PROPERTIES
      TIMEOUT ${T_TIMEOUT} LABELS "${labels}" ENVIRONMENT "${env}"
      ${T_PROPERTIES})
  endforeach()
endfunction()
