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
/// heif_decode_image to interleaved 8-bit RGB or RGBA (`alpha`), with the
/// handle's transformations (irot, imir, clap) applied and deeper samples
/// converted to 8 bits (decoding options `convert_hdr_to_8bit`), as
/// heif-convert writes an 8-bit PNG.
struct heif_error imgcache_heif_decode_interleaved(const struct heif_image_handle *handle, int alpha,
                                                   struct heif_image **image);
int imgcache_heif_image_get_width(const struct heif_image *image);
int imgcache_heif_image_get_height(const struct heif_image *image);
const uint8_t *imgcache_heif_image_get_interleaved_plane(const struct heif_image *image, int *stride);
void imgcache_heif_image_release(const struct heif_image *image);

#endif
