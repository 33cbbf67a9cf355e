#include "CImageCoreShims.h"

#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
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

struct imgcache_png {
    memory_reader reader;
    png_structp png;
    png_infop info;
    char message[200];
};

imgcache_png *imgcache_png_open(const uint8_t *data, size_t size, imgcache_png_info *out) {
    imgcache_png *stream = calloc(1, sizeof(imgcache_png));
    if (!stream) {
        return NULL;
    }
    stream->reader = (memory_reader){data, size, 0, stream->message};
    stream->png = create_reader(&stream->reader, &stream->info);
    if (!stream->png) {
        snprintf(stream->message, sizeof stream->message, "out of memory");
        return stream;
    }
    if (setjmp(png_jmpbuf(stream->png))) {
        return stream;
    }
    png_read_info(stream->png, stream->info);
    out->width = png_get_image_width(stream->png, stream->info);
    out->height = png_get_image_height(stream->png, stream->info);
    out->interlaced = png_get_interlace_type(stream->png, stream->info) != PNG_INTERLACE_NONE;
    stream->message[0] = 0;
    return stream;
}

const char *imgcache_png_error(const imgcache_png *stream) {
    return stream->message[0] ? stream->message : NULL;
}

int imgcache_png_start_rows(imgcache_png *stream, int channels) {
    png_structp png = stream->png;
    if (setjmp(png_jmpbuf(png))) {
        return -1;
    }
    // The transformations of imgcache_png_decode_rgba8; for RGB, alpha
    // (and tRNS, once expanded) is dropped, not blended, as pngtopnm does.
    png_set_expand(png);
    png_set_scale_16(png);
    png_set_gray_to_rgb(png);
    if (channels == 4) {
        png_set_add_alpha(png, 0xff, PNG_FILLER_AFTER);
    } else {
        png_set_strip_alpha(png);
    }
    png_read_update_info(png, stream->info);
    if (png_get_rowbytes(png, stream->info) != (size_t)png_get_image_width(png, stream->info) * channels) {
        png_error(png, "unexpected row layout");
    }
    return 0;
}

int imgcache_png_read_rows(imgcache_png *stream, uint8_t *rows, size_t stride, int count) {
    png_structp png = stream->png;
    if (setjmp(png_jmpbuf(png))) {
        return -1;
    }
    for (int row = 0; row < count; row++) {
        png_read_row(png, rows + (size_t)row * stride, NULL);
    }
    return 0;
}

int imgcache_png_finish(imgcache_png *stream) {
    if (setjmp(png_jmpbuf(stream->png))) {
        return -1;
    }
    png_read_end(stream->png, NULL);
    return 0;
}

void imgcache_png_close(imgcache_png *stream) {
    if (!stream) {
        return;
    }
    if (stream->png) {
        png_destroy_read_struct(&stream->png, &stream->info, NULL);
    }
    free(stream);
}
