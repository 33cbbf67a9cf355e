#ifndef IMGCACHE_JPEG_H
#define IMGCACHE_JPEG_H

#include <stddef.h>
#include <stdint.h>

// Why: libjpeg reports errors by longjmp out of its error manager. These
// functions each set their own setjmp point, so a longjmp only ever unwinds C
// frames; Swift sees a return code and the message from imgcache_jpeg_error.
// Every libjpeg call (jpeg_read_header, jpeg_start_decompress,
// jpeg_read_scanlines, jpeg_finish_decompress, jpeg_compress) lives in
// jpeg_shims.c.

/// The offset of the first marker at or after `start` in a scan's
/// entropy-coded data: a 0xFF followed by any byte but 0x00 (a stuffed
/// 0xFF), 0xD0-0xD7 (a restart marker) or 0xFF (a fill byte); `size` if
/// none. Reads no byte at or past `size`; calls no libjpeg function
/// (jpeg_scan.c: vectors, AVX2 where the CPU has it).
size_t imgcache_jpeg_entropy_end(const uint8_t *bytes, size_t size, size_t start);

/// A decompressor over one memory buffer (jpeg_decompress_struct).
typedef struct imgcache_jpeg imgcache_jpeg;

/// What jpeg_read_header found.
typedef struct {
    uint32_t width;
    uint32_t height;
    /// Components in the file (1 gray, 3 YCbCr or RGB, 4 CMYK or YCCK).
    int components;
    /// CMYK or YCCK: decoded to CMYK and converted as djpeg does.
    int is_cmyk;
    /// The data of the first APP1 segment starting "Exif\0\0" (the prefix
    /// included) before the first scan, or NULL: it points into the bytes
    /// given to imgcache_jpeg_read_header, valid while they are.
    const uint8_t *exif;
    size_t exif_size;
    /// An Adobe APP14 marker was seen: CMYK is stored inverted (0 = full ink).
    int adobe;
} imgcache_jpeg_header;

/// A decompressor, or NULL when out of memory.
imgcache_jpeg *imgcache_jpeg_create(void);
/// Frees everything, whatever state the decompressor is in (jpeg_destroy_decompress).
void imgcache_jpeg_close(imgcache_jpeg *jpeg);
/// libjpeg's message for the last failure.
const char *imgcache_jpeg_error(const imgcache_jpeg *jpeg);

/// Reads the header from `data` (which must stay valid until close), saving
/// APP1 segments. Returns 0, or -1 (see imgcache_jpeg_error).
int imgcache_jpeg_read_header(imgcache_jpeg *jpeg, const uint8_t *data, size_t size, imgcache_jpeg_header *header);

/// Starts decompression at `scale_eighths`/8 of full size (1...16) into
/// `channels` bytes per pixel: 3 (RGB) or 4 (RGBA, alpha 255). Writes the
/// output size. Decoding fails once a scan beyond `max_scans` is reached.
/// Returns 0 or -1.
int imgcache_jpeg_start(imgcache_jpeg *jpeg, int scale_eighths, int channels, int max_scans, uint32_t *width,
                        uint32_t *height);

/// Call before imgcache_jpeg_start: a CMYK or YCCK image then comes out as
/// CMYK, 4 bytes a pixel (whatever `channels` says), for conversion through
/// its ICC profile, instead of djpeg's formula.
void imgcache_jpeg_keep_cmyk(imgcache_jpeg *jpeg);

/// Decodes up to `max_rows` rows into `rows` (`stride` bytes apart). Returns
/// the rows written (0 at the end), or -1 on an error, including a
/// premature end of data (libjpeg's other warnings are accepted).
int imgcache_jpeg_read_rows(imgcache_jpeg *jpeg, uint8_t *rows, size_t stride, int max_rows);

/// Reads to the end of the image (jpeg_finish_decompress). Returns 0 or -1.
int imgcache_jpeg_finish(imgcache_jpeg *jpeg);

/// Encodes `height` rows of RGBA (`width * 4` bytes each, alpha ignored) as
/// baseline JPEG, 4:2:0, at `quality` (1...100). On success returns 0 and a
/// malloc'ed buffer in `*out` (free it with free()); otherwise -1 with the
/// message in `error` (at least 200 bytes).
int imgcache_jpeg_encode_rgba(const uint8_t *pixels, uint32_t width, uint32_t height, int quality,
                              uint8_t **out, size_t *out_size, char *error);

#endif
