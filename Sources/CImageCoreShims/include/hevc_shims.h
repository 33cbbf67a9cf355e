#ifndef IMGCACHE_HEVC_SHIMS_H
#define IMGCACHE_HEVC_SHIMS_H

#include <stddef.h>
#include <stdint.h>

// Why libde265 is called directly, beside libheif: libheif 1.15's
// heif_decode_image converts every picture to RGB at full size
// (decode_image_planar), so a HEIC thumbnail would pay for 12 million RGB
// pixels to keep 0.8 million. Fed the item's HEVC stream itself, libde265
// hands over its Y, Cb and Cr planes, which are shrunk first and converted
// to RGB at the thumbnail's size (HEIFDecoder). Loaded with dlopen on first
// use, like libheif, and through the same loader; no libde265 type crosses
// this header.

/// One libde265 decoder context (de265_decoder_context).
typedef struct imgcache_hevc_decoder imgcache_hevc_decoder;

/// The picture libde265 decoded, owned by the decoder and valid until
/// imgcache_hevc_free: planes 0, 1, 2 (Y, Cb, Cr; only 0 for monochrome).
typedef struct {
    const uint8_t *planes[3];
    int strides[3];
    int widths[3];
    int heights[3];
    /// Sample depth of each plane (de265_get_bits_per_pixel).
    int bits[3];
    /// 0 monochrome, 1 4:2:0, 2 4:2:2, 3 4:4:4 (enum de265_chroma).
    int chroma;
    /// The SPS's VUI: matrix_coeffs (2, unspecified, when absent) and video_full_range_flag (0 when absent).
    int matrix_coefficients;
    int full_range;
} imgcache_hevc_picture;

/// Loads libde265.so.0 and resolves every function used (imgcache_library_load).
/// Returns 0, or -1 with a message in `error` (at least 256 bytes).
int imgcache_hevc_load(char *error);

/// A new decoder that decodes on the calling thread (no worker threads);
/// NULL if out of memory. The corresponding C function is `de265_new_decoder`.
imgcache_hevc_decoder *imgcache_hevc_new(void);
/// The corresponding C function is `de265_free_decoder`.
void imgcache_hevc_free(imgcache_hevc_decoder *decoder);
/// Gives the decoder `threads` worker threads, joined by imgcache_hevc_free:
/// libde265 then decodes a picture's rows of CTBs in parallel where the
/// stream's PPS allows it (entropy_coding_sync_enabled_flag: wavefronts; or
/// tiles), the calling thread waiting.
/// Returns 0, or -1 if they could not be started: libde265 1.0.x never says
/// so, so a thread is started and joined first, and -1 returned if it cannot
/// be. The corresponding C function is `de265_start_worker_threads`.
int imgcache_hevc_start_threads(imgcache_hevc_decoder *decoder, int threads);
/// One NAL unit, without start code or length prefix. Returns 0, or -1 when
/// libde265 refuses it. The corresponding C function is `de265_push_NAL`.
int imgcache_hevc_push(imgcache_hevc_decoder *decoder, const uint8_t *nal, int length);
/// Ends the stream and decodes until the first picture comes out. Returns 0
/// with `picture` filled in; -1 when libde265 reported an error or a
/// warning (a damaged stream) or no picture came out, with its text in
/// `error` (at least 256 bytes). The corresponding C functions are
/// `de265_flush_data`, `de265_decode`, `de265_get_next_picture`, `de265_get_warning`.
int imgcache_hevc_decode(imgcache_hevc_decoder *decoder, imgcache_hevc_picture *picture, char *error);

/// The threads a HEIC grid's tiles may be decoded on, starting now: the
/// CPUs the process may use (sched_getaffinity) shared with the other
/// decodes using threads (JPEG XL's pools, other grids), or what
/// IMGCACHE_HEIC_THREADS says (1 to 64). When more than 1, counted among
/// the busy decodes until imgcache_hevc_workers_end(workers).
size_t imgcache_hevc_workers_begin(void);
/// Ends the count of imgcache_hevc_workers_begin, which returned `workers`.
void imgcache_hevc_workers_end(size_t workers);

#endif
