#ifndef IMGCACHE_CODEC_LIBRARIES_H
#define IMGCACHE_CODEC_LIBRARIES_H

// The libraries Swift calls by their own names (libjpeg, libpng, giflib,
// libwebp's three, zlib, hiredis) are loaded by their first forwarder, which
// ends the process when the library is missing (library_loader.h). Each
// function here loads one the same way but reports instead: the caller
// checks before the library's first call, so that a missing library fails the
// image (or the Redis store) that needed it, and the rest of the run goes on.
// Each returns 0, or -1 with "cannot load giflib (install libgif7): …" in
// `error` (at least 256 bytes); later calls return the first one's outcome.
// The corresponding C functions are `dlopen` and `dlsym`.

int imgcache_jpeg_library_load(char *error);
int imgcache_png_library_load(char *error);
int imgcache_gif_library_load(char *error);
int imgcache_webp_library_load(char *error);
int imgcache_webpdemux_library_load(char *error);
int imgcache_webpmux_library_load(char *error);
int imgcache_zlib_library_load(char *error);
int imgcache_hiredis_library_load(char *error);

#endif
