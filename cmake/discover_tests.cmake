# Run a Check binary with --list and write the CTest file that registers each
# of its cases. Inputs: EXE, OUT, PREFIX, LABELS (comma-separated), ENV (an
# ENVIRONMENT_MODIFICATION entry for every case, or empty).
# The cases' environment applies to the listing too: a suite of the emulator may link a library
# only the emulator provides (libcuda.so.1 on a machine without a GPU driver).
set(run ${EXE})
if(ENV MATCHES "^LD_LIBRARY_PATH=path_list_prepend:(.*)$")
  set(run ${CMAKE_COMMAND} -E env "LD_LIBRARY_PATH=${CMAKE_MATCH_1}:$ENV{LD_LIBRARY_PATH}" ${EXE})
endif()
execute_process(COMMAND ${run} --list OUTPUT_VARIABLE listing RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${EXE} --list failed (${rc})")
endif()
string(REPLACE "," ";" labels "${LABELS}")
string(REPLACE "\n" ";" lines "${listing}")
set(content "")
foreach(line IN LISTS lines)
  if(line STREQUAL "")
    continue()
  endif()
  string(REPLACE "\t" ";" fields "${line}")
  list(GET fields 0 case)
  list(GET fields 1 case_labels)
  string(REPLACE "," ";" case_labels "${case_labels}")
  list(GET fields 2 timeout)
  # CTest's own limit is a backstop behind Check's per-case timeout.
  math(EXPR ctest_timeout "${timeout} + 30")
  set(test "${PREFIX}.${case}")
  string(APPEND content
    "add_test([=[${test}]=] [=[${EXE}]=] --case [=[${case}]=])\n"
    "set_tests_properties([=[${test}]=] PROPERTIES LABELS [=[${labels};${case_labels}]=]"
    " TIMEOUT ${ctest_timeout} SKIP_RETURN_CODE 77)\n")
  if(ENV)
    string(APPEND content
      "set_tests_properties([=[${test}]=] PROPERTIES ENVIRONMENT_MODIFICATION [=[${ENV}]=])\n")
  endif()
endforeach()
file(WRITE ${OUT} "${content}")
