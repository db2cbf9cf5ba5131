# The API reference of include/cclx (Doxygen, docs/Doxyfile.in), when doxygen is installed:
#   cmake --build build --target docs     # build/docs/html/index.html
# and the test docs-doxygen (label "docs"), which fails on any Doxygen warning (an undocumented
# public class, member or function, or a malformed comment). It runs with the whole suite, and
# alone with the docs' other checks:
#   ctest --preset docs      (or: ctest --test-dir build -L docs --output-on-failure)
find_program(DOXYGEN_EXECUTABLE NAMES doxygen)
if(NOT DOXYGEN_EXECUTABLE)
  message(STATUS "doxygen not found: no 'docs' target")
  return()
endif()

set(CCLX_DOCS_OUTPUT ${PROJECT_BINARY_DIR}/docs)
configure_file(${PROJECT_SOURCE_DIR}/docs/Doxyfile.in ${CCLX_DOCS_OUTPUT}/Doxyfile @ONLY)
add_custom_target(docs
  COMMAND ${DOXYGEN_EXECUTABLE} ${CCLX_DOCS_OUTPUT}/Doxyfile
  WORKING_DIRECTORY ${CCLX_DOCS_OUTPUT}
  COMMENT "API reference: ${CCLX_DOCS_OUTPUT}/html/index.html"
  VERBATIM)

if(CCLX_BUILD_TESTS)
  add_test(NAME docs-doxygen
           COMMAND ${CMAKE_COMMAND} -DDOXYGEN=${DOXYGEN_EXECUTABLE}
                   -DDOXYFILE=${CCLX_DOCS_OUTPUT}/Doxyfile -DLOG=${CCLX_DOCS_OUTPUT}/warnings.log
                   -P ${PROJECT_SOURCE_DIR}/cmake/doxygen_check.cmake)
  set_tests_properties(docs-doxygen PROPERTIES LABELS docs TIMEOUT 300)
endif()
