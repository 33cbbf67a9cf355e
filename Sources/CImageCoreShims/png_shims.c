#include "CImageCoreShims.h"

#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

/// Reads from a memory buffer; running past its end is a libpng error, so a
/// truncated file fails cleanly instead of reading out of bounds.
typedef struct {
    const uint8_t *data;
    size_t size;
    size_t offset;
    char *error;
} memory_reader;

static void read_from_memory(png_structp png, png_bytep out, png_size_t length) {
    memory_reader *reader = png_get_io_ptr(png);
    if (length > reader->size - reader->offset) {
        png_error(png, "unexpected end of file");
    }
    memcpy(out, reader->data + reader->offset, length);
    reader->offset += length;
}

static void on_error(png_structp png, png_const_charp message) {
    memory_reader *reader = png_get_io_ptr(png);
    if (reader && reader->error) {
        snprintf(reader->error, 200, "%s", message);
    }
    png_longjmp(png, 1);
}

// Warnings (an sRGB profile libpng dislikes, say) do not stop decoding and must
// not reach the user's stderr.
static void on_warning(png_structp png, png_const_charp message) {
    (void)png;
    (void)message;
}

/// Creates the read struct with our handlers; NULL when libpng is out of memory.
static png_structp create_reader(memory_reader *reader, png_infop *info) {
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, on_error, on_warning);
    if (!png) {
        return NULL;
    }
    *info = png_create_info_struct(png);
    if (!*info) {
        png_destroy_read_struct(&png, NULL, NULL);
        return NULL;
    }
    png_set_read_fn(png, reader, read_from_memory);
    // The caller enforces its own pixel limit before decoding; this only
    // lifts libpng's smaller default per-side cap of 1,000,000.
    png_set_user_limits(png, 0x7fffffff, 0x7fffffff);
    // Ancillary chunks may be large (iCCP, text); bound what one may allocate.
    png_set_chunk_malloc_max(png, 64 * 1024 * 1024);
    return png;
}

int imgcache_png_read_info(const uint8_t *data, size_t size, imgcache_png_info *out, char *error) {
    memory_reader reader = {data, size, 0, error};
    png_infop info = NULL;
    png_structp png = create_reader(&reader, &info);
    if (!png) {
        snprintf(error, 200, "out of memory");
        return -1;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, NULL);
        return -1;
    }
    png_read_info(png, info);
    out->width = png_get_image_width(png, info);
    out->height = png_get_image_height(png, info);
    out->bit_depth = png_get_bit_depth(png, info);
    out->color_type = png_get_color_type(png, info);
    out->interlaced = png_get_interlace_type(png, info) != PNG_INTERLACE_NONE;
    png_destroy_read_struct(&png, &info, NULL);
    return 0;
}

int imgcache_png_decode_rgba8(const uint8_t *data, size_t size, uint8_t *pixels, size_t pixels_size, char *error) {
    memory_reader reader = {data, size, 0, error};
    png_infop info = NULL;
    png_structp png = create_reader(&reader, &info);
    if (!png) {
        snprintf(error, 200, "out of memory");
        return -1;
    }
    // Declared volatile: it is assigned after setjmp and read after a longjmp.
    png_bytep *volatile rows = NULL;
    if (setjmp(png_jmpbuf(png))) {
        png_free(png, rows);
        png_destroy_read_struct(&png, &info, NULL);
        return -1;
    }
    png_read_info(png, info);
    png_uint_32 width = png_get_image_width(png, info);
    png_uint_32 height = png_get_image_height(png, info);
    if ((size_t)width * height * 4 > pixels_size) {
        png_error(png, "pixel buffer too small");
    }
    // The same transformations pngtopam -alphapam | pamdepth 255 applies.
    png_set_expand(png);
    png_set_scale_16(png);
    png_set_gray_to_rgb(png);
    png_set_add_alpha(png, 0xff, PNG_FILLER_AFTER);
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
    if (png_get_rowbytes(png, info) != (size_t)width * 4) {
        png_error(png, "unexpected row layout");
    }
    rows = png_malloc(png, sizeof(png_bytep) * height);
    for (png_uint_32 y = 0; y < height; y++) {
        rows[y] = pixels + (size_t)y * width * 4;
    }
    png_read_image(png, rows);
    png_read_end(png, NULL);
    png_free(png, rows);
    png_destroy_read_struct(&png, &info, NULL);
    return 0;
}
