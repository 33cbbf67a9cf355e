// libjpeg(-turbo), loaded on first use (library_loader.h says how and why):
// a warm cache hit never decodes or encodes a JPEG. jpeg_shims.c calls it.
#include "library_loader.h"
#include "codec_libraries.h"

#include <stdio.h>

#include <jpeglib.h>

// The soname of the ABI the installed header describes (Debian's
// libjpeg62-turbo, Ubuntu's libjpeg-turbo8): their structs differ.
#if JPEG_LIB_VERSION == 62
#define JPEG_SONAME "libjpeg.so.62"
#define JPEG_PACKAGE "libjpeg62-turbo"
#elif JPEG_LIB_VERSION == 80
#define JPEG_SONAME "libjpeg.so.8"
#define JPEG_PACKAGE "libjpeg-turbo8"
#else
#error "unknown libjpeg ABI: add its soname here"
#endif

#define JPEG_FUNCTIONS(F, V, N)                                                                               \
    V(void, jpeg_CreateCompress, (j_compress_ptr info, int version, size_t size), (info, version, size))      \
    V(void, jpeg_CreateDecompress, (j_decompress_ptr info, int version, size_t size), (info, version, size))  \
    V(void, jpeg_destroy_compress, (j_compress_ptr info), (info))                                             \
    V(void, jpeg_destroy_decompress, (j_decompress_ptr info), (info))                                         \
    V(void, jpeg_finish_compress, (j_compress_ptr info), (info))                                              \
    F(boolean, jpeg_finish_decompress, (j_decompress_ptr info), (info))                                       \
    V(void, jpeg_mem_dest, (j_compress_ptr info, unsigned char **buffer, unsigned long *size), (info, buffer, size)) \
    V(void, jpeg_mem_src, (j_decompress_ptr info, const unsigned char *buffer, unsigned long size),           \
      (info, buffer, size))                                                                                   \
    F(int, jpeg_read_header, (j_decompress_ptr info, boolean require_image), (info, require_image))           \
    F(JDIMENSION, jpeg_read_scanlines, (j_decompress_ptr info, JSAMPARRAY rows, JDIMENSION count),           \
      (info, rows, count))                                                                                    \
    V(void, jpeg_set_defaults, (j_compress_ptr info), (info))                                                 \
    V(void, jpeg_set_quality, (j_compress_ptr info, int quality, boolean baseline), (info, quality, baseline)) \
    V(void, jpeg_start_compress, (j_compress_ptr info, boolean all_tables), (info, all_tables))               \
    F(boolean, jpeg_start_decompress, (j_decompress_ptr info), (info))                                        \
    F(struct jpeg_error_mgr *, jpeg_std_error, (struct jpeg_error_mgr * error), (error))                      \
    F(JDIMENSION, jpeg_write_scanlines, (j_compress_ptr info, JSAMPARRAY rows, JDIMENSION count),            \
      (info, rows, count))

JPEG_FUNCTIONS(IMGCACHE_POINTER, IMGCACHE_POINTER, IMGCACHE_POINTER)
IMGCACHE_SYMBOLS(JPEG_FUNCTIONS);
static imgcache_library library =
    IMGCACHE_LIBRARY(JPEG_SONAME, "cannot load libjpeg (install " JPEG_PACKAGE ")", "", symbols, NULL);
JPEG_FUNCTIONS(IMGCACHE_FORWARD, IMGCACHE_FORWARD_VOID, IMGCACHE_FORWARD_NORETURN)

// Why: a missing library is the error of the image (or store) that needed it,
// reported before the first forwarder could end the process (codec_libraries.h).
int imgcache_jpeg_library_load(char *error) { return imgcache_library_load(&library, error); }
