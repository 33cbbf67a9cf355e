#include "avif_shims.h"

#include "library_loader.h"

// The soname whose ABI the installed header describes: libavif changes its
// structs between major versions, so another one must not be loaded.
#if AVIF_VERSION_MAJOR == 0 && AVIF_VERSION_MINOR == 11
#define AVIF_SONAME "libavif.so.15"
#define AVIF_PACKAGE "libavif15"
#elif AVIF_VERSION_MAJOR == 1
#define AVIF_SONAME "libavif.so.16"
#define AVIF_PACKAGE "libavif16"
#else
#error "unknown libavif version: add its soname here"
#endif

/// The libavif functions imgcache uses.
static struct {
    const char *(*result_to_string)(avifResult);
    avifDecoder *(*decoder_create)(void);
    void (*decoder_destroy)(avifDecoder *);
    avifResult (*decoder_set_io_memory)(avifDecoder *, const uint8_t *, size_t);
    avifResult (*decoder_parse)(avifDecoder *);
    avifResult (*decoder_next_image)(avifDecoder *);
    avifResult (*decoder_nth_image_timing)(const avifDecoder *, uint32_t, avifImageTiming *);
    void (*rgb_image_set_defaults)(avifRGBImage *, const avifImage *);
    avifResult (*image_yuv_to_rgb)(const avifImage *, avifRGBImage *);
    avifImage *(*image_create)(uint32_t, uint32_t, uint32_t, avifPixelFormat);
    void (*image_destroy)(avifImage *);
    avifResult (*image_rgb_to_yuv)(avifImage *, const avifRGBImage *);
    avifEncoder *(*encoder_create)(void);
    void (*encoder_destroy)(avifEncoder *);
    avifResult (*encoder_add_image)(avifEncoder *, const avifImage *, uint64_t, avifAddImageFlags);
    avifResult (*encoder_finish)(avifEncoder *, avifRWData *);
    void (*rw_data_free)(avifRWData *);
#if AVIF_VERSION_MAJOR == 0
    void (*image_set_profile_icc)(avifImage *, const uint8_t *, size_t);
#else
    avifResult (*image_set_profile_icc)(avifImage *, const uint8_t *, size_t);
#endif
} api;

/// What imgcache_avif_load fills in, field by field.
static const imgcache_library_symbol symbols[] = {
    IMGCACHE_SYMBOL(api.result_to_string, "avifResultToString"),
    IMGCACHE_SYMBOL(api.decoder_create, "avifDecoderCreate"),
    IMGCACHE_SYMBOL(api.decoder_destroy, "avifDecoderDestroy"),
    IMGCACHE_SYMBOL(api.decoder_set_io_memory, "avifDecoderSetIOMemory"),
    IMGCACHE_SYMBOL(api.decoder_parse, "avifDecoderParse"),
    IMGCACHE_SYMBOL(api.decoder_next_image, "avifDecoderNextImage"),
    IMGCACHE_SYMBOL(api.decoder_nth_image_timing, "avifDecoderNthImageTiming"),
    IMGCACHE_SYMBOL(api.rgb_image_set_defaults, "avifRGBImageSetDefaults"),
    IMGCACHE_SYMBOL(api.image_yuv_to_rgb, "avifImageYUVToRGB"),
    IMGCACHE_SYMBOL(api.image_create, "avifImageCreate"),
    IMGCACHE_SYMBOL(api.image_destroy, "avifImageDestroy"),
    IMGCACHE_SYMBOL(api.image_rgb_to_yuv, "avifImageRGBToYUV"),
    IMGCACHE_SYMBOL(api.encoder_create, "avifEncoderCreate"),
    IMGCACHE_SYMBOL(api.encoder_destroy, "avifEncoderDestroy"),
    IMGCACHE_SYMBOL(api.encoder_add_image, "avifEncoderAddImage"),
    IMGCACHE_SYMBOL(api.encoder_finish, "avifEncoderFinish"),
    IMGCACHE_SYMBOL(api.rw_data_free, "avifRWDataFree"),
    IMGCACHE_SYMBOL(api.image_set_profile_icc, "avifImageSetProfileICC"),
};

static imgcache_library library =
    IMGCACHE_LIBRARY(AVIF_SONAME, "cannot load libavif (install " AVIF_PACKAGE ")", "", symbols, NULL);

const char *imgcache_avif_soname(void) { return AVIF_SONAME; }

int imgcache_avif_load(char *error) { return imgcache_library_load(&library, error); }

const char *imgcache_avif_result_to_string(avifResult result) { return api.result_to_string(result); }
avifDecoder *imgcache_avif_decoder_create(void) { return api.decoder_create(); }
void imgcache_avif_decoder_destroy(avifDecoder *decoder) { api.decoder_destroy(decoder); }
avifResult imgcache_avif_decoder_set_io_memory(avifDecoder *decoder, const uint8_t *data, size_t size) {
    return api.decoder_set_io_memory(decoder, data, size);
}
avifResult imgcache_avif_decoder_parse(avifDecoder *decoder) { return api.decoder_parse(decoder); }
avifResult imgcache_avif_decoder_next_image(avifDecoder *decoder) { return api.decoder_next_image(decoder); }
avifResult imgcache_avif_decoder_nth_image_timing(const avifDecoder *decoder, uint32_t frame, avifImageTiming *timing) {
    return api.decoder_nth_image_timing(decoder, frame, timing);
}
void imgcache_avif_rgb_image_set_defaults(avifRGBImage *rgb, const avifImage *image) {
    api.rgb_image_set_defaults(rgb, image);
}
avifResult imgcache_avif_image_yuv_to_rgb(const avifImage *image, avifRGBImage *rgb) {
    return api.image_yuv_to_rgb(image, rgb);
}
avifImage *imgcache_avif_image_create(uint32_t width, uint32_t height, uint32_t depth, avifPixelFormat format) {
    return api.image_create(width, height, depth, format);
}
void imgcache_avif_image_destroy(avifImage *image) { api.image_destroy(image); }
avifResult imgcache_avif_image_rgb_to_yuv(avifImage *image, const avifRGBImage *rgb) {
    return api.image_rgb_to_yuv(image, rgb);
}
avifEncoder *imgcache_avif_encoder_create(void) { return api.encoder_create(); }
void imgcache_avif_encoder_destroy(avifEncoder *encoder) { api.encoder_destroy(encoder); }
avifResult imgcache_avif_encoder_add_image(avifEncoder *encoder, const avifImage *image, uint64_t duration,
                                           avifAddImageFlags flags) {
    return api.encoder_add_image(encoder, image, duration, flags);
}
avifResult imgcache_avif_encoder_finish(avifEncoder *encoder, avifRWData *output) {
    return api.encoder_finish(encoder, output);
}
void imgcache_avif_rw_data_free(avifRWData *data) { api.rw_data_free(data); }

int imgcache_avif_image_set_profile_icc(avifImage *image, const uint8_t *icc, size_t size) {
#if AVIF_VERSION_MAJOR == 0
    // libavif 0.11 returns nothing; it aborts on allocation failure.
    api.image_set_profile_icc(image, icc, size);
    return 0;
#else
    return api.image_set_profile_icc(image, icc, size) == AVIF_RESULT_OK ? 0 : -1;
#endif
}
