// libwebpmux (animated WebP encoding, ICC chunks), loaded on first use: see webp_library.c.
#include "library_loader.h"
#include "codec_libraries.h"

// The header would declare each function visible; ours are hidden (library_loader.h).
#define WEBP_EXTERN extern
#include <webp/mux.h>

#define WEBPMUX_FUNCTIONS(F, V, N)                                                                            \
    F(int, WebPAnimEncoderAdd,                                                                                \
      (WebPAnimEncoder * encoder, struct WebPPicture * frame, int timestamp, const struct WebPConfig *config), \
      (encoder, frame, timestamp, config))                                                                    \
    F(int, WebPAnimEncoderAssemble, (WebPAnimEncoder * encoder, WebPData * data), (encoder, data))            \
    V(void, WebPAnimEncoderDelete, (WebPAnimEncoder * encoder), (encoder))                                    \
    F(const char *, WebPAnimEncoderGetError, (WebPAnimEncoder * encoder), (encoder))                          \
    F(WebPAnimEncoder *, WebPAnimEncoderNewInternal,                                                          \
      (int width, int height, const WebPAnimEncoderOptions *options, int version),                            \
      (width, height, options, version))                                                                      \
    F(int, WebPAnimEncoderOptionsInitInternal, (WebPAnimEncoderOptions * options, int version),               \
      (options, version))                                                                                     \
    F(WebPMuxError, WebPMuxAssemble, (WebPMux * mux, WebPData * data), (mux, data))                           \
    F(WebPMux *, WebPMuxCreateInternal, (const WebPData *data, int copy, int version), (data, copy, version))  \
    V(void, WebPMuxDelete, (WebPMux * mux), (mux))                                                            \
    F(WebPMuxError, WebPMuxSetChunk, (WebPMux * mux, const char fourcc[4], const WebPData *data, int copy),   \
      (mux, fourcc, data, copy))

WEBPMUX_FUNCTIONS(IMGCACHE_POINTER, IMGCACHE_POINTER, IMGCACHE_POINTER)
IMGCACHE_SYMBOLS(WEBPMUX_FUNCTIONS);
static imgcache_library library =
    IMGCACHE_LIBRARY("libwebpmux.so.3", "cannot load libwebpmux (install libwebpmux3)", "", symbols, NULL);
WEBPMUX_FUNCTIONS(IMGCACHE_FORWARD, IMGCACHE_FORWARD_VOID, IMGCACHE_FORWARD_NORETURN)

// Why: a missing library is the error of the image (or store) that needed it,
// reported before the first forwarder could end the process (codec_libraries.h).
int imgcache_webpmux_library_load(char *error) { return imgcache_library_load(&library, error); }
