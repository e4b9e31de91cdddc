# Runs one program on the CUDA backend and on the CPU and requires the same
# exit code, result and interaction counts by rule (interaction nets are
# confluent: the counts do not depend on the schedule). Invoked by ctest; see
# tests/runtime/cuda/CMakeLists.txt. Without a device (real or emulated) it prints
# "skipped: no CUDA device", which ctest reports as skipped.
#
# -DBENDC=<bendc> -DINPUT=<file> [-DMEM=<size>]. A .bend file is run only when
# its first line asks for --run (golden files that only check or emit are not
# programs to run); a `# PROGRAM_ARGS:` line gives the arguments after it.
file(STRINGS ${INPUT} first_line LIMIT_COUNT 1)
get_filename_component(ext ${INPUT} LAST_EXT)
if(ext STREQUAL ".bend" AND first_line MATCHES "^(//|#) ARGS:" AND NOT first_line MATCHES "--run")
  message("not a program to run: ${first_line}")
  return()
endif()
set(program_args "")
file(STRINGS ${INPUT} program_args_line REGEX "^(//|#) PROGRAM_ARGS:" LIMIT_COUNT 1 ENCODING UTF-8)
if(program_args_line MATCHES "^(//|#) PROGRAM_ARGS:(.*)$")
  separate_arguments(program_args UNIX_COMMAND "${CMAKE_MATCH_2}")
endif()
set(mem "")
if(DEFINED MEM)
  set(mem --mem=${MEM})
endif()
get_filename_component(dir ${INPUT} DIRECTORY)

function(run_on backend prefix)
  execute_process(COMMAND ${BENDC} --run -s --quiet --backend=${backend} ${mem} ${INPUT} ${program_args}
                  WORKING_DIRECTORY ${dir} INPUT_FILE /dev/null
                  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  # What must agree: the program's output and result, the counts by rule.
  string(REGEX REPLACE "\n- (TIME|MIPS|THREADS|PER THREAD|NODES|BACKEND|IO CALLS|SHARED):[^\n]*" "" out "${out}")
  set(${prefix}_out "${out}" PARENT_SCOPE)
  set(${prefix}_err "${err}" PARENT_SCOPE)
  set(${prefix}_rc "${rc}" PARENT_SCOPE)
endfunction()

run_on(cuda gpu)
if(gpu_err MATCHES "no usable CUDA device|no CUDA backend")
  message("skipped: no CUDA device")
  return()
endif()
run_on(cpu cpu)
if(NOT gpu_rc STREQUAL cpu_rc OR NOT gpu_out STREQUAL cpu_out)
  message(FATAL_ERROR "the CUDA backend disagrees with the CPU on ${INPUT}\n"
                      "--- cpu (exit ${cpu_rc}):\n${cpu_out}${cpu_err}\n"
                      "--- cuda (exit ${gpu_rc}):\n${gpu_out}${gpu_err}")
endif()
# A failure that is not the program's own must not pass as agreement.
if(NOT cpu_rc STREQUAL "0" AND NOT INPUT MATCHES "/fail_[^/]*$")
  message(FATAL_ERROR "${INPUT} failed on both backends (exit ${cpu_rc}):\n${cpu_err}")
endif()
