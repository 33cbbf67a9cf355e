#ifndef IMGCACHE_SHIMS_H
#define IMGCACHE_SHIMS_H

#include <curl/curl.h>
#include <stddef.h>
#include <stdint.h>

// Why this target exists: curl_easy_setopt, curl_easy_getinfo and
// curl_multi_setopt are variadic, which Swift cannot call. Each wrapper fixes
// the argument type of one family of options.
CURLcode imgcache_curl_easy_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode imgcache_curl_easy_setopt_string(CURL *handle, CURLoption option, const char *value);
CURLcode imgcache_curl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value);
CURLcode imgcache_curl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value);
CURLcode imgcache_curl_easy_setopt_write_callback(CURL *handle, curl_write_callback callback);
CURLcode imgcache_curl_easy_setopt_header_callback(CURL *handle, curl_write_callback callback);
CURLcode imgcache_curl_easy_setopt_xferinfo_callback(CURL *handle, curl_xferinfo_callback callback);
CURLcode imgcache_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value);
CURLcode imgcache_curl_easy_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value);
CURLcode imgcache_curl_easy_getinfo_string(CURL *handle, CURLINFO info, char **value);
CURLcode imgcache_curl_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value);
CURLMcode imgcache_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value);
CURLSHcode imgcache_curl_share_setopt_long(CURLSH *share, CURLSHoption option, long value);

// Why: libpng reports errors by longjmp. The simplified png_image_* API would
// avoid that, but it colour-manages (it treats 16-bit files as linear and
// applies gAMA), so its pixels differ from pngtopam's. These two functions
// keep setjmp and every longjmp inside C frames and return an error string.

/// Header facts read from IHDR/tRNS without allocating a pixel buffer.
typedef struct {
    uint32_t width;
    uint32_t height;
    int bit_depth;
    int color_type;
    int interlaced;
} imgcache_png_info;

/// Reads the PNG header. Returns 0 on success, or -1 with `error` (at least
/// 200 bytes) holding libpng's message.
int imgcache_png_read_info(const uint8_t *data, size_t size, imgcache_png_info *info, char *error);

/// Decodes the whole PNG to 8-bit RGBA (16-bit channels scaled with rounding,
/// gray expanded to RGB, tRNS turned into alpha, no gamma correction) into
/// `pixels`, which must hold width * height * 4 bytes. Returns 0 or -1 as above.
int imgcache_png_decode_rgba8(const uint8_t *data, size_t size, uint8_t *pixels, size_t pixels_size, char *error);

#endif
