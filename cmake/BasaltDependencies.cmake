# Third-party libraries, all from Debian (scripts/setup installs them).
find_package(PkgConfig REQUIRED)
find_package(Threads REQUIRED)

pkg_check_modules(ZSTD REQUIRED IMPORTED_TARGET libzstd)
pkg_check_modules(LZ4 REQUIRED IMPORTED_TARGET liblz4)
pkg_check_modules(BROTLI REQUIRED IMPORTED_TARGET libbrotlienc libbrotlidec)
pkg_check_modules(SNAPPY REQUIRED IMPORTED_TARGET snappy)
pkg_check_modules(DEFLATE REQUIRED IMPORTED_TARGET libdeflate)
pkg_check_modules(ZLIB REQUIRED IMPORTED_TARGET zlib)
pkg_check_modules(LZMA REQUIRED IMPORTED_TARGET liblzma)
pkg_check_modules(XXHASH REQUIRED IMPORTED_TARGET libxxhash)
pkg_check_modules(CRYPTO REQUIRED IMPORTED_TARGET libcrypto)
find_library(BZ2_LIBRARY NAMES bz2 REQUIRED)
find_path(BZ2_INCLUDE_DIR bzlib.h REQUIRED)

add_library(basalt_deps_codecs INTERFACE)
target_link_libraries(basalt_deps_codecs INTERFACE
    PkgConfig::ZSTD PkgConfig::LZ4 PkgConfig::BROTLI PkgConfig::SNAPPY PkgConfig::DEFLATE
    PkgConfig::ZLIB PkgConfig::LZMA ${BZ2_LIBRARY})
target_include_directories(basalt_deps_codecs INTERFACE ${BZ2_INCLUDE_DIR})
add_library(basalt::deps::codecs ALIAS basalt_deps_codecs)

add_library(basalt_deps_hash INTERFACE)
target_link_libraries(basalt_deps_hash INTERFACE PkgConfig::XXHASH PkgConfig::CRYPTO
                      PkgConfig::DEFLATE)
add_library(basalt::deps::hash ALIAS basalt_deps_hash)

# Parquet modular encryption: AES-GCM / AES-CTR from libcrypto.
add_library(basalt_deps_crypto INTERFACE)
target_link_libraries(basalt_deps_crypto INTERFACE PkgConfig::CRYPTO)
add_library(basalt::deps::crypto ALIAS basalt_deps_crypto)

pkg_check_modules(JANSSON REQUIRED IMPORTED_TARGET jansson)
add_library(basalt_deps_json INTERFACE)
target_link_libraries(basalt_deps_json INTERFACE PkgConfig::JANSSON)
add_library(basalt::deps::json ALIAS basalt_deps_json)

# io: HTTP on libcurl, the XML of object-store APIs on expat, MD5 and base64
# for request headers from libcrypto.
pkg_check_modules(CURL REQUIRED IMPORTED_TARGET libcurl)
pkg_check_modules(EXPAT REQUIRED IMPORTED_TARGET expat)
add_library(basalt_deps_io INTERFACE)
target_link_libraries(basalt_deps_io INTERFACE PkgConfig::CURL PkgConfig::EXPAT
                      PkgConfig::CRYPTO)
add_library(basalt::deps::io ALIAS basalt_deps_io)

# Iceberg: JSON metadata, the SQL catalog on embedded SQLite or PostgreSQL
# (libpq), deletion vectors
# as Roaring bitmaps (Debian's CRoaring ships no pkg-config file).
pkg_check_modules(SQLITE3 REQUIRED IMPORTED_TARGET sqlite3)
pkg_check_modules(LIBPQ REQUIRED IMPORTED_TARGET libpq)
find_library(ROARING_LIBRARY NAMES roaring REQUIRED)
find_path(ROARING_INCLUDE_DIR roaring/roaring.h REQUIRED)
add_library(basalt_deps_iceberg INTERFACE)
target_link_libraries(basalt_deps_iceberg INTERFACE PkgConfig::JANSSON ${ROARING_LIBRARY})
target_include_directories(basalt_deps_iceberg INTERFACE ${ROARING_INCLUDE_DIR})
add_library(basalt::deps::iceberg ALIAS basalt_deps_iceberg)
# The REST catalog server listens with libmicrohttpd.
pkg_check_modules(MICROHTTPD REQUIRED IMPORTED_TARGET libmicrohttpd)
add_library(basalt_deps_catalog INTERFACE)
target_link_libraries(basalt_deps_catalog INTERFACE PkgConfig::JANSSON PkgConfig::SQLITE3
                      PkgConfig::LIBPQ PkgConfig::MICROHTTPD)
add_library(basalt::deps::catalog ALIAS basalt_deps_catalog)

# Libraries the installed pkg-config file names for static linking.
set(BASALT_PC_REQUIRES_PRIVATE
    "libzstd liblz4 libbrotlienc libbrotlidec snappy libdeflate zlib liblzma libxxhash libcrypto jansson sqlite3")
# libcurl, expat, libpq and libmicrohttpd by name: their pkg-config files
# would pull every static dependency (nghttp2, ssh2, ldap, libpq's
# pgcommon/pgport, gssapi, gnutls...), which Debian's -dev packages do not all
# ship as archives; the shared libraries are enough.
set(BASALT_PC_LIBS_PRIVATE "-lcurl -lexpat -lpq -lmicrohttpd -lnghttp2 -lprotobuf-c -lssl -lbz2 -lroaring -lpthread -lm")

# flight: HTTP/2 on nghttp2, protobuf on protobuf-c (protoc-c generates the
# message code at build time).
pkg_check_modules(NGHTTP2 REQUIRED IMPORTED_TARGET libnghttp2)
pkg_check_modules(PROTOBUFC REQUIRED IMPORTED_TARGET libprotobuf-c)
pkg_check_modules(LIBSSL REQUIRED IMPORTED_TARGET libssl)
find_program(PROTOC_C NAMES protoc-c REQUIRED)
add_library(basalt_deps_flight INTERFACE)
target_link_libraries(basalt_deps_flight INTERFACE PkgConfig::NGHTTP2 PkgConfig::PROTOBUFC
                      PkgConfig::LIBSSL PkgConfig::CRYPTO PkgConfig::JANSSON)
add_library(basalt::deps::flight ALIAS basalt_deps_flight)

# The generated protobuf-c code of the Flight messages, compiled into the
# flight module (third-party generated code: its warnings are not ours).
function(basalt_flight_protobuf)
  set(proto ${PROJECT_SOURCE_DIR}/src/flight/flight_wire.proto)
  set(out ${PROJECT_BINARY_DIR}/generated/flight)
  file(MAKE_DIRECTORY ${out})
  add_custom_command(
      OUTPUT ${out}/flight_wire.pb-c.c ${out}/flight_wire.pb-c.h
      COMMAND ${PROTOC_C} --proto_path=${PROJECT_SOURCE_DIR}/src/flight --c_out=${out} ${proto}
      DEPENDS ${proto}
      COMMENT "protoc-c flight_wire.proto")
  target_sources(basalt_flight PRIVATE ${out}/flight_wire.pb-c.c)
  target_include_directories(basalt_flight SYSTEM PRIVATE ${out})
  set_source_files_properties(${out}/flight_wire.pb-c.c PROPERTIES COMPILE_OPTIONS "-w")
endfunction()
