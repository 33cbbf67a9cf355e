#ifndef IMGCACHE_LCMS_SHIMS_H
#define IMGCACHE_LCMS_SHIMS_H

#include <stddef.h>
#include <stdint.h>

// Why Little CMS is loaded with dlopen: most images carry no ICC profile,
// and a warm cache hit decodes nothing at all, so neither should pay for
// loading liblcms2 and its relocations. Only a process that converts an
// image through a profile loads it, through this table of functions. Its
// types stay in this file: Swift sees opaque pointers and the layouts below.

/// Pixel layouts a transform reads; the output is always 8-bit sRGB.
typedef enum {
    /// 8-bit RGB, 3 bytes a pixel.
    IMGCACHE_LCMS_RGB8 = 0,
    /// 8-bit RGBA, 4 bytes a pixel; alpha is left as it is.
    IMGCACHE_LCMS_RGBA8 = 1,
    /// 8-bit CMYK, 4 bytes a pixel, 0 = no ink.
    IMGCACHE_LCMS_CMYK8 = 2,
    /// 8-bit CMYK as Adobe applications write it in JPEG (inverted: 0 = full ink).
    IMGCACHE_LCMS_CMYK8_INVERTED = 3,
    /// Gray pixels spread as RGB (R = G = B), 3 bytes a pixel: the gray profile is read from R.
    IMGCACHE_LCMS_GRAY_AS_RGB8 = 4,
    /// Gray pixels spread as RGBA, 4 bytes a pixel.
    IMGCACHE_LCMS_GRAY_AS_RGBA8 = 5,
} imgcache_lcms_layout;

/// Transfer functions of a profile made from primaries (PNG gAMA/cHRM, AVIF nclx).
typedef enum {
    IMGCACHE_LCMS_TRANSFER_SRGB = 0,
    /// A pure power law: encoded = linear ^ (1 / gamma).
    IMGCACHE_LCMS_TRANSFER_GAMMA = 1,
    /// ITU-R BT.709 / BT.2020 (SDR camera curve).
    IMGCACHE_LCMS_TRANSFER_BT709 = 2,
    /// SMPTE ST 2084 (PQ), 203 cd/m2 as diffuse white, clipped above.
    IMGCACHE_LCMS_TRANSFER_PQ = 3,
    /// ARIB STD-B67 (HLG), scene light, clipped above white.
    IMGCACHE_LCMS_TRANSFER_HLG = 4,
} imgcache_lcms_transfer;

/// Loads liblcms2.so.2 and resolves every function used. Returns 0, or -1
/// with a message in `error` (at least 256 bytes). Safe to call from several
/// threads: the first call loads, later ones return its result.
int imgcache_lcms_load(char *error);

/// A profile parsed from `size` bytes (cmsOpenProfileFromMem), or NULL when
/// lcms refuses them; then `error` (at least 256 bytes) says why.
void *imgcache_lcms_open_profile(const uint8_t *data, size_t size, char *error);

/// An RGB profile from the white point and primaries as CIE xy (wx, wy, rx,
/// ry, gx, gy, bx, by) and a transfer function (`gamma` for the power law).
/// The corresponding C function is cmsCreateRGBProfile.
void *imgcache_lcms_create_rgb_profile(const double xy[8], imgcache_lcms_transfer transfer, double gamma);

/// The profile's colour space signature (cmsGetColorSpace), e.g. 'RGB ', 'CMYK', 'GRAY'.
uint32_t imgcache_lcms_colour_space(void *profile);

/// Frees a profile (cmsCloseProfile).
void imgcache_lcms_close_profile(void *profile);

/// A transform from `profile` in `layout` to sRGB, 3 bytes a pixel (4 with
/// alpha for the RGBA layouts): the perceptual intent where the profile has
/// it, otherwise relative colorimetric with black point compensation. NULL
/// with a message in `error` (at least 256 bytes) on failure.
/// The corresponding C function is cmsCreateTransform.
void *imgcache_lcms_create_transform(void *profile, imgcache_lcms_layout layout, int output_channels, char *error);

/// Converts `count` pixels (cmsDoTransform). `input` may equal `output`
/// when both have the same bytes a pixel.
void imgcache_lcms_transform(void *transform, const void *input, void *output, uint32_t count);

/// Frees a transform (cmsDeleteTransform).
void imgcache_lcms_delete_transform(void *transform);

/// The profile written out (cmsSaveProfileToMem): into `out` when it holds
/// `*size` bytes; with `out` NULL, only `*size` is set. Returns 0 or -1.
int imgcache_lcms_save_profile(void *profile, uint8_t *out, uint32_t *size);

// zlib, for PNG's iCCP chunk (libpng loads zlib anyway).

/// Inflates a zlib stream into at most `capacity` bytes; returns the size, or
/// -1 if the stream is damaged or inflates past `capacity`.
long imgcache_zlib_inflate(const uint8_t *data, size_t size, uint8_t *out, size_t capacity);

/// Deflates `size` bytes at level 9 into `out` (room for `capacity` bytes,
/// at least compressBound(size)); returns the size, or -1.
long imgcache_zlib_deflate(const uint8_t *data, size_t size, uint8_t *out, size_t capacity);

/// compressBound: the most bytes deflating `size` bytes can take.
size_t imgcache_zlib_bound(size_t size);

#endif
