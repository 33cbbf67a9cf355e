#ifndef IMGCACHE_HEIF_SHIMS_H
#define IMGCACHE_HEIF_SHIMS_H

#include <libheif/heif.h>

// Why libheif is loaded with dlopen: it links libde265, libx265, libaom,
// dav1d and their dependencies, a dozen shared libraries whose loading would
// cost every process start, a warm cache hit included. Only a process that
// decodes a HEIF loads it, through this table of functions, each with
// libheif's own signature.

/// Loads libheif.so.1 and resolves every function used, then runs
/// heif_init (imgcache_library_load). Returns 0, or -1 with a message in `error` (at least 256
/// bytes). Safe to call from several threads: the first call loads, later
/// ones return its result.
int imgcache_heif_load(char *error);

/// The soname imgcache_heif_load opens, for asking whether it is installed without loading it.
const char *imgcache_heif_soname(void);

struct heif_context *imgcache_heif_context_alloc(void);
void imgcache_heif_context_free(struct heif_context *context);
/// Lets libheif decode a grid's tiles on the threads a decode starting now
/// may use (the CPUs shared with the other decodes using threads, or
/// IMGCACHE_HEIC_THREADS), not its default of 4, and returns that count,
/// held until imgcache_heif_tile_threads_end. libheif 1.15 starts a thread
/// per tile (std::async), that many at a time. The corresponding C function
/// is `heif_context_set_max_decoding_threads`.
size_t imgcache_heif_tile_threads_begin(struct heif_context *context);
/// Ends the count of imgcache_heif_tile_threads_begin, which returned `threads`.
void imgcache_heif_tile_threads_end(size_t threads);
struct heif_error imgcache_heif_context_read_from_memory_without_copy(struct heif_context *context,
                                                                       const void *data, size_t size);
int imgcache_heif_context_get_number_of_top_level_images(struct heif_context *context);
struct heif_error imgcache_heif_context_get_primary_image_handle(struct heif_context *context,
                                                                  struct heif_image_handle **handle);
void imgcache_heif_image_handle_release(const struct heif_image_handle *handle);
int imgcache_heif_image_handle_get_width(const struct heif_image_handle *handle);
int imgcache_heif_image_handle_get_height(const struct heif_image_handle *handle);
int imgcache_heif_image_handle_has_alpha_channel(const struct heif_image_handle *handle);
int imgcache_heif_image_handle_get_number_of_thumbnails(const struct heif_image_handle *handle);
int imgcache_heif_image_handle_get_list_of_thumbnail_IDs(const struct heif_image_handle *handle, heif_item_id *ids,
                                                         int count);
struct heif_error imgcache_heif_image_handle_get_thumbnail(const struct heif_image_handle *handle, heif_item_id id,
                                                           struct heif_image_handle **thumbnail);
/// How imgcache_heif_decode asks libheif for the pixels.
typedef enum {
    /// Interleaved 8-bit RGB (heif_chroma_interleaved_RGB).
    imgcache_heif_layout_rgb = 0,
    /// Interleaved 8-bit RGBA (heif_chroma_interleaved_RGBA).
    imgcache_heif_layout_rgba = 1,
    /// Three planes, R, G and B (heif_chroma_444), for an 8-bit image without
    /// alpha: libheif 1.15 converts every image to planar RGB before it
    /// interleaves it, so this skips a copy of every pixel (432 M of a 12 MP
    /// thumbnail's 8.9 G instructions). A deeper image comes out at its own
    /// depth this way (convert_hdr_to_8bit acts only on a conversion).
    imgcache_heif_layout_planar_rgb = 2,
} imgcache_heif_layout;

/// heif_decode_image to `layout`, with the handle's transformations (irot,
/// imir, clap) applied and deeper samples converted to 8 bits (decoding
/// options `convert_hdr_to_8bit`) in the interleaved layouts, as heif-convert
/// writes an 8-bit PNG.
struct heif_error imgcache_heif_decode(const struct heif_image_handle *handle, imgcache_heif_layout layout,
                                       struct heif_image **image);
/// The luma sample depth the coded image declares (heif_image_handle_get_luma_bits_per_pixel).
int imgcache_heif_image_handle_get_luma_bits_per_pixel(const struct heif_image_handle *handle);
int imgcache_heif_image_get_width(const struct heif_image *image);
int imgcache_heif_image_get_height(const struct heif_image *image);
const uint8_t *imgcache_heif_image_get_interleaved_plane(const struct heif_image *image, int *stride);
/// Plane `channel` (heif_channel_R, _G, _B) of a planar image, its size and
/// depth (heif_image_get_plane_readonly, heif_image_get_width/_height,
/// heif_image_get_bits_per_pixel_range); NULL if the image has no such plane.
const uint8_t *imgcache_heif_image_get_plane(const struct heif_image *image, enum heif_channel channel, int *stride,
                                             int *width, int *height, int *bits);
void imgcache_heif_image_release(const struct heif_image *image);

#endif
