#include "heif_shims.h"

#include "decoding_threads.h"
#include "library_loader.h"

// The soname whose ABI the installed header describes (libheif 1.x keeps
// its C ABI within the major version).
#if LIBHEIF_NUMERIC_VERSION >= 0x010F0000 && LIBHEIF_NUMERIC_VERSION < 0x02000000
#define HEIF_SONAME "libheif.so.1"
#else
#error "unknown libheif version: add its soname here"
#endif

/// The libheif functions imgcache uses.
static struct {
    struct heif_error (*init)(struct heif_init_params *);
    struct heif_context *(*context_alloc)(void);
    void (*context_free)(struct heif_context *);
    void (*context_set_max_decoding_threads)(struct heif_context *, int);
    struct heif_error (*context_read_from_memory_without_copy)(struct heif_context *, const void *, size_t,
                                                               const struct heif_reading_options *);
    int (*context_get_number_of_top_level_images)(struct heif_context *);
    struct heif_error (*context_get_primary_image_handle)(struct heif_context *, struct heif_image_handle **);
    void (*image_handle_release)(const struct heif_image_handle *);
    int (*image_handle_get_width)(const struct heif_image_handle *);
    int (*image_handle_get_height)(const struct heif_image_handle *);
    int (*image_handle_has_alpha_channel)(const struct heif_image_handle *);
    int (*image_handle_get_luma_bits_per_pixel)(const struct heif_image_handle *);
    int (*image_handle_get_number_of_thumbnails)(const struct heif_image_handle *);
    int (*image_handle_get_list_of_thumbnail_IDs)(const struct heif_image_handle *, heif_item_id *, int);
    struct heif_error (*image_handle_get_thumbnail)(const struct heif_image_handle *, heif_item_id,
                                                    struct heif_image_handle **);
    struct heif_decoding_options *(*decoding_options_alloc)(void);
    void (*decoding_options_free)(struct heif_decoding_options *);
    struct heif_error (*decode_image)(const struct heif_image_handle *, struct heif_image **, enum heif_colorspace,
                                      enum heif_chroma, const struct heif_decoding_options *);
    int (*image_get_width)(const struct heif_image *, enum heif_channel);
    int (*image_get_height)(const struct heif_image *, enum heif_channel);
    const uint8_t *(*image_get_plane_readonly)(const struct heif_image *, enum heif_channel, int *);
    int (*image_get_bits_per_pixel_range)(const struct heif_image *, enum heif_channel);
    void (*image_release)(const struct heif_image *);
} api;

/// What imgcache_heif_load fills in, field by field.
static const imgcache_library_symbol symbols[] = {
    IMGCACHE_SYMBOL(api.init, "heif_init"),
    IMGCACHE_SYMBOL(api.context_alloc, "heif_context_alloc"),
    IMGCACHE_SYMBOL(api.context_free, "heif_context_free"),
    IMGCACHE_SYMBOL(api.context_set_max_decoding_threads, "heif_context_set_max_decoding_threads"),
    IMGCACHE_SYMBOL(api.context_read_from_memory_without_copy, "heif_context_read_from_memory_without_copy"),
    IMGCACHE_SYMBOL(api.context_get_number_of_top_level_images, "heif_context_get_number_of_top_level_images"),
    IMGCACHE_SYMBOL(api.context_get_primary_image_handle, "heif_context_get_primary_image_handle"),
    IMGCACHE_SYMBOL(api.image_handle_release, "heif_image_handle_release"),
    IMGCACHE_SYMBOL(api.image_handle_get_width, "heif_image_handle_get_width"),
    IMGCACHE_SYMBOL(api.image_handle_get_height, "heif_image_handle_get_height"),
    IMGCACHE_SYMBOL(api.image_handle_has_alpha_channel, "heif_image_handle_has_alpha_channel"),
    IMGCACHE_SYMBOL(api.image_handle_get_luma_bits_per_pixel, "heif_image_handle_get_luma_bits_per_pixel"),
    IMGCACHE_SYMBOL(api.image_handle_get_number_of_thumbnails, "heif_image_handle_get_number_of_thumbnails"),
    IMGCACHE_SYMBOL(api.image_handle_get_list_of_thumbnail_IDs, "heif_image_handle_get_list_of_thumbnail_IDs"),
    IMGCACHE_SYMBOL(api.image_handle_get_thumbnail, "heif_image_handle_get_thumbnail"),
    IMGCACHE_SYMBOL(api.decoding_options_alloc, "heif_decoding_options_alloc"),
    IMGCACHE_SYMBOL(api.decoding_options_free, "heif_decoding_options_free"),
    IMGCACHE_SYMBOL(api.decode_image, "heif_decode_image"),
    IMGCACHE_SYMBOL(api.image_get_width, "heif_image_get_width"),
    IMGCACHE_SYMBOL(api.image_get_height, "heif_image_get_height"),
    IMGCACHE_SYMBOL(api.image_get_plane_readonly, "heif_image_get_plane_readonly"),
    IMGCACHE_SYMBOL(api.image_get_bits_per_pixel_range, "heif_image_get_bits_per_pixel_range"),
    IMGCACHE_SYMBOL(api.image_release, "heif_image_release"),
};

/// Registers the built-in decoders (libde265, dav1d, aom) once per process.
/// Its result cannot fail a load: without them, a decode says so itself.
static void initialise(void) { (void)api.init(NULL); }

static imgcache_library library =
    IMGCACHE_LIBRARY(HEIF_SONAME, "cannot load libheif (install libheif1)", "", symbols, initialise);

const char *imgcache_heif_soname(void) { return HEIF_SONAME; }

int imgcache_heif_load(char *error) { return imgcache_library_load(&library, error); }

struct heif_context *imgcache_heif_context_alloc(void) { return api.context_alloc(); }
void imgcache_heif_context_free(struct heif_context *context) { api.context_free(context); }

size_t imgcache_heif_tile_threads_begin(struct heif_context *context) {
    size_t threads = imgcache_decoding_threads_begin("IMGCACHE_HEIC_THREADS");
    api.context_set_max_decoding_threads(context, (int)threads);
    return threads;
}

void imgcache_heif_tile_threads_end(size_t threads) { imgcache_decoding_threads_end(threads); }
struct heif_error imgcache_heif_context_read_from_memory_without_copy(struct heif_context *context,
                                                                       const void *data, size_t size) {
    return api.context_read_from_memory_without_copy(context, data, size, NULL);
}
int imgcache_heif_context_get_number_of_top_level_images(struct heif_context *context) {
    return api.context_get_number_of_top_level_images(context);
}
struct heif_error imgcache_heif_context_get_primary_image_handle(struct heif_context *context,
                                                                  struct heif_image_handle **handle) {
    return api.context_get_primary_image_handle(context, handle);
}
void imgcache_heif_image_handle_release(const struct heif_image_handle *handle) { api.image_handle_release(handle); }
int imgcache_heif_image_handle_get_width(const struct heif_image_handle *handle) {
    return api.image_handle_get_width(handle);
}
int imgcache_heif_image_handle_get_height(const struct heif_image_handle *handle) {
    return api.image_handle_get_height(handle);
}
int imgcache_heif_image_handle_has_alpha_channel(const struct heif_image_handle *handle) {
    return api.image_handle_has_alpha_channel(handle);
}
int imgcache_heif_image_handle_get_number_of_thumbnails(const struct heif_image_handle *handle) {
    return api.image_handle_get_number_of_thumbnails(handle);
}
int imgcache_heif_image_handle_get_list_of_thumbnail_IDs(const struct heif_image_handle *handle, heif_item_id *ids,
                                                         int count) {
    return api.image_handle_get_list_of_thumbnail_IDs(handle, ids, count);
}
struct heif_error imgcache_heif_image_handle_get_thumbnail(const struct heif_image_handle *handle, heif_item_id id,
                                                           struct heif_image_handle **thumbnail) {
    return api.image_handle_get_thumbnail(handle, id, thumbnail);
}

int imgcache_heif_image_handle_get_luma_bits_per_pixel(const struct heif_image_handle *handle) {
    return api.image_handle_get_luma_bits_per_pixel(handle);
}

struct heif_error imgcache_heif_decode(const struct heif_image_handle *handle, imgcache_heif_layout layout,
                                       struct heif_image **image) {
    struct heif_decoding_options *options = api.decoding_options_alloc();
    if (!options) {
        struct heif_error failed = {heif_error_Memory_allocation_error, heif_suberror_Unspecified,
                                    "cannot allocate decoding options"};
        return failed;
    }
    options->convert_hdr_to_8bit = 1;
    enum heif_chroma chroma = layout == imgcache_heif_layout_rgba  ? heif_chroma_interleaved_RGBA
                              : layout == imgcache_heif_layout_rgb ? heif_chroma_interleaved_RGB
                                                                   : heif_chroma_444;
    struct heif_error result = api.decode_image(handle, image, heif_colorspace_RGB, chroma, options);
    api.decoding_options_free(options);
    return result;
}
int imgcache_heif_image_get_width(const struct heif_image *image) {
    return api.image_get_width(image, heif_channel_interleaved);
}
int imgcache_heif_image_get_height(const struct heif_image *image) {
    return api.image_get_height(image, heif_channel_interleaved);
}
const uint8_t *imgcache_heif_image_get_interleaved_plane(const struct heif_image *image, int *stride) {
    return api.image_get_plane_readonly(image, heif_channel_interleaved, stride);
}
const uint8_t *imgcache_heif_image_get_plane(const struct heif_image *image, enum heif_channel channel, int *stride,
                                             int *width, int *height, int *bits) {
    const uint8_t *plane = api.image_get_plane_readonly(image, channel, stride);
    if (!plane) return NULL;
    *width = api.image_get_width(image, channel);
    *height = api.image_get_height(image, channel);
    *bits = api.image_get_bits_per_pixel_range(image, channel);
    return plane;
}
void imgcache_heif_image_release(const struct heif_image *image) { api.image_release(image); }
