#include "lcms_shims.h"
#include "library_loader.h"

#include <lcms2.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

/// The Little CMS functions imgcache uses, resolved from liblcms2.so.2.
static struct {
    void (*set_log_error_handler)(cmsLogErrorHandlerFunction);
    cmsHPROFILE (*open_profile_from_mem)(const void *, cmsUInt32Number);
    cmsHPROFILE (*create_srgb_profile)(void);
    cmsHPROFILE (*create_rgb_profile)(const cmsCIExyY *, const cmsCIExyYTRIPLE *, cmsToneCurve *const[3]);
    cmsToneCurve *(*build_gamma)(cmsContext, cmsFloat64Number);
    cmsToneCurve *(*build_parametric_tone_curve)(cmsContext, cmsInt32Number, const cmsFloat64Number[]);
    cmsToneCurve *(*build_tabulated_tone_curve_float)(cmsContext, cmsUInt32Number, const cmsFloat32Number[]);
    void (*free_tone_curve)(cmsToneCurve *);
    cmsColorSpaceSignature (*get_color_space)(cmsHPROFILE);
    cmsBool (*is_intent_supported)(cmsHPROFILE, cmsUInt32Number, cmsUInt32Number);
    cmsBool (*close_profile)(cmsHPROFILE);
    cmsHTRANSFORM (*create_transform)(cmsHPROFILE, cmsUInt32Number, cmsHPROFILE, cmsUInt32Number, cmsUInt32Number,
                                      cmsUInt32Number);
    void (*do_transform)(cmsHTRANSFORM, const void *, void *, cmsUInt32Number);
    void (*delete_transform)(cmsHTRANSFORM);
    cmsBool (*save_profile_to_mem)(cmsHPROFILE, void *, cmsUInt32Number *);
} api;

/// lcms reports a damaged profile through its log handler, then returns
/// NULL; the message is kept per thread for the caller's error.
static __thread char last_error[256];

static void on_error(cmsContext context, cmsUInt32Number code, const char *text) {
    (void)context;
    (void)code;
    snprintf(last_error, sizeof last_error, "%s", text ? text : "unknown error");
}

/// What imgcache_lcms_load fills in, field by field.
static const imgcache_library_symbol symbols[] = {
    IMGCACHE_SYMBOL(api.set_log_error_handler, "cmsSetLogErrorHandler"),
    IMGCACHE_SYMBOL(api.open_profile_from_mem, "cmsOpenProfileFromMem"),
    IMGCACHE_SYMBOL(api.create_srgb_profile, "cmsCreate_sRGBProfile"),
    IMGCACHE_SYMBOL(api.create_rgb_profile, "cmsCreateRGBProfile"),
    IMGCACHE_SYMBOL(api.build_gamma, "cmsBuildGamma"),
    IMGCACHE_SYMBOL(api.build_parametric_tone_curve, "cmsBuildParametricToneCurve"),
    IMGCACHE_SYMBOL(api.build_tabulated_tone_curve_float, "cmsBuildTabulatedToneCurveFloat"),
    IMGCACHE_SYMBOL(api.free_tone_curve, "cmsFreeToneCurve"),
    IMGCACHE_SYMBOL(api.get_color_space, "cmsGetColorSpace"),
    IMGCACHE_SYMBOL(api.is_intent_supported, "cmsIsIntentSupported"),
    IMGCACHE_SYMBOL(api.close_profile, "cmsCloseProfile"),
    IMGCACHE_SYMBOL(api.create_transform, "cmsCreateTransform"),
    IMGCACHE_SYMBOL(api.do_transform, "cmsDoTransform"),
    IMGCACHE_SYMBOL(api.delete_transform, "cmsDeleteTransform"),
    IMGCACHE_SYMBOL(api.save_profile_to_mem, "cmsSaveProfileToMem"),
};

static void loaded(void) { api.set_log_error_handler(on_error); }

static imgcache_library library =
    IMGCACHE_LIBRARY("liblcms2.so.2", "cannot load Little CMS (install liblcms2-2)", "", symbols, loaded);

int imgcache_lcms_load(char *error) { return imgcache_library_load(&library, error); }

void *imgcache_lcms_open_profile(const uint8_t *data, size_t size, char *error) {
    last_error[0] = 0;
    cmsHPROFILE profile = size <= UINT32_MAX ? api.open_profile_from_mem(data, (cmsUInt32Number)size) : NULL;
    if (!profile) {
        snprintf(error, 256, "%s", last_error[0] ? last_error : "not a usable ICC profile");
    }
    return profile;
}

/// SMPTE ST 2084 EOTF, relative to 203 cd/m2 (ITU-R BT.2408 reference white).
static float pq_to_linear(double encoded) {
    const double m1 = 2610.0 / 16384, m2 = 2523.0 / 4096 * 128, c1 = 3424.0 / 4096, c2 = 2413.0 / 4096 * 32,
                 c3 = 2392.0 / 4096 * 32;
    double p = pow(encoded, 1 / m2);
    double luminance = 10000 * pow(fmax(p - c1, 0) / (c2 - c3 * p), 1 / m1);
    return (float)fmin(luminance / 203, 1);
}

/// ARIB STD-B67 inverse OETF (scene light, 0...1).
static float hlg_to_linear(double encoded) {
    const double a = 0.17883277, b = 1 - 4 * a, c = 0.5 - a * log(4 * a);
    return (float)(encoded <= 0.5 ? encoded * encoded / 3 : (exp((encoded - c) / a) + b) / 12);
}

static cmsToneCurve *transfer_curve(imgcache_lcms_transfer transfer, double gamma) {
    switch (transfer) {
    case IMGCACHE_LCMS_TRANSFER_SRGB: {
        const cmsFloat64Number params[5] = {2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045};
        return api.build_parametric_tone_curve(NULL, 4, params);
    }
    case IMGCACHE_LCMS_TRANSFER_BT709: {
        const cmsFloat64Number params[5] = {1 / 0.45, 1 / 1.099, 0.099 / 1.099, 1 / 4.5, 0.081};
        return api.build_parametric_tone_curve(NULL, 4, params);
    }
    case IMGCACHE_LCMS_TRANSFER_GAMMA:
        return api.build_gamma(NULL, gamma);
    case IMGCACHE_LCMS_TRANSFER_PQ:
    case IMGCACHE_LCMS_TRANSFER_HLG: {
        enum { entries = 4096 };
        cmsFloat32Number values[entries];
        for (int i = 0; i < entries; i++) {
            double encoded = (double)i / (entries - 1);
            values[i] = transfer == IMGCACHE_LCMS_TRANSFER_PQ ? pq_to_linear(encoded) : hlg_to_linear(encoded);
        }
        return api.build_tabulated_tone_curve_float(NULL, entries, values);
    }
    }
    return NULL;
}

void *imgcache_lcms_create_rgb_profile(const double xy[8], imgcache_lcms_transfer transfer, double gamma) {
    cmsCIExyY white = {xy[0], xy[1], 1};
    cmsCIExyYTRIPLE primaries = {{xy[2], xy[3], 1}, {xy[4], xy[5], 1}, {xy[6], xy[7], 1}};
    cmsToneCurve *curve = transfer_curve(transfer, gamma);
    if (!curve) {
        return NULL;
    }
    cmsToneCurve *curves[3] = {curve, curve, curve};
    cmsHPROFILE profile = api.create_rgb_profile(&white, &primaries, curves);
    api.free_tone_curve(curve);
    return profile;
}

uint32_t imgcache_lcms_colour_space(void *profile) { return (uint32_t)api.get_color_space(profile); }

void imgcache_lcms_close_profile(void *profile) { api.close_profile(profile); }

static cmsUInt32Number input_format(imgcache_lcms_layout layout) {
    switch (layout) {
    case IMGCACHE_LCMS_RGB8:
        return TYPE_RGB_8;
    case IMGCACHE_LCMS_RGBA8:
        return TYPE_RGBA_8;
    case IMGCACHE_LCMS_CMYK8:
        return TYPE_CMYK_8;
    case IMGCACHE_LCMS_CMYK8_INVERTED:
        return TYPE_CMYK_8_REV;
    case IMGCACHE_LCMS_GRAY_AS_RGB8:
        // One gray channel, then two bytes skipped as extra channels.
        return COLORSPACE_SH(PT_GRAY) | CHANNELS_SH(1) | BYTES_SH(1) | EXTRA_SH(2);
    case IMGCACHE_LCMS_GRAY_AS_RGBA8:
        return COLORSPACE_SH(PT_GRAY) | CHANNELS_SH(1) | BYTES_SH(1) | EXTRA_SH(3);
    }
    return 0;
}

void *imgcache_lcms_create_transform(void *profile, imgcache_lcms_layout layout, int output_channels, char *error) {
    cmsHPROFILE srgb = api.create_srgb_profile();
    if (!srgb) {
        snprintf(error, 256, "cannot create the sRGB profile");
        return NULL;
    }
    // As libvips: perceptual where the profile has a table for it (a
    // matrix/TRC profile serves every intent), otherwise relative
    // colorimetric with black point compensation.
    cmsUInt32Number intent = INTENT_PERCEPTUAL, flags = 0;
    if (!api.is_intent_supported(profile, INTENT_PERCEPTUAL, LCMS_USED_AS_INPUT)) {
        intent = INTENT_RELATIVE_COLORIMETRIC;
        flags = cmsFLAGS_BLACKPOINTCOMPENSATION;
    }
    // Alpha rides along unchanged for RGBA in and out.
    if (layout == IMGCACHE_LCMS_RGBA8 && output_channels == 4) {
        flags |= cmsFLAGS_COPY_ALPHA;
    }
    cmsUInt32Number output = output_channels == 4 ? TYPE_RGBA_8 : TYPE_RGB_8;
    last_error[0] = 0;
    cmsHTRANSFORM transform = api.create_transform(profile, input_format(layout), srgb, output, intent, flags);
    api.close_profile(srgb);
    if (!transform) {
        snprintf(error, 256, "%s", last_error[0] ? last_error : "the profile cannot be converted to sRGB");
    }
    return transform;
}

void imgcache_lcms_transform(void *transform, const void *input, void *output, uint32_t count) {
    api.do_transform(transform, input, output, count);
}

void imgcache_lcms_delete_transform(void *transform) { api.delete_transform(transform); }

int imgcache_lcms_save_profile(void *profile, uint8_t *out, uint32_t *size) {
    return api.save_profile_to_mem(profile, out, size) ? 0 : -1;
}

long imgcache_zlib_inflate(const uint8_t *data, size_t size, uint8_t *out, size_t capacity) {
    z_stream stream;
    memset(&stream, 0, sizeof stream);
    if (inflateInit(&stream) != Z_OK) {
        return -1;
    }
    stream.next_in = (Bytef *)data;
    stream.avail_in = (uInt)size;
    stream.next_out = out;
    stream.avail_out = (uInt)capacity;
    int status = inflate(&stream, Z_FINISH);
    long produced = (long)stream.total_out;
    inflateEnd(&stream);
    return status == Z_STREAM_END ? produced : -1;
}

long imgcache_zlib_deflate(const uint8_t *data, size_t size, uint8_t *out, size_t capacity) {
    uLongf length = (uLongf)capacity;
    return compress2(out, &length, data, (uLong)size, 9) == Z_OK ? (long)length : -1;
}

size_t imgcache_zlib_bound(size_t size) { return (size_t)compressBound((uLong)size); }
