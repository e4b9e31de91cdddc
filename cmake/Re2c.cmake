# bendc_re2c(<out-var> <input.re>): generates a C++ file from an re2c source in the build tree.
# The .re file is the source of truth; the output is deterministic (no date, no version).
function(bendc_re2c out input)
  get_filename_component(name ${input} NAME_WE)
  set(output ${CMAKE_CURRENT_BINARY_DIR}/${name}.cpp)
  add_custom_command(
    OUTPUT ${output}
    COMMAND ${RE2C_EXE} --no-generation-date --no-version -W --utf8 -o ${output} ${CMAKE_CURRENT_SOURCE_DIR}/${input}
    DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/${input}
    COMMENT "re2c ${input}")
  set(${out} ${output} PARENT_SCOPE)
endfunction()
