#ifndef IMGCACHE_SHIMS_H
#define IMGCACHE_SHIMS_H

#include <curl/curl.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/xattr.h>

#include "imgcache_jpeg.h"
#include "avif_shims.h"
#include "jxl_shims.h"
#include "heif_shims.h"
#include "hevc_shims.h"
#include "lcms_shims.h"
#include "codec_libraries.h"

// Why libcurl is loaded with dlopen: linking it pulls in about 30 shared
// libraries (GnuTLS, Kerberos, LDAP, ...) whose constructors cost 5 ms at
// every process start, more than half of a warm cache hit. Only a command
// that really downloads loads it, through this table of functions.
// Why setopt/getinfo wrappers: those functions are variadic, which Swift
// cannot call; each wrapper fixes the argument type of one family of options.

/// Asks GnuTLS not to initialise itself when libcurl's dependencies load it
/// (librtmp and libldap link it; imgcache's libcurl speaks TLS through
/// OpenSSL and only HTTP(S)): that initialisation costs a download 0.8 MiB of
/// resident memory for nothing. Sets GNUTLS_NO_IMPLICIT_INIT=1 unless the
/// environment already has it; call before any thread starts (setenv).
void imgcache_curl_prepare_process(void);

/// Loads libcurl.so.4 and resolves every function used (library_loader.c).
/// Returns 0, or -1 with a message in `error` (at least 256 bytes). Call it
/// before anything else here; later calls return the first one's outcome.
int imgcache_curl_load(char *error);

CURLcode imgcache_curl_global_init(long flags);
const char *imgcache_curl_easy_strerror(CURLcode code);
CURL *imgcache_curl_easy_init(void);
void imgcache_curl_easy_cleanup(CURL *handle);
void imgcache_curl_easy_reset(CURL *handle);
CURLcode imgcache_curl_easy_pause(CURL *handle, int bitmask);
struct curl_slist *imgcache_curl_slist_append(struct curl_slist *list, const char *string);
void imgcache_curl_slist_free_all(struct curl_slist *list);
CURLM *imgcache_curl_multi_init(void);
CURLMcode imgcache_curl_multi_add_handle(CURLM *multi, CURL *handle);
CURLMcode imgcache_curl_multi_remove_handle(CURLM *multi, CURL *handle);
CURLMcode imgcache_curl_multi_perform(CURLM *multi, int *running);
CURLMcode imgcache_curl_multi_poll(CURLM *multi, int timeout_ms);
CURLMcode imgcache_curl_multi_wakeup(CURLM *multi);
CURLMsg *imgcache_curl_multi_info_read(CURLM *multi, int *remaining);
CURLMcode imgcache_curl_multi_cleanup(CURLM *multi);
CURLSH *imgcache_curl_share_init(void);
CURLSHcode imgcache_curl_share_cleanup(CURLSH *share);

CURLcode imgcache_curl_easy_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode imgcache_curl_easy_setopt_string(CURL *handle, CURLoption option, const char *value);
CURLcode imgcache_curl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value);
CURLcode imgcache_curl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value);
CURLcode imgcache_curl_easy_setopt_write_callback(CURL *handle, curl_write_callback callback);
CURLcode imgcache_curl_easy_setopt_header_callback(CURL *handle, curl_write_callback callback);
CURLcode imgcache_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value);
CURLcode imgcache_curl_easy_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value);
CURLcode imgcache_curl_easy_getinfo_string(CURL *handle, CURLINFO info, char **value);
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
    int interlaced;
} imgcache_png_info;

/// Reads the PNG header. Returns 0 on success, or -1 with `error` (at least
/// 200 bytes) holding libpng's message.
int imgcache_png_read_info(const uint8_t *data, size_t size, imgcache_png_info *info, char *error);

/// Decodes the whole PNG to 8-bit RGBA (16-bit channels scaled with rounding,
/// gray expanded to RGB, tRNS turned into alpha, no gamma correction) into
/// `pixels`, which must hold width * height * 4 bytes. Returns 0 or -1 as above.
int imgcache_png_decode_rgba8(const uint8_t *data, size_t size, uint8_t *pixels, size_t pixels_size, char *error);

/// A PNG read row by row (no full-frame buffer), for a non-interlaced image.
typedef struct imgcache_png imgcache_png;

/// Reads the header of `data` (which must stay valid until close) into
/// `info`. Returns NULL only when out of memory; check imgcache_png_error.
imgcache_png *imgcache_png_open(const uint8_t *data, size_t size, imgcache_png_info *info);
/// libpng's message for the last failure, or NULL if none.
const char *imgcache_png_error(const imgcache_png *stream);
/// Sets the transformations of imgcache_png_decode_rgba8 for `channels`
/// bytes per pixel (4: RGBA; 3: RGB, alpha dropped). Returns 0 or -1.
int imgcache_png_start_rows(imgcache_png *stream, int channels);
/// Decodes the next `count` rows into `rows`, `stride` bytes apart (png_read_row). Returns 0 or -1.
int imgcache_png_read_rows(imgcache_png *stream, uint8_t *rows, size_t stride, int count);
/// Reads the chunks after the image data (png_read_end). Returns 0 or -1.
int imgcache_png_finish(imgcache_png *stream);
/// Frees the reader, whatever its state.
void imgcache_png_close(imgcache_png *stream);

// Digests (digest_shims.c): SHA-256 from Nettle names cache files
// after their keys; XXH3-128 from xxHash (compiled in, header-only) checks
// entries' bytes, many times faster and enough to detect damage.

/// The SHA-256 of `size` bytes at `data`. The corresponding C functions are
/// Nettle's `sha256_init`, `sha256_update` and `sha256_digest`.
void imgcache_sha256(const void *data, size_t size, uint8_t digest[32]);

/// Nettle's `pbkdf2_hmac_sha256`: `iterations` rounds of HMAC-SHA256 of
/// `secret` with `salt`, 32 bytes out.
void imgcache_pbkdf2_sha256(const void *secret, size_t secret_size, const void *salt, size_t salt_size,
                            unsigned iterations, uint8_t digest[32]);

/// The XXH3 128-bit hash, in canonical (big-endian) byte order. The
/// corresponding C functions are `XXH3_128bits` and `XXH128_canonicalFromHash`.
void imgcache_xxh3_128(const void *data, size_t size, uint8_t digest[16]);

// CRC-32 (crc32_shims.c): PNG chunks' checksum, zlib's answers.

/// The CRC-32 (ISO 3309, as zlib's `crc32`) of `size` bytes at `data`,
/// continuing from `crc` (0 to start): folded with PCLMULQDQ where the CPU
/// has it, else eight bytes a step by tables.
uint32_t imgcache_crc32(uint32_t crc, const void *data, size_t size);

/// Whether `imgcache_crc32` folds with PCLMULQDQ on this CPU (1) or not (0).
int imgcache_crc32_folds(void);

/// `imgcache_crc32` by the tables alone, for tests to hold both ways to zlib's.
uint32_t imgcache_crc32_tables(uint32_t crc, const void *data, size_t size);

// Memory (malloc_shims.c).

/// Caps glibc's heaps (arenas) at `count`; returns 1 on success. The
/// corresponding C function is `mallopt(M_ARENA_MAX, count)`.
int imgcache_limit_malloc_arenas(int count);

// Directories (dirent_shims.c).

/// Reads as many of directory `fd`'s records (`struct dirent64`) as fit in
/// `size` bytes of `buffer`, from its current offset; returns the bytes
/// filled, 0 at the end, -1 with errno. The corresponding C function is
/// `getdents64`.
ssize_t imgcache_getdents64(int fd, void *buffer, size_t size);

#endif
