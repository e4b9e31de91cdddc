# Runs one program in one process and over the processes of an MPI job and
# requires the same exit code, output, result and interaction counts by rule,
# and that something crossed between the processes (else the check would be
# of one process twice). Invoked by ctest; see CMakeLists.txt beside it.
#
# -DBENDC=<bendc> -DINPUT=<file> -DLAUNCHER="<mpirun ... -np N>" -DROUND=<redexes>
separate_arguments(launcher UNIX_COMMAND "${LAUNCHER}")
get_filename_component(dir ${INPUT} DIRECTORY)

function(run_with prefix)
  execute_process(COMMAND ${ARGN} --run -s --quiet ${INPUT}
                  WORKING_DIRECTORY ${dir} INPUT_FILE /dev/null
                  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc TIMEOUT 300)
  string(REGEX MATCH "\n- CROSS-RANK: [0-9]+ messages" crossing "${out}")
  # What must agree: the program's output and result, the counts by rule.
  string(REGEX REPLACE "\n- (TIME|MIPS|THREADS|PER THREAD|NODES|BACKEND|RANKS|CROSS-RANK):[^\n]*" "" out "${out}")
  set(${prefix}_out "${out}" PARENT_SCOPE)
  set(${prefix}_err "${err}" PARENT_SCOPE)
  set(${prefix}_rc "${rc}" PARENT_SCOPE)
  set(${prefix}_crossing "${crossing}" PARENT_SCOPE)
endfunction()

run_with(one ${BENDC} --threads=1)
include(${CMAKE_CURRENT_LIST_DIR}/../../MpiSessionDir.cmake)
mpi_private_session_dir("${INPUT}${LAUNCHER}" session_dir)
run_with(job ${launcher} ${BENDC} --distributed --dist-round=${ROUND})
file(REMOVE_RECURSE ${session_dir})
if(NOT one_rc STREQUAL "0")
  message(FATAL_ERROR "${INPUT} failed in one process (exit ${one_rc}):\n${one_err}")
endif()
if(NOT job_rc STREQUAL one_rc OR NOT job_out STREQUAL one_out)
  message(FATAL_ERROR "the job disagrees with one process on ${INPUT}\n"
                      "--- one process (exit ${one_rc}):\n${one_out}${one_err}\n"
                      "--- job (exit ${job_rc}):\n${job_out}${job_err}")
endif()
if(job_crossing MATCHES " 0 messages$" OR job_crossing STREQUAL "")
  message(FATAL_ERROR "nothing crossed between the processes on ${INPUT}:\n${job_out}")
endif()
