#include "jxl_shims.h"

#include <dlfcn.h>
#include <jxl/version.h>
#include <pthread.h>
#include <stdio.h>

// The soname whose ABI the installed header describes: before 1.0 every
// minor version is its own soname (libjxl.so.0.7), so another must not be loaded.
#define STRINGIFY(x) #x
#define SONAME(major, minor) (major == 0 ? "libjxl.so.0." STRINGIFY(minor) : "libjxl.so." STRINGIFY(major))
#define JXL_SONAME SONAME(JPEGXL_MAJOR_VERSION, JPEGXL_MINOR_VERSION)

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

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char load_error[256];
static int load_status = -1;

#define RESOLVE(field, symbol)                                                        \
    do {                                                                              \
        *(void **)(&api.field) = dlsym(library, symbol);                              \
        if (!api.field) {                                                             \
            snprintf(load_error, sizeof load_error, "%s lacks %s", JXL_SONAME, symbol); \
            return;                                                                   \
        }                                                                             \
    } while (0)

static void load(void) {
    void *library = dlopen(JXL_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        snprintf(load_error, sizeof load_error, "cannot load libjxl (install libjxl%d.%d): %s", JPEGXL_MAJOR_VERSION,
                 JPEGXL_MINOR_VERSION, dlerror());
        return;
    }
    quiet_null = fopen("/dev/null", "w");
    RESOLVE(decoder_create, "JxlDecoderCreate");
    RESOLVE(decoder_destroy, "JxlDecoderDestroy");
    RESOLVE(decoder_subscribe_events, "JxlDecoderSubscribeEvents");
    RESOLVE(decoder_set_unpremultiply_alpha, "JxlDecoderSetUnpremultiplyAlpha");
    RESOLVE(decoder_set_input, "JxlDecoderSetInput");
    RESOLVE(decoder_close_input, "JxlDecoderCloseInput");
    RESOLVE(decoder_process_input, "JxlDecoderProcessInput");
    RESOLVE(decoder_get_basic_info, "JxlDecoderGetBasicInfo");
    RESOLVE(decoder_get_frame_header, "JxlDecoderGetFrameHeader");
    RESOLVE(decoder_set_preferred_color_profile, "JxlDecoderSetPreferredColorProfile");
    RESOLVE(decoder_set_image_out_callback, "JxlDecoderSetImageOutCallback");
    RESOLVE(decoder_get_color_as_encoded_profile, "JxlDecoderGetColorAsEncodedProfile");
    RESOLVE(decoder_get_icc_profile_size, "JxlDecoderGetICCProfileSize");
    RESOLVE(decoder_get_color_as_icc_profile, "JxlDecoderGetColorAsICCProfile");
    RESOLVE(color_encoding_set_to_srgb, "JxlColorEncodingSetToSRGB");
    RESOLVE(encoder_create, "JxlEncoderCreate");
    RESOLVE(encoder_destroy, "JxlEncoderDestroy");
    RESOLVE(encoder_frame_settings_create, "JxlEncoderFrameSettingsCreate");
    RESOLVE(encoder_init_basic_info, "JxlEncoderInitBasicInfo");
    RESOLVE(encoder_set_basic_info, "JxlEncoderSetBasicInfo");
    RESOLVE(encoder_set_color_encoding, "JxlEncoderSetColorEncoding");
    RESOLVE(encoder_set_icc_profile, "JxlEncoderSetICCProfile");
    RESOLVE(encoder_set_frame_distance, "JxlEncoderSetFrameDistance");
    RESOLVE(encoder_set_frame_lossless, "JxlEncoderSetFrameLossless");
    RESOLVE(encoder_frame_settings_set_option, "JxlEncoderFrameSettingsSetOption");
    RESOLVE(encoder_init_frame_header, "JxlEncoderInitFrameHeader");
    RESOLVE(encoder_set_frame_header, "JxlEncoderSetFrameHeader");
    RESOLVE(encoder_add_image_frame, "JxlEncoderAddImageFrame");
    RESOLVE(encoder_close_input, "JxlEncoderCloseInput");
    RESOLVE(encoder_process_output, "JxlEncoderProcessOutput");
    RESOLVE(encoder_get_error, "JxlEncoderGetError");
    load_status = 0;
}

int imgcache_jxl_load(char *error) {
    pthread_once(&once, load);
    if (load_status != 0) {
        snprintf(error, 256, "%s", load_error);
    }
    return load_status;
}

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
