# add_lesson() and the machinery behind it: one Check binary per suite, one
# CTest test per case, and the PTX / ptxas reports the structure checks read.

set(COURSE_STRUCTURE_ARCHS 80 90 CACHE STRING
    "Architectures whose ptxas -v report the structure checks read (spills)")

# add_course_tests(TARGET t SOURCE f PREFIX p LABELS l... LINK libs... DEFINES defs...
#                  DEPENDS targets... [ENV modification])
# Builds the Check binary t and registers each case it lists (t --list) as the
# CTest test "p.case", labelled l plus the case's own cpu/gpu/perf labels. A
# binary that failed to build shows up as one failing test, p.NOT_BUILT. ENV is
# one ENVIRONMENT_MODIFICATION entry for every case (VAR=op:value).
function(add_course_tests)
  cmake_parse_arguments(T "" "TARGET;SOURCE;PREFIX;ENV" "LABELS;LINK;DEFINES;DEPENDS" ${ARGN})
  add_executable(${T_TARGET} ${T_SOURCE})
  target_link_libraries(${T_TARGET} PRIVATE course_test_harness ${T_LINK})
  target_compile_definitions(${T_TARGET} PRIVATE ${T_DEFINES})
  if(T_DEPENDS)
    add_dependencies(${T_TARGET} ${T_DEPENDS})
  endif()

  set(list_file ${CMAKE_BINARY_DIR}/ctest/${T_TARGET}.cmake)
  list(JOIN T_LABELS "," labels)
  add_custom_command(TARGET ${T_TARGET} POST_BUILD
    COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:${T_TARGET}> -DOUT=${list_file}
            -DPREFIX=${T_PREFIX} -DLABELS=${labels} "-DENV=${T_ENV}"
            -P ${CMAKE_SOURCE_DIR}/cmake/discover_tests.cmake
    VERBATIM)
  set(include_file ${CMAKE_BINARY_DIR}/ctest/${T_TARGET}_include.cmake)
  file(WRITE ${include_file}
    "if(EXISTS \"${list_file}\")\n"
    "  include(\"${list_file}\")\n"
    "else()\n"
    "  add_test([=[${T_PREFIX}.NOT_BUILT]=] \"${CMAKE_COMMAND}\" -E echo \"${T_TARGET} was not built\")\n"
    "  set_tests_properties([=[${T_PREFIX}.NOT_BUILT]=] PROPERTIES LABELS \"${T_LABELS}\" WILL_FAIL TRUE)\n"
    "endif()\n")
  set_property(DIRECTORY ${CMAKE_SOURCE_DIR} APPEND PROPERTY TEST_INCLUDE_FILES ${include_file})
endfunction()

# add_lesson(NN_topic [RACE NN_solution] [ARCHS archs...] [LINK libs...] [JUDGE_LINK libs...]
#            [STAGES names...])
# LINK: extra libraries (targets or generator expressions) both sides' libraries
# link publicly, e.g. ZLIB::ZLIB or $<TARGET_NAME_IF_EXISTS:MPI::MPI_C>.
# RACE: an earlier lesson's solution library, whole in the runner: the perf tests
# race a lesson's kernel against the one it improves.
# JUDGE_LINK: libraries the judge itself needs (lesson 13's writes gzip files).
# ARCHS: the CUDA architectures the lesson's .cu files are built for, in place of
# CMAKE_CUDA_ARCHITECTURES, and those its PTX and ptxas reports use: 90a for code that needs
# Hopper's architecture-specific instructions (wgmma, setmaxnreg), which no other GPU runs and
# which the plain compute_90 PTX may not hold.
# STAGES: the parts of a staged exercise, in order, each checkable alone (./course check NN
# --stage NAME); a case belongs to the stage its name begins with (reduce_tree_edges: reduce).
# The lesson's own code, the same for both sides (driver, headers, data loading, ...), lives once
# in lessons/NN_topic/src; the sides' folders hold only the files with work in them.
# For each side, solution (solutions/NN_topic) and exercise (exercises/NN_topic):
#   library  NN_<side>          every .c and .cu of the side's folder and of src/ but topic_main.c
#   driver   NN_topic           (solution) / NN_topic_exercise, from src/topic_main.c
#   report   NN_<side>.ptx      PTX of those .cu files (compute_80, or ARCHS' first) and
#            NN_<side>.ptxas.txt  ptxas -v for each COURSE_STRUCTURE_ARCHS (or ARCHS)
#   runner   runner_NN_<side>   tests/common/course_runner.c with the whole library
#   tests    test_NN_<side>     the judge, from tests/NN_topic/test_topic.c, as NN.<side>.<case>;
#                               it links no lesson code and sees the lesson's headers (src/) only
#            NN.solution.sanitize  the solution's GPU cases under the emulator's checks
#                               (tools/sanitize.sh): not one report
# The judge sees LESSON_LIB, LESSON_RUNNER, LESSON_PTX, LESSON_PTXAS, LESSON_SIDE and
# LESSON_SOURCE_DIR.
# A yardstick the course runs itself (lessons/NN_topic/src/*_yardstick.cu: CUB's device-wide
# calls, say) is no student's code: it is built into NN_yardstick, which the driver (its table)
# and the judge (its timing cases) link, and the runner never does, so no graded call reaches it.
# With COURSE_GRADE (./course grade's copy, which holds no solution source) only the exercise
# side is built, and an earlier lesson's solution named by RACE or LINK is that lesson's
# exercise: the student's own.
function(add_lesson name)
  cmake_parse_arguments(L "" "RACE" "ARCHS;LINK;JUDGE_LINK;STAGES" ${ARGN})
  set(ptx_arch 80)
  set(report_archs ${COURSE_STRUCTURE_ARCHS})
  if(L_ARCHS)
    list(GET L_ARCHS 0 ptx_arch)
    set(report_archs ${L_ARCHS})
  endif()
  string(SUBSTRING ${name} 0 2 num)
  string(SUBSTRING ${name} 3 -1 topic)
  if(L_STAGES)
    list(JOIN L_STAGES " " stages)
    file(WRITE ${CMAKE_BINARY_DIR}/stages/${num} "${stages}\n")
  else()
    file(REMOVE ${CMAKE_BINARY_DIR}/stages/${num})
  endif()
  # The lesson's own architecture, for ./course sass (ARCHS' first; none: sass's default).
  if(L_ARCHS)
    file(WRITE ${CMAKE_BINARY_DIR}/archs/${num} "${ptx_arch}\n")
  else()
    file(REMOVE ${CMAKE_BINARY_DIR}/archs/${num})
  endif()
  set(sides solution exercise)
  if(COURSE_GRADE)
    set(sides exercise)
    list(TRANSFORM L_LINK REPLACE "^([0-9][0-9])_solution$" "\\1_exercise")
    list(TRANSFORM L_RACE REPLACE "^([0-9][0-9])_solution$" "\\1_exercise")
  endif()
  set(shared ${CMAKE_SOURCE_DIR}/lessons/${name}/src)
  # The earlier lessons LINK names: their headers, for the PTX report's compiles of this one,
  # and their numbers, for ./course estimate (their kernels' registers).
  set(linked_includes "")
  set(linked_lessons "")
  foreach(lib ${L_LINK})
    if(lib MATCHES "^([0-9][0-9])_(solution|exercise)$")
      list(APPEND linked_includes "$<TARGET_PROPERTY:${lib},INTERFACE_INCLUDE_DIRECTORIES>")
      list(APPEND linked_lessons ${CMAKE_MATCH_1})
    endif()
  endforeach()
  list(JOIN linked_lessons " " linked_lessons)
  file(WRITE ${CMAKE_BINARY_DIR}/links/${num} "${linked_lessons}\n")
  file(GLOB yardsticks CONFIGURE_DEPENDS ${shared}/*_yardstick.cu)
  set(yardstick "")
  if(yardsticks)
    set(yardstick ${num}_yardstick)
    add_library(${yardstick} STATIC ${yardsticks})
    target_include_directories(${yardstick} PUBLIC ${shared})
    target_link_libraries(${yardstick} PUBLIC course_reference)
  endif()
  foreach(side ${sides})
    set(dir ${CMAKE_SOURCE_DIR}/${side}s/${name})
    file(GLOB sources CONFIGURE_DEPENDS ${dir}/*.c ${dir}/*.cu ${shared}/*.c ${shared}/*.cu)
    list(FILTER sources EXCLUDE REGEX "(_main\\.c|_yardstick\\.cu)$")
    file(GLOB cuda_sources CONFIGURE_DEPENDS ${dir}/*.cu ${shared}/*.cu)
    list(FILTER cuda_sources EXCLUDE REGEX "_yardstick\\.cu$")
    # Device helpers one lesson shares with a later one (lessons/04_register_tiling/src/row4.cuh).
    file(GLOB headers CONFIGURE_DEPENDS ${dir}/*.h ${shared}/*.h ${CMAKE_SOURCE_DIR}/reference/*.h
         ${CMAKE_SOURCE_DIR}/lessons/*/src/*.cuh)

    set(lib ${num}_${side})
    add_library(${lib} STATIC ${sources})
    target_include_directories(${lib} PUBLIC ${dir} ${shared})
    target_link_libraries(${lib} PUBLIC course_reference ${L_LINK})
    if(L_ARCHS)
      set_target_properties(${lib} PROPERTIES CUDA_ARCHITECTURES "${L_ARCHS}")
    endif()
    if(side STREQUAL "exercise")
      # An unfinished exercise leaves parameters and locals unused by design.
      target_compile_options(${lib} PRIVATE
        "$<$<COMPILE_LANGUAGE:C>:-Wno-unused-parameter;-Wno-unused-variable;-Wno-unused-but-set-variable;-Wno-unused-function>"
        "$<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wno-unused-parameter,-Wno-unused-variable,-Wno-unused-but-set-variable,-Wno-unused-function;-diag-suppress=177,550>")
      set(driver ${name}_exercise)
    else()
      set(driver ${name})
    endif()
    add_executable(${driver} ${shared}/${topic}_main.c)
    target_link_libraries(${driver} PRIVATE ${lib} ${yardstick})

    # The runner: the student's code in a process of its own, found by name (dlsym).
    set(runner runner_${num}_${side})
    set(whole "$<LINK_LIBRARY:WHOLE_ARCHIVE,${lib}>")
    if(L_RACE)
      list(APPEND whole "$<LINK_LIBRARY:WHOLE_ARCHIVE,${L_RACE}>")
    endif()
    add_executable(${runner} ${CMAKE_SOURCE_DIR}/tests/common/course_runner.c)
    target_include_directories(${runner} PRIVATE ${CMAKE_SOURCE_DIR}/tests/common)
    target_link_libraries(${runner} PRIVATE ${whole} course_reference PkgConfig::FFI
                          ${CMAKE_DL_LIBS})
    target_compile_definitions(${runner} PRIVATE ${COURSE_CUDART_DEFINE})
    set_target_properties(${runner} PROPERTIES ENABLE_EXPORTS ON)

    set(report ${CMAKE_BINARY_DIR}/reports/${lib})
    set(defines LESSON_SIDE="${side}" LESSON_SOURCE_DIR="${dir}" LESSON_LIB="$<TARGET_FILE:${lib}>"
                LESSON_RUNNER="$<TARGET_FILE:${runner}>")
    set(depends "")
    if(cuda_sources)
      set(report_includes ${dir} ${shared} ${CMAKE_SOURCE_DIR}/reference ${linked_includes})
      add_custom_command(
        OUTPUT ${report}.ptx ${report}.ptxas.txt
        COMMAND ${CMAKE_COMMAND} -DNVCC=${CMAKE_CUDA_COMPILER} "-DSOURCES=${cuda_sources}"
                "-DINCLUDES=${report_includes}"
                "-DARCHS=${report_archs}" -DPTX_ARCH=${ptx_arch}
                -DOUT=${report} -P ${CMAKE_SOURCE_DIR}/cmake/kernel_report.cmake
        DEPENDS ${cuda_sources} ${headers} ${CMAKE_SOURCE_DIR}/cmake/kernel_report.cmake
        COMMENT "PTX and ptxas -v report for ${lib}"
        VERBATIM)
      add_custom_target(${lib}_report DEPENDS ${report}.ptx ${report}.ptxas.txt)
      list(APPEND defines LESSON_PTX="${report}.ptx" LESSON_PTXAS="${report}.ptxas.txt")
      set(depends ${lib}_report)
    endif()

    # The suite depends on the runner and the driver: it runs them (lesson 13's runs its driver).
    add_course_tests(TARGET test_${num}_${side}
                     SOURCE ${CMAKE_SOURCE_DIR}/tests/${name}/test_${topic}.c
                     PREFIX ${num}.${side}
                     LABELS ${side} ${num}
                     LINK ${L_JUDGE_LINK} ${yardstick}
                     DEFINES ${defines}
                     DEPENDS ${depends} ${driver} ${runner})
    target_include_directories(test_${num}_${side} PRIVATE ${shared})
    if(cuda_sources AND side STREQUAL "solution")
      add_test(NAME ${num}.solution.sanitize
               COMMAND sh ${CMAKE_SOURCE_DIR}/tools/sanitize.sh $<TARGET_FILE:test_${num}_solution>
                       ${CMAKE_BINARY_DIR}/sanitize/${num})
      set_tests_properties(${num}.solution.sanitize PROPERTIES
        LABELS "solution;${num};emulator;sanitize" TIMEOUT 900 SKIP_RETURN_CODE 77
        ENVIRONMENT_MODIFICATION "LD_LIBRARY_PATH=path_list_prepend:${CMAKE_BINARY_DIR}/emulator/lib")
    endif()
  endforeach()
endfunction()
