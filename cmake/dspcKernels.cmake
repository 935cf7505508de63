# dspc_add_kernels: compile .dsp files with dspc at build time (part of dspc's CMake package).
#
#   dspc_add_kernels(TARGET <name> SOURCES <a.dsp>...
#                    [DSP_TARGET <target>]     hexagon-v65 .. v73 or host (default hexagon-v68)
#                    [EMIT so|obj]             default so
#                    [OUTPUT_DIR <dir>]        default ${CMAKE_CURRENT_BINARY_DIR}/<name>
#                    [FLAGS <dspc option>...]) e.g. -O3 --no-auto-schedule
#
# FLAGS go to every source of the call. Options for one source go in its source file property
# DSPC_FLAGS, after FLAGS (so they win where they disagree):
#   set_source_files_properties(conv.dsp PROPERTIES DSPC_FLAGS "--func=conv2d<56,56,64,64>;-O3")
#
# For each source a.dsp it runs, at build time,
#   dspc a.dsp --target=T --emit=so|obj -o <dir>/a.so|a.o -MD -MF <dir>/a.so.d|a.o.d
#   dspc a.dsp --target=T --emit=header -o <dir>/include/a.h -MD -MF <dir>/include/a.h.d
# dspc's depfiles name each output's inputs (the .dsp, and the runtime-support library an .so
# links), so a build re-runs only the commands whose inputs changed: editing a.dsp rebuilds
# a's outputs and what depends on them, nothing else. --emit=so also writes a.so.json.
#
# <name> is an INTERFACE library. Linking it builds the outputs first and puts <dir>/include on
# the include path (#include "a.h"). With DSP_TARGET host and EMIT obj, it also links the
# objects and dspc::runtime (which defines the runtime functions kernels call), and links the
# program with -no-pie (the objects are not position-independent), so a host program calls
# the kernels directly. Its properties name the outputs:
#   DSPC_OUTPUT_DIR  <dir>;  DSPC_OUTPUTS  the .so or .o files;  DSPC_INCLUDE_DIR  <dir>/include
# e.g. target_compile_definitions(app PRIVATE DIR="$<TARGET_PROPERTY:k,DSPC_OUTPUT_DIR>").
if(CMAKE_VERSION VERSION_LESS 3.20)
  # INTERFACE libraries with sources (3.19) and DEPFILE for every generator (3.20).
  message(FATAL_ERROR "dspc's CMake package needs CMake 3.20 or newer, not ${CMAKE_VERSION}")
endif()

function(dspc_add_kernels)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "TARGET;DSP_TARGET;EMIT;OUTPUT_DIR" "SOURCES;FLAGS")
  if(ARG_UNPARSED_ARGUMENTS)
    string(REPLACE ";" " " unexpected "${ARG_UNPARSED_ARGUMENTS}")
    message(FATAL_ERROR "dspc_add_kernels: unexpected arguments: ${unexpected}")
  endif()
  if(NOT ARG_TARGET)
    message(FATAL_ERROR "dspc_add_kernels: TARGET <name> is required")
  endif()
  if(TARGET ${ARG_TARGET})
    message(FATAL_ERROR "dspc_add_kernels: a target named '${ARG_TARGET}' already exists")
  endif()
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "dspc_add_kernels(${ARG_TARGET}): SOURCES is required (one or more .dsp files)")
  endif()
  if(NOT ARG_DSP_TARGET)
    set(ARG_DSP_TARGET ${dspc_DEFAULT_TARGET})
  endif()
  if(NOT ARG_DSP_TARGET IN_LIST dspc_TARGETS)
    string(REPLACE ";" ", " all "${dspc_TARGETS}")
    message(FATAL_ERROR "dspc_add_kernels(${ARG_TARGET}): unknown DSP_TARGET '${ARG_DSP_TARGET}' (${all})")
  endif()
  if(NOT ARG_EMIT)
    set(ARG_EMIT so)
  endif()
  if(ARG_EMIT STREQUAL "so")
    set(ext so)
  elseif(ARG_EMIT STREQUAL "obj")
    set(ext o)
  else()
    message(FATAL_ERROR "dspc_add_kernels(${ARG_TARGET}): EMIT must be so or obj, not '${ARG_EMIT}'")
  endif()
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/${ARG_TARGET})
  if(ARG_OUTPUT_DIR)
    get_filename_component(dir ${ARG_OUTPUT_DIR} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_BINARY_DIR})
  endif()
  set(include_dir ${dir}/include)
  file(MAKE_DIRECTORY ${include_dir})

  set(outputs)
  set(headers)
  set(stems)
  foreach(source ${ARG_SOURCES})
    get_filename_component(source ${source} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
    get_filename_component(stem ${source} NAME_WE)
    if(stem IN_LIST stems)
      message(FATAL_ERROR "dspc_add_kernels(${ARG_TARGET}): two sources named ${stem}: their outputs would collide")
    endif()
    list(APPEND stems ${stem})
    get_source_file_property(source_flags ${source} DSPC_FLAGS)
    if(NOT source_flags)
      set(source_flags)
    endif()
    set(flags ${ARG_FLAGS} ${source_flags})
    set(out ${dir}/${stem}.${ext})
    set(extra)
    if(ARG_EMIT STREQUAL "so")
      set(extra ${out}.json)
    endif()
    add_custom_command(OUTPUT ${out} ${extra}
      COMMAND dspc::dspc ${source} --target=${ARG_DSP_TARGET} --emit=${ARG_EMIT} ${flags}
              -o ${out} -MD -MF ${out}.d
      DEPENDS ${source} $<TARGET_FILE:dspc::dspc>
      DEPFILE ${out}.d
      COMMENT "dspc ${stem}.dsp -> ${stem}.${ext} (${ARG_DSP_TARGET})"
      VERBATIM)
    set(header ${include_dir}/${stem}.h)
    add_custom_command(OUTPUT ${header}
      COMMAND dspc::dspc ${source} --target=${ARG_DSP_TARGET} --emit=header ${flags}
              -o ${header} -MD -MF ${header}.d
      DEPENDS ${source} $<TARGET_FILE:dspc::dspc>
      DEPFILE ${header}.d
      COMMENT "dspc ${stem}.dsp -> ${stem}.h"
      VERBATIM)
    list(APPEND outputs ${out})
    list(APPEND headers ${header})
  endforeach()

  add_library(${ARG_TARGET} INTERFACE ${outputs} ${headers})
  target_include_directories(${ARG_TARGET} INTERFACE ${include_dir})
  set_target_properties(${ARG_TARGET} PROPERTIES DSPC_OUTPUT_DIR ${dir} DSPC_OUTPUTS "${outputs}"
                        DSPC_INCLUDE_DIR ${include_dir})
  if(ARG_DSP_TARGET STREQUAL "host" AND ARG_EMIT STREQUAL "obj")
    # dspc's host objects are not position-independent: link the program as a fixed-address
    # executable rather than a PIE with text relocations.
    target_link_libraries(${ARG_TARGET} INTERFACE ${outputs} dspc::runtime)
    target_link_options(${ARG_TARGET} INTERFACE -no-pie)
  endif()
endfunction()
