# One static library per layer, so the build itself keeps the arrows of ARCHITECTURE.md.
#
# amdml_layer(NAME DIR [DEPS layer...] [LIBS target...]) makes amdml_<NAME> from DIR/*.cpp.
# Its headers are reachable as "<NAME>/x.hpp" only through a directory of its own in the
# build tree (build/layers/<NAME>/<NAME> -> DIR), and every dependency is linked PRIVATE:
# a layer sees the headers of the layers it names and nothing else, so an include that
# crosses an arrow the wrong way fails to compile (tests/static/layers proves it).

add_library(amdml_options INTERFACE)
target_compile_features(amdml_options INTERFACE cxx_std_20)
target_compile_options(amdml_options INTERFACE -Wall -Wextra -Wno-unused-parameter
  -Wshadow -Wnon-virtual-dtor -Woverloaded-virtual -Wimplicit-fallthrough)
if(AMDML_WERROR)
  target_compile_options(amdml_options INTERFACE -Werror)
endif()

function(amdml_layer name dir)
  cmake_parse_arguments(L "" "" "DEPS;LIBS;PUBLIC_LIBS;SOURCES" ${ARGN})
  file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/${dir}/*.cpp)
  add_library(amdml_${name} STATIC ${sources} ${L_SOURCES})
  set(inc ${CMAKE_BINARY_DIR}/layers/${name})
  file(MAKE_DIRECTORY ${inc})
  if(NOT EXISTS ${inc}/${name})
    file(CREATE_LINK ${CMAKE_SOURCE_DIR}/${dir} ${inc}/${name} SYMBOLIC)
  endif()
  target_include_directories(amdml_${name} PUBLIC ${inc})
  target_link_libraries(amdml_${name} PRIVATE amdml_options)
  foreach(d ${L_DEPS})
    target_link_libraries(amdml_${name} PRIVATE amdml_${d})
  endforeach()
  if(L_LIBS)
    target_link_libraries(amdml_${name} PRIVATE ${L_LIBS})
  endif()
  if(L_PUBLIC_LIBS)
    target_link_libraries(amdml_${name} PUBLIC ${L_PUBLIC_LIBS})
  endif()
  set_property(GLOBAL APPEND PROPERTY AMDML_LAYERS amdml_${name})
endfunction()
