# Fails when a doctest test case of PROGRAM (cclx-mpi-tests) runs in no ctest entry.
#   cmake -DCTEST=ctest -DBUILD_DIR=build -DPROGRAM=build/tests/cclx-mpi-tests -DMPIEXEC=mpiexec
#         [-DMPIEXEC_FLAGS=...] -P cmake/check-mpi-test-cases.cmake          (ctest: check-mpi-test-cases)
# The entries are read from ctest itself (--show-only=json-v1), so an entry counts however it was
# registered. Every enabled entry whose command runs PROGRAM contributes the arguments after it (its
# doctest filters); doctest applies them: PROGRAM <filters> --list-test-cases, under `mpiexec -n 1`,
# lists what that entry runs. The union must be PROGRAM --list-test-cases.
foreach(var CTEST BUILD_DIR PROGRAM MPIEXEC)
  if(NOT ${var})
    message(FATAL_ERROR "check-mpi-test-cases: -D${var}=... is required")
  endif()
endforeach()

# CMake lists split at ";", which test case names may contain: inside the script it is \x1e, and
# an entry's arguments are kept joined with \x1f.
string(ASCII 30 semicolon)
string(ASCII 31 sep)

# list_test_cases(OUT [doctest args...]): the test case names PROGRAM lists with those arguments.
# Without colours: Open MPI's mpiexec gives its ranks a terminal for stdout, and doctest then
# colours the listing.
function(list_test_cases out)
  execute_process(COMMAND ${MPIEXEC} ${MPIEXEC_FLAGS} -n 1 ${PROGRAM} ${ARGN} --list-test-cases
                          --no-colors=true
                  OUTPUT_VARIABLE text ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "check-mpi-test-cases: ${PROGRAM} ${ARGN} --list-test-cases failed "
                        "(${rc}):\n${text}${err}")
  endif()
  # doctest's listing: "[doctest] ..." lines and "=====" rules around one name per line.
  string(REPLACE ";" "${semicolon}" text "${text}")
  string(REPLACE "\n" ";" lines "${text}")
  set(names)
  foreach(line IN LISTS lines)
    if(line STREQUAL "" OR line MATCHES "^\\[doctest\\]" OR line MATCHES "^==+$"
       OR line MATCHES "^cclx-mpi-tests: ")
      continue()
    endif()
    list(APPEND names "${line}")
  endforeach()
  set(${out} "${names}" PARENT_SCOPE)
endfunction()

execute_process(COMMAND ${CTEST} --show-only=json-v1 WORKING_DIRECTORY ${BUILD_DIR}
                OUTPUT_VARIABLE json RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "check-mpi-test-cases: ctest --show-only=json-v1 failed (${rc})")
endif()
string(JSON ntests LENGTH "${json}" tests)
math(EXPR last "${ntests} - 1")
set(filter_sets)  # one element per distinct argument list
set(entries 0)
foreach(i RANGE ${last})
  string(JSON test GET "${json}" tests ${i})
  string(FIND "${test}" "${PROGRAM}" at)
  if(at LESS 0)
    continue()
  endif()
  string(JSON name GET "${test}" name)
  # A disabled entry runs nothing.
  string(JSON nprops ERROR_VARIABLE no_props LENGTH "${test}" properties)
  set(disabled FALSE)
  if(NOT no_props AND nprops GREATER 0)
    math(EXPR plast "${nprops} - 1")
    foreach(p RANGE ${plast})
      string(JSON pname GET "${test}" properties ${p} name)
      if(pname STREQUAL "DISABLED")
        string(JSON pvalue GET "${test}" properties ${p} value)
        if(pvalue)
          set(disabled TRUE)
        endif()
      endif()
    endforeach()
  endif()
  if(disabled)
    continue()
  endif()
  string(JSON ncmd LENGTH "${test}" command)
  math(EXPR clast "${ncmd} - 1")
  set(after FALSE)
  set(args)
  foreach(c RANGE ${clast})
    string(JSON arg GET "${test}" command ${c})
    if(after)
      list(APPEND args "${arg}")
    elseif(arg STREQUAL PROGRAM)
      set(after TRUE)
    endif()
  endforeach()
  if(NOT after)
    continue()
  endif()
  math(EXPR entries "${entries} + 1")
  list(JOIN args "${sep}" key)
  list(APPEND filter_sets "${key}")
endforeach()
list(REMOVE_DUPLICATES filter_sets)
list(LENGTH filter_sets nsets)

list_test_cases(all)
list(LENGTH all nall)
if(nall EQUAL 0)
  message(FATAL_ERROR "check-mpi-test-cases: ${PROGRAM} lists no test cases")
endif()
set(covered)
foreach(key IN LISTS filter_sets)
  string(REPLACE "${sep}" ";" args "${key}")
  list_test_cases(names ${args})
  list(APPEND covered ${names})
endforeach()
set(missing ${all})
if(covered)
  list(REMOVE_ITEM missing ${covered})
endif()
if(missing)
  list(LENGTH missing nmissing)
  list(JOIN missing "\n  " text)
  string(REPLACE "${semicolon}" ";" text "${text}")
  message(FATAL_ERROR "check-mpi-test-cases: ${nmissing} of ${nall} test cases of ${PROGRAM} run "
                      "in no ctest entry (the doctest filters of ${entries} entries):\n  ${text}")
endif()
message(STATUS "check-mpi-test-cases: all ${nall} test cases run in at least one of ${entries} "
               "entries (${nsets} distinct filters)")
