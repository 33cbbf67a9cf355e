#include "hevc_shims.h"

#include <libde265/de265.h>
#include <pthread.h>
#include <stdio.h>

#include "decoding_threads.h"
#include "library_loader.h"

// The soname whose ABI the installed header describes (libde265 keeps its
// C ABI within 1.x; the VUI getters came in 1.0.7, which libheif-dev requires).
#if LIBDE265_NUMERIC_VERSION >= 0x01000700 && LIBDE265_NUMERIC_VERSION < 0x02000000
#define DE265_SONAME "libde265.so.0"
#else
#error "unknown libde265 version: add its soname here"
#endif

/// The libde265 functions imgcache uses.
static struct {
    de265_decoder_context *(*new_decoder)(void);
    de265_error (*free_decoder)(de265_decoder_context *);
    de265_error (*start_worker_threads)(de265_decoder_context *, int);
    de265_error (*push_NAL)(de265_decoder_context *, const void *, int, de265_PTS, void *);
    de265_error (*flush_data)(de265_decoder_context *);
    de265_error (*decode)(de265_decoder_context *, int *);
    const struct de265_image *(*get_next_picture)(de265_decoder_context *);
    de265_error (*get_warning)(de265_decoder_context *);
    const char *(*get_error_text)(de265_error);
    int (*get_image_width)(const struct de265_image *, int);
    int (*get_image_height)(const struct de265_image *, int);
    enum de265_chroma (*get_chroma_format)(const struct de265_image *);
    int (*get_bits_per_pixel)(const struct de265_image *, int);
    const uint8_t *(*get_image_plane)(const struct de265_image *, int, int *);
    int (*get_image_full_range_flag)(const struct de265_image *);
    int (*get_image_matrix_coefficients)(const struct de265_image *);
} api;

static const imgcache_library_symbol symbols[] = {
    IMGCACHE_SYMBOL(api.new_decoder, "de265_new_decoder"),
    IMGCACHE_SYMBOL(api.free_decoder, "de265_free_decoder"),
    IMGCACHE_SYMBOL(api.start_worker_threads, "de265_start_worker_threads"),
    IMGCACHE_SYMBOL(api.push_NAL, "de265_push_NAL"),
    IMGCACHE_SYMBOL(api.flush_data, "de265_flush_data"),
    IMGCACHE_SYMBOL(api.decode, "de265_decode"),
    IMGCACHE_SYMBOL(api.get_next_picture, "de265_get_next_picture"),
    IMGCACHE_SYMBOL(api.get_warning, "de265_get_warning"),
    IMGCACHE_SYMBOL(api.get_error_text, "de265_get_error_text"),
    IMGCACHE_SYMBOL(api.get_image_width, "de265_get_image_width"),
    IMGCACHE_SYMBOL(api.get_image_height, "de265_get_image_height"),
    IMGCACHE_SYMBOL(api.get_chroma_format, "de265_get_chroma_format"),
    IMGCACHE_SYMBOL(api.get_bits_per_pixel, "de265_get_bits_per_pixel"),
    IMGCACHE_SYMBOL(api.get_image_plane, "de265_get_image_plane"),
    IMGCACHE_SYMBOL(api.get_image_full_range_flag, "de265_get_image_full_range_flag"),
    IMGCACHE_SYMBOL(api.get_image_matrix_coefficients, "de265_get_image_matrix_coefficients"),
};

static imgcache_library library =
    IMGCACHE_LIBRARY(DE265_SONAME, "cannot load libde265 (install libde265-0)", " (libde265 1.0.7 or later)",
                     symbols, NULL);

int imgcache_hevc_load(char *error) { return imgcache_library_load(&library, error); }

imgcache_hevc_decoder *imgcache_hevc_new(void) { return (imgcache_hevc_decoder *)api.new_decoder(); }

void imgcache_hevc_free(imgcache_hevc_decoder *decoder) { (void)api.free_decoder((de265_decoder_context *)decoder); }

static void *imgcache_hevc_no_work(void *unused) { return unused; }

int imgcache_hevc_start_threads(imgcache_hevc_decoder *decoder, int threads) {
    // Why a thread is started and joined first: libde265 1.0.x says DE265_OK
    // whatever pthread_create answers (decoder_context::start_thread_pool
    // drops start_thread_pool's error), and with no worker started it waits
    // for its rows of CTBs forever. A thread this process cannot start now
    // (a pids or thread limit reached) is one libde265 could not start either.
    pthread_t probe;
    if (pthread_create(&probe, NULL, imgcache_hevc_no_work, NULL) != 0) return -1;
    pthread_join(probe, NULL);
    return api.start_worker_threads((de265_decoder_context *)decoder, threads) == DE265_OK ? 0 : -1;
}

int imgcache_hevc_push(imgcache_hevc_decoder *decoder, const uint8_t *nal, int length) {
    return api.push_NAL((de265_decoder_context *)decoder, nal, length, 0, NULL) == DE265_OK ? 0 : -1;
}

int imgcache_hevc_decode(imgcache_hevc_decoder *decoder, imgcache_hevc_picture *picture, char *error) {
    de265_decoder_context *context = (de265_decoder_context *)decoder;
    de265_error result = api.flush_data(context);
    const struct de265_image *image = NULL;
    int more = 1;
    while (result == DE265_OK && !image && more) {
        more = 0;
        result = api.decode(context, &more);
        image = api.get_next_picture(context);
    }
    // Why warnings fail too: libde265 outputs a damaged picture with only a
    // warning queued; the caller then lets libheif decide, as before.
    de265_error warning = api.get_warning(context);
    if (result != DE265_OK || warning != DE265_OK || !image) {
        de265_error reported = result != DE265_OK ? result : warning;
        snprintf(error, 256, "%s", reported != DE265_OK ? api.get_error_text(reported) : "no picture decoded");
        return -1;
    }
    picture->chroma = (int)api.get_chroma_format(image);
    int planes = picture->chroma == de265_chroma_mono ? 1 : 3;
    for (int channel = 0; channel < 3; channel++) {
        picture->planes[channel] = NULL;
        picture->strides[channel] = picture->widths[channel] = picture->heights[channel] = 0;
        picture->bits[channel] = 0;
        if (channel >= planes) continue;
        picture->planes[channel] = api.get_image_plane(image, channel, &picture->strides[channel]);
        picture->widths[channel] = api.get_image_width(image, channel);
        picture->heights[channel] = api.get_image_height(image, channel);
        picture->bits[channel] = api.get_bits_per_pixel(image, channel);
    }
    picture->matrix_coefficients = api.get_image_matrix_coefficients(image);
    picture->full_range = api.get_image_full_range_flag(image);
    return 0;
}

size_t imgcache_hevc_workers_begin(void) { return imgcache_decoding_threads_begin("IMGCACHE_HEIC_THREADS"); }

void imgcache_hevc_workers_end(size_t workers) { imgcache_decoding_threads_end(workers); }
