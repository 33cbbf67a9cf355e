// libpng, loaded on first use (library_loader.h says how and why): a warm
// cache hit never decodes or encodes a PNG. A libpng function used from
// Swift or C that is missing here fails the link: add one line below.
#include "library_loader.h"
#include "codec_libraries.h"

#include <png.h>

#if PNG_LIBPNG_VER_SONUM != 16
#error "unknown libpng version: add its soname here"
#endif

#define PNG_FUNCTIONS(F, V, N)                                                                                \
    F(png_infop, png_create_info_struct, (png_const_structrp png), (png))                                     \
    F(png_structp, png_create_read_struct,                                                                    \
      (png_const_charp version, png_voidp error_pointer, png_error_ptr on_error, png_error_ptr on_warning),    \
      (version, error_pointer, on_error, on_warning))                                                         \
    V(void, png_destroy_read_struct, (png_structpp png, png_infopp info, png_infopp end_info), (png, info, end_info)) \
    N(void, png_error, (png_const_structrp png, png_const_charp message), (png, message))                     \
    V(void, png_free, (png_const_structrp png, png_voidp pointer), (png, pointer))                            \
    F(png_uint_32, png_get_image_height, (png_const_structrp png, png_const_inforp info), (png, info))        \
    F(png_uint_32, png_get_image_width, (png_const_structrp png, png_const_inforp info), (png, info))         \
    F(png_byte, png_get_interlace_type, (png_const_structrp png, png_const_inforp info), (png, info))         \
    F(png_voidp, png_get_io_ptr, (png_const_structrp png), (png))                                             \
    F(size_t, png_get_rowbytes, (png_const_structrp png, png_const_inforp info), (png, info))                 \
    F(int, png_image_write_to_memory,                                                                         \
      (png_imagep image, void *memory, png_alloc_size_t *PNG_RESTRICT size, int convert_to_8_bit,             \
       const void *buffer, png_int_32 stride, const void *colormap),                                          \
      (image, memory, size, convert_to_8_bit, buffer, stride, colormap))                                      \
    N(void, png_longjmp, (png_const_structrp png, int value), (png, value))                                   \
    F(png_voidp, png_malloc, (png_const_structrp png, png_alloc_size_t size), (png, size))                    \
    V(void, png_read_end, (png_structrp png, png_inforp info), (png, info))                                   \
    V(void, png_read_image, (png_structrp png, png_bytepp rows), (png, rows))                                 \
    V(void, png_read_info, (png_structrp png, png_inforp info), (png, info))                                  \
    V(void, png_read_row, (png_structrp png, png_bytep row, png_bytep display_row), (png, row, display_row))  \
    V(void, png_read_update_info, (png_structrp png, png_inforp info), (png, info))                           \
    V(void, png_set_add_alpha, (png_structrp png, png_uint_32 filler, int flags), (png, filler, flags))       \
    V(void, png_set_chunk_malloc_max, (png_structrp png, png_alloc_size_t maximum), (png, maximum))           \
    V(void, png_set_expand, (png_structrp png), (png))                                                        \
    V(void, png_set_gray_to_rgb, (png_structrp png), (png))                                                   \
    F(int, png_set_interlace_handling, (png_structrp png), (png))                                             \
    F(jmp_buf *, png_set_longjmp_fn, (png_structrp png, png_longjmp_ptr jump, size_t size), (png, jump, size)) \
    V(void, png_set_read_fn, (png_structrp png, png_voidp io, png_rw_ptr read), (png, io, read))              \
    V(void, png_set_scale_16, (png_structrp png), (png))                                                      \
    V(void, png_set_strip_alpha, (png_structrp png), (png))                                                   \
    V(void, png_set_user_limits, (png_structrp png, png_uint_32 width, png_uint_32 height), (png, width, height))

PNG_FUNCTIONS(IMGCACHE_POINTER, IMGCACHE_POINTER, IMGCACHE_POINTER)
IMGCACHE_SYMBOLS(PNG_FUNCTIONS);
static imgcache_library library =
    IMGCACHE_LIBRARY("libpng16.so.16", "cannot load libpng (install libpng16-16)", "", symbols, NULL);
PNG_FUNCTIONS(IMGCACHE_FORWARD, IMGCACHE_FORWARD_VOID, IMGCACHE_FORWARD_NORETURN)

// Why: a missing library is the error of the image (or store) that needed it,
// reported before the first forwarder could end the process (codec_libraries.h).
int imgcache_png_library_load(char *error) { return imgcache_library_load(&library, error); }
