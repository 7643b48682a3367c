# Note [Stable dependency paths]: `pip install .` builds in a fresh
# temporary environment each time, so the build requirements' headers and
# libraries (Eigen, NumPy, pybind11, OpenBLAS) sit at a new path on every
# install. Compile and link command lines name those paths, and a changed
# command line makes ninja rebuild every object. Each dependency is copied
# into the build tree once per version and used from there, so an unchanged
# tree rebuilds in seconds.

# Copies the contents of `source_dir` to build/<...>/deps/<name> unless the
# copy there was made from the same `version`; sets `out_var` to it.
function(ember_stable_copy name version source_dir out_var)
  set(dest ${CMAKE_BINARY_DIR}/deps/${name})
  set(stamp ${CMAKE_BINARY_DIR}/deps/${name}.version)
  set(have "")
  if(EXISTS ${stamp} AND EXISTS ${dest})
    file(READ ${stamp} have)
  endif()
  if(NOT have STREQUAL version)
    message(STATUS "Copying ${name} ${version} into the build tree (Note [Stable dependency paths])")
    file(REMOVE_RECURSE ${dest})
    file(COPY ${source_dir}/ DESTINATION ${dest})
    file(WRITE ${stamp} ${version})
  endif()
  set(${out_var} ${dest} PARENT_SCOPE)
endfunction()

# The version of an installed Python distribution, or "unknown".
function(ember_python_package_version package out_var)
  execute_process(
    COMMAND ${Python_EXECUTABLE} -c "import importlib.metadata as m; print(m.version('${package}'))"
    OUTPUT_VARIABLE version OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE result ERROR_QUIET)
  if(NOT result EQUAL 0)
    set(version "unknown")
  endif()
  set(${out_var} ${version} PARENT_SCOPE)
endfunction()
