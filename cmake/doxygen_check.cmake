# ctest docs-doxygen: runs Doxygen on include/cclx and fails when it warns (the warnings are
# written to LOG; the first ones and their count are printed).
execute_process(COMMAND ${DOXYGEN} ${DOXYFILE} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "doxygen failed (${rc})")
endif()
file(STRINGS ${LOG} warnings REGEX "warning:")
list(LENGTH warnings count)
if(count GREATER 0)
  list(SUBLIST warnings 0 20 first)
  list(JOIN first "\n" first)
  message(FATAL_ERROR "${count} Doxygen warnings in include/cclx (all in ${LOG}); the first:\n${first}")
endif()
message(STATUS "Doxygen: no warnings")
