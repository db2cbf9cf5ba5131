# docs/environment.md's settings table is generated from the settings table (cclx/settings.hpp):
# fails when the block between the GENERATED markers differs from `cclx-info --settings
# --markdown`; with -DUPDATE=ON rewrites it instead.
#   cmake -DINFO=build/tools/cclx-info -DDOC=docs/environment.md [-DUPDATE=ON] -P tests/docs/environment.cmake
execute_process(COMMAND ${INFO} --settings --markdown OUTPUT_VARIABLE table RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${INFO} --settings --markdown failed (${rc})")
endif()
file(READ ${DOC} doc)
set(begin "<!-- BEGIN GENERATED: settings (cclx-info --settings --markdown) -->\n")
set(end "<!-- END GENERATED: settings -->")
string(FIND "${doc}" "${begin}" b)
string(FIND "${doc}" "${end}" e)
if(b LESS 0 OR e LESS b)
  message(FATAL_ERROR "${DOC}: no '${begin}' ... '${end}' block")
endif()
string(LENGTH "${begin}" blen)
math(EXPR start "${b} + ${blen}")
math(EXPR len "${e} - ${start}")
string(SUBSTRING "${doc}" ${start} ${len} current)
if(current STREQUAL table)
  message(STATUS "${DOC}: the settings table is up to date")
elseif(UPDATE)
  string(SUBSTRING "${doc}" 0 ${start} head)
  string(SUBSTRING "${doc}" ${e} -1 tail)
  file(WRITE ${DOC} "${head}${table}${tail}")
  message(STATUS "${DOC}: settings table rewritten")
else()
  message(FATAL_ERROR "${DOC} is out of date with the settings table (lib/settings/table.cpp); "
                      "regenerate it with: cmake -DINFO=${INFO} -DDOC=${DOC} -DUPDATE=ON -P "
                      "${CMAKE_CURRENT_LIST_FILE}\n--- generated:\n${table}--- in the file:\n${current}")
endif()
