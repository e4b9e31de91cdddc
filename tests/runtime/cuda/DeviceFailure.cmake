# bendc on an emulated device that fails: the run must end with exit code 3
# and a message that says what happened. Invoked by ctest (see CMakeLists.txt
# here) with -DBENDC=<bendc> -DCASE=<name> -DWORK=<scratch folder>.
#   out_of_memory     the net outgrows a small device
#   large_definition  one definition does not fit the device at all
#   launch_failure    a kernel launch fails (injected)
file(MAKE_DIRECTORY ${WORK})
set(grow "@main = r & @grow ~ (1 r)\n@grow = ({a b} (c d)) & @grow ~ (a c) & @grow ~ (b d)\n")
if(CASE STREQUAL "out_of_memory")
  set(program "${grow}")
  set(device "memory=8M")
  set(expect "^bendc: error: out of memory: the net needed more than [0-9]+ nodes .* raise the limit with --mem")
elseif(CASE STREQUAL "large_definition")
  # A definition of 30 000 nodes on a 1 MiB device.
  string(REPEAT "(1 " 30000 open)
  string(REPEAT ")" 30000 close)
  set(program "@main = (a b) & @big ~ (1 a) & @big ~ (2 b)\n@big = ({x y} (x ${open}y${close}))\n")
  set(device "memory=1M")
  set(expect "^bendc: error: out of memory: the definition @big has 30003 nodes, and expanding it once takes [0-9]+ MiB of device memory; .* use --backend=cpu")
elseif(CASE STREQUAL "launch_failure")
  set(program "${grow}")
  set(device "fail-launch=2")
  set(expect "^bendc: error: CUDA error while [a-z ]+: cudaErrorLaunchFailure \\(unspecified launch failure .*rerun with --backend=cpu")
else()
  message(FATAL_ERROR "unknown case ${CASE}")
endif()
file(WRITE ${WORK}/${CASE}.hvm "${program}")
execute_process(COMMAND ${CMAKE_COMMAND} -E env BENDC_EMULATE=${device}
                        ${BENDC} --run --backend=cuda --quiet ${WORK}/${CASE}.hvm
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc STREQUAL "3")
  message(FATAL_ERROR "expected exit code 3, got ${rc}\nstdout: ${out}\nstderr: ${err}")
endif()
if(NOT err MATCHES "${expect}")
  message(FATAL_ERROR "unexpected message:\n${err}\nexpected to match: ${expect}")
endif()
if(NOT out STREQUAL "")
  message(FATAL_ERROR "a failed run printed on stdout: ${out}")
endif()
