// libwebpdemux (animated WebP, chunks), loaded on first use: see webp_library.c.
#include "library_loader.h"
#include "codec_libraries.h"

// The header would declare each function visible; ours are hidden (library_loader.h).
#define WEBP_EXTERN extern
#include <webp/demux.h>

#define WEBPDEMUX_FUNCTIONS(F, V, N)                                                                          \
    V(void, WebPAnimDecoderDelete, (WebPAnimDecoder * decoder), (decoder))                                    \
    F(int, WebPAnimDecoderGetNext, (WebPAnimDecoder * decoder, uint8_t **buffer, int *timestamp),             \
      (decoder, buffer, timestamp))                                                                           \
    F(int, WebPAnimDecoderHasMoreFrames, (const WebPAnimDecoder *decoder), (decoder))                         \
    F(WebPAnimDecoder *, WebPAnimDecoderNewInternal,                                                          \
      (const WebPData *data, const WebPAnimDecoderOptions *options, int version), (data, options, version))   \
    F(int, WebPAnimDecoderOptionsInitInternal, (WebPAnimDecoderOptions * options, int version),               \
      (options, version))                                                                                     \
    V(void, WebPDemuxDelete, (WebPDemuxer * demuxer), (demuxer))                                              \
    F(int, WebPDemuxGetFrame, (const WebPDemuxer *demuxer, int frame, WebPIterator *iterator),                \
      (demuxer, frame, iterator))                                                                             \
    F(int, WebPDemuxGetChunk,                                                                                 \
      (const WebPDemuxer *demuxer, const char fourcc[4], int number, WebPChunkIterator *iterator),            \
      (demuxer, fourcc, number, iterator))                                                                    \
    F(uint32_t, WebPDemuxGetI, (const WebPDemuxer *demuxer, WebPFormatFeature feature), (demuxer, feature))   \
    F(WebPDemuxer *, WebPDemuxInternal,                                                                       \
      (const WebPData *data, int partial, WebPDemuxState *state, int version), (data, partial, state, version)) \
    V(void, WebPDemuxReleaseChunkIterator, (WebPChunkIterator * iterator), (iterator))                        \
    V(void, WebPDemuxReleaseIterator, (WebPIterator * iterator), (iterator))

WEBPDEMUX_FUNCTIONS(IMGCACHE_POINTER, IMGCACHE_POINTER, IMGCACHE_POINTER)
IMGCACHE_SYMBOLS(WEBPDEMUX_FUNCTIONS);
static imgcache_library library =
    IMGCACHE_LIBRARY("libwebpdemux.so.2", "cannot load libwebpdemux (install libwebpdemux2)", "", symbols, NULL);
WEBPDEMUX_FUNCTIONS(IMGCACHE_FORWARD, IMGCACHE_FORWARD_VOID, IMGCACHE_FORWARD_NORETURN)

// Why: a missing library is the error of the image (or store) that needed it,
// reported before the first forwarder could end the process (codec_libraries.h).
int imgcache_webpdemux_library_load(char *error) { return imgcache_library_load(&library, error); }
