#ifndef IMGCACHE_AVIF_SHIMS_H
#define IMGCACHE_AVIF_SHIMS_H

#include <avif/avif.h>

// Why libavif is loaded with dlopen: it links every AV1 codec Debian ships
// (dav1d, libgav1, rav1e, SVT-AV1, libaom) plus abseil, about 25 shared
// libraries whose loading would cost every process start, a warm cache hit
// included. Only a process that decodes or encodes an AVIF loads it, through
// this table of functions, each with libavif's own signature.

/// Loads the libavif whose ABI matches the header we were built with and
/// resolves every function used. Returns 0, or -1 with a message in `error`
/// (at least 256 bytes). Safe to call from several threads: the first call
/// loads, later ones return its result.
int imgcache_avif_load(char *error);

/// The soname imgcache_avif_load opens, for asking whether it is installed without loading it.
const char *imgcache_avif_soname(void);

const char *imgcache_avif_result_to_string(avifResult result);
avifDecoder *imgcache_avif_decoder_create(void);
void imgcache_avif_decoder_destroy(avifDecoder *decoder);
avifResult imgcache_avif_decoder_set_io_memory(avifDecoder *decoder, const uint8_t *data, size_t size);
avifResult imgcache_avif_decoder_parse(avifDecoder *decoder);
avifResult imgcache_avif_decoder_next_image(avifDecoder *decoder);
/// A frame's timing from the parsed container, without decoding it.
avifResult imgcache_avif_decoder_nth_image_timing(const avifDecoder *decoder, uint32_t frame, avifImageTiming *timing);
void imgcache_avif_rgb_image_set_defaults(avifRGBImage *rgb, const avifImage *image);
avifResult imgcache_avif_image_yuv_to_rgb(const avifImage *image, avifRGBImage *rgb);
avifImage *imgcache_avif_image_create(uint32_t width, uint32_t height, uint32_t depth, avifPixelFormat format);
void imgcache_avif_image_destroy(avifImage *image);
avifResult imgcache_avif_image_rgb_to_yuv(avifImage *image, const avifRGBImage *rgb);
avifEncoder *imgcache_avif_encoder_create(void);
void imgcache_avif_encoder_destroy(avifEncoder *encoder);
avifResult imgcache_avif_encoder_add_image(avifEncoder *encoder, const avifImage *image, uint64_t duration,
                                           avifAddImageFlags flags);
avifResult imgcache_avif_encoder_finish(avifEncoder *encoder, avifRWData *output);
void imgcache_avif_rw_data_free(avifRWData *data);
/// Copies `size` bytes of ICC profile into `image` (avifImageSetProfileICC). Returns 0, or -1 out of memory.
int imgcache_avif_image_set_profile_icc(avifImage *image, const uint8_t *icc, size_t size);

#endif
