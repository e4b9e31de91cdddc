# Included by the scripts that start MPI jobs (RunGolden.cmake, SameAsOneProcess.cmake).
#
# Open MPI 4's launcher keeps its session files under one folder per user in
# the temporary directory, and a job that ends removes what it finds empty
# there. With many jobs starting and ending at once (ctest -j), a starting job
# can lose the folder it just made and exit at once with "A call to mkdir was
# unable to create the desired directory". Each test's jobs get a folder of
# their own instead; `tag` names the test, so the folder is the same on a rerun.
function(mpi_private_session_dir tag out_var)
  if(DEFINED ENV{TMPDIR} AND IS_DIRECTORY "$ENV{TMPDIR}")
    set(base "$ENV{TMPDIR}")
  else()
    set(base /tmp)
  endif()
  string(MD5 hash "${tag}")
  string(SUBSTRING "${hash}" 0 16 hash)
  # Short: the launcher's socket paths go below it.
  set(session "${base}/bendc-mpi-${hash}")
  file(REMOVE_RECURSE "${session}")
  file(MAKE_DIRECTORY "${session}")
  set(ENV{OMPI_MCA_orte_tmpdir_base} "${session}")
  set(${out_var} "${session}" PARENT_SCOPE)
endfunction()
