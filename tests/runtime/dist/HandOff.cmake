# bendc loads no MPI library: it hands a distributed run to bendc-mpi, built
# beside it, and says so plainly when that is missing. Invoked by ctest; see
# CMakeLists.txt beside it.
#
# -DBENDC=<bendc> -DREADELF=<readelf> -DINPUT=<program> -DSCRATCH=<folder>

# 1. No MPI library among those bendc needs (and the list was read at all).
execute_process(COMMAND ${READELF} -d ${BENDC} OUTPUT_VARIABLE dynamic RESULT_VARIABLE rc)
if(NOT rc STREQUAL "0")
  message(FATAL_ERROR "readelf -d ${BENDC} failed (exit ${rc})")
endif()
string(REGEX MATCHALL "\\(NEEDED\\)[^\n]*" needed "${dynamic}")
if(NOT needed MATCHES "libc\\.so")
  message(FATAL_ERROR "no libraries read from ${BENDC}:\n${dynamic}")
endif()
if(needed MATCHES "libmpi|libopen-(rte|pal)")
  message(FATAL_ERROR "bendc loads MPI at every start:\n${needed}")
endif()

# 2. A distributed run outside mpirun (a job of one process), handed over:
# the result of an ordinary run.
execute_process(COMMAND ${BENDC} --run ${INPUT} INPUT_FILE /dev/null
                OUTPUT_VARIABLE plain ERROR_VARIABLE plain_err RESULT_VARIABLE rc TIMEOUT 120)
if(NOT rc STREQUAL "0" OR NOT plain MATCHES "Result: ")
  message(FATAL_ERROR "bendc --run ${INPUT} (exit ${rc}):\n${plain}${plain_err}")
endif()
include(${CMAKE_CURRENT_LIST_DIR}/../../MpiSessionDir.cmake)
mpi_private_session_dir("handoff${INPUT}" session_dir)
execute_process(COMMAND ${BENDC} --run ${INPUT} --distributed INPUT_FILE /dev/null
                OUTPUT_VARIABLE job ERROR_VARIABLE job_err RESULT_VARIABLE rc TIMEOUT 120)
file(REMOVE_RECURSE ${session_dir})
if(NOT rc STREQUAL "0" OR NOT job STREQUAL plain)
  message(FATAL_ERROR "bendc --run ${INPUT} --distributed (exit ${rc}) printed\n${job}${job_err}\n"
                      "where one process printed\n${plain}")
endif()

# 3. bendc without bendc-mpi beside it: an error that names what is missing.
file(REMOVE_RECURSE ${SCRATCH})
file(MAKE_DIRECTORY ${SCRATCH})
file(COPY ${BENDC} DESTINATION ${SCRATCH})
get_filename_component(name ${BENDC} NAME)
execute_process(COMMAND ${SCRATCH}/${name} --run ${INPUT} --distributed INPUT_FILE /dev/null
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc TIMEOUT 120)
file(REMOVE_RECURSE ${SCRATCH})
if(NOT rc STREQUAL "3" OR NOT err MATCHES "cannot start [^\n]*/bendc-mpi, which runs the processes of an MPI job")
  message(FATAL_ERROR "bendc alone, --distributed: expected exit 3 and a message naming bendc-mpi, "
                      "got exit ${rc}:\n${out}${err}")
endif()
