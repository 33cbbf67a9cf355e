// libwebp, loaded on first use (library_loader.h says how and why): a warm
// cache hit never decodes or encodes a WebP. A libwebp function used from
// Swift that is missing here fails the link: add one line below (the
// header's inline WebPConfigInit and friends call the ...Internal ones).
#include "library_loader.h"
#include "codec_libraries.h"

// The header would declare each function visible; ours are hidden (library_loader.h).
#define WEBP_EXTERN extern
#include <webp/decode.h>
#include <webp/encode.h>

#define WEBP_FUNCTIONS(F, V, N)                                                                               \
    F(int, WebPConfigInitInternal, (WebPConfig * config, WebPPreset preset, float quality, int version),      \
      (config, preset, quality, version))                                                                     \
    F(VP8StatusCode, WebPDecode, (const uint8_t *data, size_t size, WebPDecoderConfig *config),               \
      (data, size, config))                                                                                   \
    F(uint8_t *, WebPDecodeRGBAInto,                                                                          \
      (const uint8_t *data, size_t size, uint8_t *output, size_t output_size, int stride),                    \
      (data, size, output, output_size, stride))                                                              \
    F(size_t, WebPEncodeLosslessRGBA,                                                                         \
      (const uint8_t *rgba, int width, int height, int stride, uint8_t **output),                             \
      (rgba, width, height, stride, output))                                                                  \
    F(size_t, WebPEncodeRGBA,                                                                                 \
      (const uint8_t *rgba, int width, int height, int stride, float quality, uint8_t **output),              \
      (rgba, width, height, stride, quality, output))                                                         \
    V(void, WebPFree, (void *pointer), (pointer))                                                             \
    F(uint8_t *, WebPIDecGetRGB, (const WebPIDecoder *decoder, int *last_y, int *width, int *height, int *stride), \
      (decoder, last_y, width, height, stride))                                                               \
    V(void, WebPIDelete, (WebPIDecoder * decoder), (decoder))                                                 \
    F(WebPIDecoder *, WebPINewRGB, (WEBP_CSP_MODE mode, uint8_t *output, size_t output_size, int stride),     \
      (mode, output, output_size, stride))                                                                    \
    F(VP8StatusCode, WebPIUpdate, (WebPIDecoder * decoder, const uint8_t *data, size_t size),                 \
      (decoder, data, size))                                                                                  \
    F(int, WebPInitDecoderConfigInternal, (WebPDecoderConfig * config, int version), (config, version))       \
    V(void, WebPPictureFree, (WebPPicture * picture), (picture))                                              \
    F(int, WebPPictureImportRGBA, (WebPPicture * picture, const uint8_t *rgba, int stride),                   \
      (picture, rgba, stride))                                                                                \
    F(int, WebPPictureInitInternal, (WebPPicture * picture, int version), (picture, version))

WEBP_FUNCTIONS(IMGCACHE_POINTER, IMGCACHE_POINTER, IMGCACHE_POINTER)
IMGCACHE_SYMBOLS(WEBP_FUNCTIONS);
static imgcache_library library =
    IMGCACHE_LIBRARY("libwebp.so.7", "cannot load libwebp (install libwebp7)", "", symbols, NULL);
WEBP_FUNCTIONS(IMGCACHE_FORWARD, IMGCACHE_FORWARD_VOID, IMGCACHE_FORWARD_NORETURN)

// Why: a missing library is the error of the image (or store) that needed it,
// reported before the first forwarder could end the process (codec_libraries.h).
int imgcache_webp_library_load(char *error) { return imgcache_library_load(&library, error); }
