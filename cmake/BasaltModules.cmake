# basalt_module(name [DEPS targets...]) makes the object library basalt_<name>
# from src/<name>/*.c and the .c files of its sub-folders (one per concern,
# e.g. src/io/s3/). Its internal headers (src/<name>/, included with their
# sub-folder as in "s3/s3.h") are visible to it and to its own tests only.
set(BASALT_MODULES "" CACHE INTERNAL "")
set(BASALT_MODULE_DEPS "" CACHE INTERNAL "")

function(basalt_module name)
  cmake_parse_arguments(M "" "" "DEPS" ${ARGN})
  file(GLOB_RECURSE sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/${name}/*.c)
  if(NOT sources)
    message(WARNING "module ${name} has no sources yet")
    return()
  endif()
  add_library(basalt_${name} OBJECT ${sources})
  target_include_directories(basalt_${name}
      PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
      PRIVATE ${PROJECT_SOURCE_DIR}/src/${name})
  target_compile_definitions(basalt_${name} PRIVATE BASALT_BUILDING_LIBRARY _GNU_SOURCE)
  set_target_properties(basalt_${name} PROPERTIES C_VISIBILITY_PRESET hidden)
  target_link_libraries(basalt_${name} PRIVATE Threads::Threads ${M_DEPS})
  basalt_warnings(basalt_${name})
  set(BASALT_MODULES ${BASALT_MODULES} ${name} CACHE INTERNAL "")
  set(BASALT_MODULE_DEPS ${BASALT_MODULE_DEPS} ${M_DEPS} CACHE INTERNAL "")
endfunction()

# libbasalt, static and shared, from every module's objects.
function(basalt_library)
  set(objects "")
  foreach(m ${BASALT_MODULES})
    list(APPEND objects $<TARGET_OBJECTS:basalt_${m}>)
  endforeach()
  foreach(kind static shared)
    string(TOUPPER ${kind} KIND)
    add_library(basalt_${kind} ${KIND} ${objects})
    set_target_properties(basalt_${kind} PROPERTIES OUTPUT_NAME basalt
        C_VISIBILITY_PRESET hidden)
    target_include_directories(basalt_${kind} PUBLIC
        $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
        $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
    target_link_libraries(basalt_${kind} PRIVATE ${BASALT_MODULE_DEPS}
        PUBLIC Threads::Threads m)
  endforeach()
  set_target_properties(basalt_shared PROPERTIES VERSION ${PROJECT_VERSION}
      SOVERSION ${PROJECT_VERSION_MAJOR} EXPORT_NAME basalt)
  # Static consumers need the third-party libraries too.
  target_link_libraries(basalt_static INTERFACE ${BASALT_MODULE_DEPS})
  add_library(basalt::basalt ALIAS basalt_static)
endfunction()
