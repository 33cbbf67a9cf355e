#include "jxl_shims.h"

#include <jxl/thread_parallel_runner.h>
#include <jxl/version.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "decoding_threads.h"
#include "library_loader.h"

// The soname whose ABI the installed header describes: before 1.0 every
// minor version is its own soname (libjxl.so.0.7), so another must not be loaded.
#define STRINGIFY(x) #x
#define VERSION_TEXT(x) STRINGIFY(x)
#if JPEGXL_MAJOR_VERSION == 0
#define JXL_SONAME "libjxl.so.0." VERSION_TEXT(JPEGXL_MINOR_VERSION)
#define JXL_THREADS_SONAME "libjxl_threads.so.0." VERSION_TEXT(JPEGXL_MINOR_VERSION)
#define JXL_PACKAGE "libjxl0." VERSION_TEXT(JPEGXL_MINOR_VERSION)
#else
#define JXL_SONAME "libjxl.so." VERSION_TEXT(JPEGXL_MAJOR_VERSION)
#define JXL_THREADS_SONAME "libjxl_threads.so." VERSION_TEXT(JPEGXL_MAJOR_VERSION)
#define JXL_PACKAGE "libjxl" VERSION_TEXT(JPEGXL_MAJOR_VERSION)
#endif

// 0.9 removed the pixel-format argument (unused since 0.7) of the colour-profile calls.
#if JPEGXL_NUMERIC_VERSION < JPEGXL_COMPUTE_NUMERIC_VERSION(0, 9, 0)
#define FORMAT_ARGUMENT NULL,
#define FORMAT_PARAMETER const JxlPixelFormat *,
#else
#define FORMAT_ARGUMENT
#define FORMAT_PARAMETER
#endif

/// The libjxl functions imgcache uses.
static struct {
    JxlDecoder *(*decoder_create)(const JxlMemoryManager *);
    void (*decoder_destroy)(JxlDecoder *);
    JxlDecoderStatus (*decoder_subscribe_events)(JxlDecoder *, int);
    JxlDecoderStatus (*decoder_set_unpremultiply_alpha)(JxlDecoder *, JXL_BOOL);
    JxlDecoderStatus (*decoder_set_input)(JxlDecoder *, const uint8_t *, size_t);
    void (*decoder_close_input)(JxlDecoder *);
    JxlDecoderStatus (*decoder_process_input)(JxlDecoder *);
    JxlDecoderStatus (*decoder_get_basic_info)(const JxlDecoder *, JxlBasicInfo *);
    JxlDecoderStatus (*decoder_get_frame_header)(const JxlDecoder *, JxlFrameHeader *);
    JxlDecoderStatus (*decoder_set_preferred_color_profile)(JxlDecoder *, const JxlColorEncoding *);
    JxlDecoderStatus (*decoder_set_parallel_runner)(JxlDecoder *, JxlParallelRunner, void *);
    JxlDecoderStatus (*decoder_set_image_out_callback)(JxlDecoder *, const JxlPixelFormat *, JxlImageOutCallback,
                                                       void *);
    JxlDecoderStatus (*decoder_get_color_as_encoded_profile)(const JxlDecoder *, FORMAT_PARAMETER
                                                             JxlColorProfileTarget, JxlColorEncoding *);
    JxlDecoderStatus (*decoder_get_icc_profile_size)(const JxlDecoder *, FORMAT_PARAMETER JxlColorProfileTarget,
                                                     size_t *);
    JxlDecoderStatus (*decoder_get_color_as_icc_profile)(const JxlDecoder *, FORMAT_PARAMETER JxlColorProfileTarget,
                                                         uint8_t *, size_t);
    void (*color_encoding_set_to_srgb)(JxlColorEncoding *, JXL_BOOL);
    JxlEncoder *(*encoder_create)(const JxlMemoryManager *);
    void (*encoder_destroy)(JxlEncoder *);
    JxlEncoderStatus (*encoder_set_parallel_runner)(JxlEncoder *, JxlParallelRunner, void *);
    JxlEncoderFrameSettings *(*encoder_frame_settings_create)(JxlEncoder *, const JxlEncoderFrameSettings *);
    void (*encoder_init_basic_info)(JxlBasicInfo *);
    JxlEncoderStatus (*encoder_set_basic_info)(JxlEncoder *, const JxlBasicInfo *);
    JxlEncoderStatus (*encoder_set_color_encoding)(JxlEncoder *, const JxlColorEncoding *);
    JxlEncoderStatus (*encoder_set_icc_profile)(JxlEncoder *, const uint8_t *, size_t);
    JxlEncoderStatus (*encoder_set_frame_distance)(JxlEncoderFrameSettings *, float);
    JxlEncoderStatus (*encoder_set_frame_lossless)(JxlEncoderFrameSettings *, JXL_BOOL);
    JxlEncoderStatus (*encoder_frame_settings_set_option)(JxlEncoderFrameSettings *, JxlEncoderFrameSettingId,
                                                          int64_t);
    void (*encoder_init_frame_header)(JxlFrameHeader *);
    JxlEncoderStatus (*encoder_set_frame_header)(JxlEncoderFrameSettings *, const JxlFrameHeader *);
    JxlEncoderStatus (*encoder_add_image_frame)(const JxlEncoderFrameSettings *, const JxlPixelFormat *,
                                                const void *, size_t);
    void (*encoder_close_input)(JxlEncoder *);
    JxlEncoderStatus (*encoder_process_output)(JxlEncoder *, uint8_t **, size_t *);
    JxlEncoderError (*encoder_get_error)(JxlEncoder *);
} api;

// Why: Debian's libjxl 0.7 is built to print each internal failure on stderr
// ("JXL_FAILURE: ANS decode final state failed"), several lines for one
// corrupt file, where the man page promises one line naming the URL. While
// libjxl decodes or encodes, its stdio stderr points at /dev/null. imgcache
// writes its own messages to file descriptor 2 directly, never through
// stdio, and sanitizers do too; another C library's stdio message printed in
// that window would be dropped as well. A count, so that overlapping calls
// on several threads restore stderr only when the last one returns.
static pthread_mutex_t quiet_lock = PTHREAD_MUTEX_INITIALIZER;
static int quiet_depth;
static FILE *quiet_saved;
static FILE *quiet_null;

static void quiet_begin(void) {
    pthread_mutex_lock(&quiet_lock);
    if (quiet_depth++ == 0 && quiet_null) {
        quiet_saved = stderr;
        stderr = quiet_null;
    }
    pthread_mutex_unlock(&quiet_lock);
}

static void quiet_end(void) {
    pthread_mutex_lock(&quiet_lock);
    if (--quiet_depth == 0 && quiet_null) stderr = quiet_saved;
    pthread_mutex_unlock(&quiet_lock);
}

/// What imgcache_jxl_load fills in, field by field.
static const imgcache_library_symbol symbols[] = {
    IMGCACHE_SYMBOL(api.decoder_create, "JxlDecoderCreate"),
    IMGCACHE_SYMBOL(api.decoder_destroy, "JxlDecoderDestroy"),
    IMGCACHE_SYMBOL(api.decoder_subscribe_events, "JxlDecoderSubscribeEvents"),
    IMGCACHE_SYMBOL(api.decoder_set_unpremultiply_alpha, "JxlDecoderSetUnpremultiplyAlpha"),
    IMGCACHE_SYMBOL(api.decoder_set_input, "JxlDecoderSetInput"),
    IMGCACHE_SYMBOL(api.decoder_close_input, "JxlDecoderCloseInput"),
    IMGCACHE_SYMBOL(api.decoder_process_input, "JxlDecoderProcessInput"),
    IMGCACHE_SYMBOL(api.decoder_get_basic_info, "JxlDecoderGetBasicInfo"),
    IMGCACHE_SYMBOL(api.decoder_get_frame_header, "JxlDecoderGetFrameHeader"),
    IMGCACHE_SYMBOL(api.decoder_set_preferred_color_profile, "JxlDecoderSetPreferredColorProfile"),
    IMGCACHE_SYMBOL(api.decoder_set_parallel_runner, "JxlDecoderSetParallelRunner"),
    IMGCACHE_SYMBOL(api.decoder_set_image_out_callback, "JxlDecoderSetImageOutCallback"),
    IMGCACHE_SYMBOL(api.decoder_get_color_as_encoded_profile, "JxlDecoderGetColorAsEncodedProfile"),
    IMGCACHE_SYMBOL(api.decoder_get_icc_profile_size, "JxlDecoderGetICCProfileSize"),
    IMGCACHE_SYMBOL(api.decoder_get_color_as_icc_profile, "JxlDecoderGetColorAsICCProfile"),
    IMGCACHE_SYMBOL(api.color_encoding_set_to_srgb, "JxlColorEncodingSetToSRGB"),
    IMGCACHE_SYMBOL(api.encoder_create, "JxlEncoderCreate"),
    IMGCACHE_SYMBOL(api.encoder_destroy, "JxlEncoderDestroy"),
    IMGCACHE_SYMBOL(api.encoder_set_parallel_runner, "JxlEncoderSetParallelRunner"),
    IMGCACHE_SYMBOL(api.encoder_frame_settings_create, "JxlEncoderFrameSettingsCreate"),
    IMGCACHE_SYMBOL(api.encoder_init_basic_info, "JxlEncoderInitBasicInfo"),
    IMGCACHE_SYMBOL(api.encoder_set_basic_info, "JxlEncoderSetBasicInfo"),
    IMGCACHE_SYMBOL(api.encoder_set_color_encoding, "JxlEncoderSetColorEncoding"),
    IMGCACHE_SYMBOL(api.encoder_set_icc_profile, "JxlEncoderSetICCProfile"),
    IMGCACHE_SYMBOL(api.encoder_set_frame_distance, "JxlEncoderSetFrameDistance"),
    IMGCACHE_SYMBOL(api.encoder_set_frame_lossless, "JxlEncoderSetFrameLossless"),
    IMGCACHE_SYMBOL(api.encoder_frame_settings_set_option, "JxlEncoderFrameSettingsSetOption"),
    IMGCACHE_SYMBOL(api.encoder_init_frame_header, "JxlEncoderInitFrameHeader"),
    IMGCACHE_SYMBOL(api.encoder_set_frame_header, "JxlEncoderSetFrameHeader"),
    IMGCACHE_SYMBOL(api.encoder_add_image_frame, "JxlEncoderAddImageFrame"),
    IMGCACHE_SYMBOL(api.encoder_close_input, "JxlEncoderCloseInput"),
    IMGCACHE_SYMBOL(api.encoder_process_output, "JxlEncoderProcessOutput"),
    IMGCACHE_SYMBOL(api.encoder_get_error, "JxlEncoderGetError"),
};

/// Opens /dev/null for the quiet calls below, once libjxl is in.
static void open_null(void) { quiet_null = fopen("/dev/null", "w"); }

static imgcache_library library = IMGCACHE_LIBRARY(JXL_SONAME, "cannot load libjxl (install " JXL_PACKAGE ")", "",
                                                   symbols, open_null);

const char *imgcache_jxl_soname(void) { return JXL_SONAME; }

int imgcache_jxl_load(char *error) { return imgcache_library_load(&library, error); }

JxlDecoder *imgcache_jxl_decoder_create(void) { return api.decoder_create(NULL); }
void imgcache_jxl_decoder_destroy(JxlDecoder *decoder) { api.decoder_destroy(decoder); }
JxlDecoderStatus imgcache_jxl_decoder_subscribe_events(JxlDecoder *decoder, int events) {
    return api.decoder_subscribe_events(decoder, events);
}
JxlDecoderStatus imgcache_jxl_decoder_set_unpremultiply_alpha(JxlDecoder *decoder, JXL_BOOL unpremultiply) {
    return api.decoder_set_unpremultiply_alpha(decoder, unpremultiply);
}
JxlDecoderStatus imgcache_jxl_decoder_set_input(JxlDecoder *decoder, const uint8_t *data, size_t size) {
    return api.decoder_set_input(decoder, data, size);
}
void imgcache_jxl_decoder_close_input(JxlDecoder *decoder) { api.decoder_close_input(decoder); }
JxlDecoderStatus imgcache_jxl_decoder_process_input(JxlDecoder *decoder) {
    quiet_begin();
    JxlDecoderStatus status = api.decoder_process_input(decoder);
    quiet_end();
    return status;
}
JxlDecoderStatus imgcache_jxl_decoder_get_basic_info(const JxlDecoder *decoder, JxlBasicInfo *info) {
    return api.decoder_get_basic_info(decoder, info);
}
JxlDecoderStatus imgcache_jxl_decoder_get_frame_header(const JxlDecoder *decoder, JxlFrameHeader *header) {
    return api.decoder_get_frame_header(decoder, header);
}
JxlDecoderStatus imgcache_jxl_decoder_set_preferred_color_profile(JxlDecoder *decoder,
                                                                  const JxlColorEncoding *encoding) {
    return api.decoder_set_preferred_color_profile(decoder, encoding);
}
JxlDecoderStatus imgcache_jxl_decoder_set_image_out_callback(JxlDecoder *decoder, const JxlPixelFormat *format,
                                                             JxlImageOutCallback callback, void *opaque) {
    return api.decoder_set_image_out_callback(decoder, format, callback, opaque);
}
JxlDecoderStatus imgcache_jxl_decoder_get_color_as_encoded_profile(const JxlDecoder *decoder,
                                                                   JxlColorProfileTarget target,
                                                                   JxlColorEncoding *encoding) {
    return api.decoder_get_color_as_encoded_profile(decoder, FORMAT_ARGUMENT target, encoding);
}
JxlDecoderStatus imgcache_jxl_decoder_get_icc_profile_size(const JxlDecoder *decoder, JxlColorProfileTarget target,
                                                           size_t *size) {
    return api.decoder_get_icc_profile_size(decoder, FORMAT_ARGUMENT target, size);
}
JxlDecoderStatus imgcache_jxl_decoder_get_color_as_icc_profile(const JxlDecoder *decoder,
                                                               JxlColorProfileTarget target, uint8_t *icc,
                                                               size_t size) {
    return api.decoder_get_color_as_icc_profile(decoder, FORMAT_ARGUMENT target, icc, size);
}
void imgcache_jxl_color_encoding_set_to_srgb(JxlColorEncoding *encoding, JXL_BOOL is_gray) {
    api.color_encoding_set_to_srgb(encoding, is_gray);
}

JxlEncoder *imgcache_jxl_encoder_create(void) { return api.encoder_create(NULL); }
void imgcache_jxl_encoder_destroy(JxlEncoder *encoder) { api.encoder_destroy(encoder); }
JxlEncoderFrameSettings *imgcache_jxl_encoder_frame_settings_create(JxlEncoder *encoder) {
    return api.encoder_frame_settings_create(encoder, NULL);
}
void imgcache_jxl_encoder_init_basic_info(JxlBasicInfo *info) { api.encoder_init_basic_info(info); }
JxlEncoderStatus imgcache_jxl_encoder_set_basic_info(JxlEncoder *encoder, const JxlBasicInfo *info) {
    return api.encoder_set_basic_info(encoder, info);
}
JxlEncoderStatus imgcache_jxl_encoder_set_color_encoding(JxlEncoder *encoder, const JxlColorEncoding *encoding) {
    return api.encoder_set_color_encoding(encoder, encoding);
}
JxlEncoderStatus imgcache_jxl_encoder_set_icc_profile(JxlEncoder *encoder, const uint8_t *icc, size_t size) {
    return api.encoder_set_icc_profile(encoder, icc, size);
}
JxlEncoderStatus imgcache_jxl_encoder_set_frame_distance(JxlEncoderFrameSettings *settings, float distance) {
    return api.encoder_set_frame_distance(settings, distance);
}
JxlEncoderStatus imgcache_jxl_encoder_set_frame_lossless(JxlEncoderFrameSettings *settings, JXL_BOOL lossless) {
    return api.encoder_set_frame_lossless(settings, lossless);
}
JxlEncoderStatus imgcache_jxl_encoder_frame_settings_set_option(JxlEncoderFrameSettings *settings,
                                                                JxlEncoderFrameSettingId option, int64_t value) {
    return api.encoder_frame_settings_set_option(settings, option, value);
}
void imgcache_jxl_encoder_init_frame_header(JxlFrameHeader *header) { api.encoder_init_frame_header(header); }
JxlEncoderStatus imgcache_jxl_encoder_set_frame_header(JxlEncoderFrameSettings *settings,
                                                       const JxlFrameHeader *header) {
    return api.encoder_set_frame_header(settings, header);
}
JxlEncoderStatus imgcache_jxl_encoder_add_image_frame(const JxlEncoderFrameSettings *settings,
                                                      const JxlPixelFormat *format, const void *pixels, size_t size) {
    quiet_begin();
    JxlEncoderStatus status = api.encoder_add_image_frame(settings, format, pixels, size);
    quiet_end();
    return status;
}
void imgcache_jxl_encoder_close_input(JxlEncoder *encoder) { api.encoder_close_input(encoder); }
JxlEncoderStatus imgcache_jxl_encoder_process_output(JxlEncoder *encoder, uint8_t **next_out, size_t *avail_out) {
    quiet_begin();
    JxlEncoderStatus status = api.encoder_process_output(encoder, next_out, avail_out);
    quiet_end();
    return status;
}
JxlEncoderError imgcache_jxl_encoder_get_error(JxlEncoder *encoder) { return api.encoder_get_error(encoder); }

// Why a thread pool: libjxl decodes and encodes groups of 256×256 pixels
// independently; given a parallel runner it spreads them over threads, as
// djxl and libvips do (a 20-megapixel decode: see CHANGELOG). The pool lives
// in its own library, libjxl_threads, loaded beside libjxl on first use; if
// it cannot be loaded, libjxl runs single-threaded, as without a runner.

/// The libjxl_threads functions imgcache uses.
static struct {
    void *(*create)(const JxlMemoryManager *, size_t);
    JxlParallelRetCode (*run)(void *, void *, JxlParallelRunInit, JxlParallelRunFunction, uint32_t, uint32_t);
    void (*destroy)(void *);
} threads_api;

static const imgcache_library_symbol threads_symbols[] = {
    IMGCACHE_SYMBOL(threads_api.create, "JxlThreadParallelRunnerCreate"),
    IMGCACHE_SYMBOL(threads_api.run, "JxlThreadParallelRunner"),
    IMGCACHE_SYMBOL(threads_api.destroy, "JxlThreadParallelRunnerDestroy"),
};

static imgcache_library threads_library = IMGCACHE_LIBRARY(
    JXL_THREADS_SONAME, "cannot load libjxl_threads (install " JXL_PACKAGE ")", "", threads_symbols, NULL);

size_t imgcache_jxl_runner_threads(size_t busy) {
    return imgcache_decoding_threads_share("IMGCACHE_JXL_THREADS", busy);
}

void *imgcache_jxl_runner_create(void) {
    char error[256];
    if (imgcache_library_load(&threads_library, error) != 0) return NULL;
    size_t threads = imgcache_decoding_threads_begin("IMGCACHE_JXL_THREADS");
    void *runner = threads > 1 ? threads_api.create(NULL, threads) : NULL;
    if (!runner) imgcache_decoding_threads_end(threads);
    return runner;
}

void imgcache_jxl_runner_destroy(void *runner) {
    if (!runner) return;
    threads_api.destroy(runner);
    imgcache_decoding_threads_end(2); // a pool has more than one thread
}

JxlDecoderStatus imgcache_jxl_decoder_set_runner(JxlDecoder *decoder, void *runner) {
    return api.decoder_set_parallel_runner(decoder, threads_api.run, runner);
}

JxlEncoderStatus imgcache_jxl_encoder_set_runner(JxlEncoder *encoder, void *runner) {
    return api.encoder_set_parallel_runner(encoder, threads_api.run, runner);
}
