# What every benchmark tool's build shares (included by tools/*/CMakeLists.txt): the generated package named by
# PACKAGE_DIR and PACKAGE_NAME, built alongside (add_subdirectory), and strata_package_tool(NAME), an executable from
# NAME.cpp that sees the package's C API through PKG and PKG_HEADER (see bench_common.h) and links it.
set(STRATA_TOOLS_COMMON_DIR "${CMAKE_CURRENT_LIST_DIR}")
set(PACKAGE_DIR "" CACHE PATH "the generated package's directory")
set(PACKAGE_NAME "" CACHE STRING "the generated package's name")
set(CMAKE_CXX_STANDARD 17)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
if(NOT CMAKE_BUILD_TYPE)
  set(CMAKE_BUILD_TYPE Release)
endif()
add_subdirectory(${PACKAGE_DIR} package)

function(strata_package_tool name)
  add_executable(${name} ${name}.cpp)
  target_compile_definitions(${name} PRIVATE PKG=${PACKAGE_NAME} PKG_HEADER="${PACKAGE_NAME}.h")
  target_compile_options(${name} PRIVATE -Wall -Wextra -Werror)
  target_include_directories(${name} PRIVATE "${STRATA_TOOLS_COMMON_DIR}")
  target_link_libraries(${name} PRIVATE ${PACKAGE_NAME})
endfunction()
