# poslab_header_link(OUT_VAR FOLDER PROBE PACKAGE [SUFFIX s]): finds the host's header folder
# FOLDER (e.g. `hwy`, where PROBE, e.g. `hwy/highway.h`, lives) and sets OUT_VAR to a
# build-tree directory holding only a link to it. Header-only libraries reach the compiler
# through such a directory so that em++ never sees /usr/include (the host's glibc headers);
# native builds use the same path. PACKAGE names the Debian package in the error message.
function(poslab_header_link out_var folder probe package)
  cmake_parse_arguments(ARG "" "SUFFIX" "" ${ARGN})
  find_path(POSLAB_${folder}_ROOT ${probe} PATHS /usr/include /usr/local/include
            PATH_SUFFIXES ${ARG_SUFFIX} NO_CMAKE_FIND_ROOT_PATH)
  if(NOT POSLAB_${folder}_ROOT)
    message(FATAL_ERROR "${probe} not found (Debian: apt install ${package})")
  endif()
  set(dir ${CMAKE_BINARY_DIR}/include-links/${folder})
  file(MAKE_DIRECTORY ${dir})
  file(CREATE_LINK ${POSLAB_${folder}_ROOT}/${folder} ${dir}/${folder} SYMBOLIC)
  set(${out_var} ${dir} PARENT_SCOPE)
endfunction()
