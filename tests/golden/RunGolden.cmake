# Runs bendc on one golden input and compares stdout+stderr and the exit code
# with <input>.expected. Invoked by ctest; see bendc_golden_dir in tests/CMakeLists.txt.
#
# Directives, each on a line of its own (`#` or `//` first):
#   ARGS: ...          (first line) bendc's arguments instead of --run/--check
#   PROGRAM_ARGS: ...  arguments after the file name
#   STDIN: <file>      the program's stdin (a file next to the input); else empty
#   MERGE_OUTPUT       stdout and stderr in one stream, in the order written
# -DVERIFY_PASSES=0 compiles without running the HIR verifier after each pass.
# With -DLAUNCHER="<command...>" bendc runs under that command (an MPI job),
# the launcher's own report of a failed process is left out, and the run
# adds -s: its interaction counts must equal those of bendc alone with one
# thread (the expectation holds no counts, so they are compared here).
# With -DSCRATCH=<dir> the program runs in a fresh folder under <dir> holding a
# copy of the input, of <input>.files/* and of -DFFI_LIBRARY (if given), so it
# may create and change files.
file(STRINGS ${INPUT} first_line LIMIT_COUNT 1)
# A line `# PROGRAM_ARGS: ...` (shell-quoted, no `;`) gives the arguments that
# follow the file name, those of `bendc --run FILE ARG...`.
file(STRINGS ${INPUT} program_args_line REGEX "^(//|#) PROGRAM_ARGS:" LIMIT_COUNT 1
     ENCODING UTF-8)
set(program_args "")
if(program_args_line MATCHES "^(//|#) PROGRAM_ARGS:(.*)$")
  separate_arguments(program_args UNIX_COMMAND "${CMAKE_MATCH_2}")
endif()
get_filename_component(ext ${INPUT} LAST_EXT)
get_filename_component(name ${INPUT} NAME)
get_filename_component(dir ${INPUT} DIRECTORY)
if(first_line MATCHES "^(//|#) ARGS:(.*)$")
  separate_arguments(args UNIX_COMMAND "${CMAKE_MATCH_2}")
elseif(ext STREQUAL ".hvm")
  set(args --run)
else()
  set(args --check)
endif()
set(stdin_file /dev/null)
file(STRINGS ${INPUT} stdin_line REGEX "^(//|#) STDIN:" LIMIT_COUNT 1 ENCODING UTF-8)
if(stdin_line MATCHES "^(//|#) STDIN: *(.*)$")
  set(stdin_file ${dir}/${CMAKE_MATCH_2})
endif()
file(STRINGS ${INPUT} merge_line REGEX "^(//|#) MERGE_OUTPUT" LIMIT_COUNT 1 ENCODING UTF-8)
set(run_dir ${dir})
if(DEFINED SCRATCH)
  # The launcher too: the same program under 2 and 3 processes may run at once.
  string(MD5 tag "${INPUT}${EXTRA_ARGS}${LAUNCHER}")
  set(run_dir ${SCRATCH}/${name}-${tag})
  # A fresh folder with the program and what it reads (again before a second run).
  macro(fill_run_dir)
    file(REMOVE_RECURSE ${run_dir})
    file(MAKE_DIRECTORY ${run_dir})
    file(COPY ${INPUT} DESTINATION ${run_dir})
    if(IS_DIRECTORY ${INPUT}.files)
      file(GLOB fixtures ${INPUT}.files/*)
      file(COPY ${fixtures} DESTINATION ${run_dir})
    endif()
    if(DEFINED FFI_LIBRARY)
      file(COPY ${FFI_LIBRARY} DESTINATION ${run_dir})
    endif()
  endmacro()
  fill_run_dir()
endif()
# The HIR verifier runs after every pass of a golden compile, unless
# -DVERIFY_PASSES=0 asks for the compile bendc does by default.
if(NOT DEFINED VERIFY_PASSES OR VERIFY_PASSES)
  set(ENV{BENDC_VERIFY_PASSES} 1)
endif()
# Paths in messages are relative to the test's folder, so expectations do not
# depend on where the checkout lives.
if(merge_line)
  set(err_var out)
else()
  set(err_var err)
endif()
set(err "")
set(launcher "")
set(stats_arg "")
if(DEFINED LAUNCHER)
  separate_arguments(launcher UNIX_COMMAND "${LAUNCHER}")
  set(stats_arg -s)
  include(${CMAKE_CURRENT_LIST_DIR}/../MpiSessionDir.cmake)
  mpi_private_session_dir("${INPUT}${EXTRA_ARGS}${LAUNCHER}" session_dir)
endif()
execute_process(COMMAND ${launcher} ${BENDC} ${args} ${EXTRA_ARGS} ${stats_arg} ${name} ${program_args}
                WORKING_DIRECTORY ${run_dir}
                INPUT_FILE ${stdin_file}
                OUTPUT_VARIABLE out ERROR_VARIABLE ${err_var} RESULT_VARIABLE rc
                TIMEOUT 120)
if(DEFINED LAUNCHER)
  # Takes the statistics off the end of `output_var` and keeps the counts
  # (the total and each rule's) in `counts_var`.
  function(take_counts output_var counts_var)
    set(counts "")
    string(FIND "${${output_var}}" "- ITRS: " at)
    if(at GREATER_EQUAL 0)
      string(SUBSTRING "${${output_var}}" ${at} -1 counts)
      string(SUBSTRING "${${output_var}}" 0 ${at} ${output_var})
      string(REGEX MATCHALL "(^|\n)(- ITRS|  - [a-z]+): [0-9]+" counts "${counts}")
    endif()
    set(${output_var} "${${output_var}}" PARENT_SCOPE)
    set(${counts_var} "${counts}" PARENT_SCOPE)
  endfunction()
  # The counts, then the same program alone.
  take_counts(out counts)
  # All of it, for a failed launch: its report is one of those left out below.
  set(launched_errors "${${err_var}}")
  string(FIND "${${err_var}}" "------------------------------" at)
  if(at GREATER_EQUAL 0)
    string(SUBSTRING "${${err_var}}" 0 ${at} ${err_var})
  endif()
  if(DEFINED SCRATCH)
    fill_run_dir()
  endif()
  execute_process(COMMAND ${BENDC} ${args} --threads=1 -s ${name} ${program_args}
                  WORKING_DIRECTORY ${run_dir}
                  INPUT_FILE ${stdin_file}
                  OUTPUT_VARIABLE alone ERROR_QUIET RESULT_VARIABLE alone_rc
                  TIMEOUT 120)
  take_counts(alone alone_counts)
  file(REMOVE_RECURSE ${session_dir})
  if(NOT counts STREQUAL alone_counts)
    message(FATAL_ERROR "${name}: the interactions counted under the launcher differ from one "
                        "process's\n--- one process\n${alone_counts}\n--- launched (exit ${rc})\n${counts}\n"
                        "--- launched, its errors and the launcher's\n${launched_errors}")
  endif()
endif()
if(DEFINED SCRATCH)
  file(REMOVE_RECURSE ${run_dir})
endif()
string(REGEX REPLACE "- (TIME|MIPS|NODES|PER THREAD):[^\n]*\n" "" out "${out}")
set(actual "${out}${err}exit: ${rc}\n")
if(DEFINED ENV{BENDC_UPDATE_GOLDEN})
  file(WRITE ${INPUT}.expected "${actual}")
  return()
endif()
if(name MATCHES "^fail_" AND rc EQUAL 0)
  message(FATAL_ERROR "${name} is a fail_ test but bendc exited 0:\n${actual}")
endif()
if(NOT EXISTS ${INPUT}.expected)
  message(FATAL_ERROR "missing ${INPUT}.expected; actual output:\n${actual}")
endif()
file(READ ${INPUT}.expected expected)
if(NOT actual STREQUAL expected)
  message(FATAL_ERROR "output differs from ${name}.expected\n--- expected\n${expected}--- actual\n${actual}")
endif()
