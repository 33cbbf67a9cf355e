#ifndef IMGCACHE_JXL_SHIMS_H
#define IMGCACHE_JXL_SHIMS_H

#include <jxl/decode.h>
#include <jxl/encode.h>

// Why libjxl is loaded with dlopen: it brings libhwy, libbrotli (three
// libraries) and libstdc++ with it, whose loading and constructors would
// cost every process start, a warm cache hit included. Only a process that
// decodes or encodes a JPEG XL loads it, through this table of functions,
// each with libjxl's own signature but the colour-profile calls below.

/// Loads the libjxl whose ABI matches the header we were built with and
/// resolves every function used. Returns 0, or -1 with a message in `error`
/// (at least 256 bytes). Safe to call from several threads: the first call
/// loads, later ones return its result.
int imgcache_jxl_load(char *error);

/// The soname imgcache_jxl_load opens, for asking whether it is installed without loading it.
const char *imgcache_jxl_soname(void);

/// A pool of libjxl threads for one decode or encode (`JxlThreadParallelRunnerCreate`
/// from libjxl_threads, loaded on first use), or NULL: libjxl_threads is
/// missing, or one thread is all this call gets (see imgcache_jxl_runner_threads),
/// and libjxl then runs on the caller's thread. Call after imgcache_jxl_load.
/// Free with imgcache_jxl_runner_destroy after the decoder or encoder it serves.
void *imgcache_jxl_runner_create(void);
/// Stops and frees a pool from imgcache_jxl_runner_create (`JxlThreadParallelRunnerDestroy`); NULL is ignored.
void imgcache_jxl_runner_destroy(void *runner);
/// Threads a new pool gets while `busy` others run: the CPUs this process
/// may use (sched_getaffinity) shared among them and the other decodes using
/// threads (a HEIC grid's tiles), or what IMGCACHE_JXL_THREADS says.
size_t imgcache_jxl_runner_threads(size_t busy);
/// Hands `runner` (not NULL) to the decoder (`JxlDecoderSetParallelRunner`), before any input is processed.
JxlDecoderStatus imgcache_jxl_decoder_set_runner(JxlDecoder *decoder, void *runner);
/// Hands `runner` (not NULL) to the encoder (`JxlEncoderSetParallelRunner`), before any frame is added.
JxlEncoderStatus imgcache_jxl_encoder_set_runner(JxlEncoder *encoder, void *runner);

JxlDecoder *imgcache_jxl_decoder_create(void);
void imgcache_jxl_decoder_destroy(JxlDecoder *decoder);
JxlDecoderStatus imgcache_jxl_decoder_subscribe_events(JxlDecoder *decoder, int events);
JxlDecoderStatus imgcache_jxl_decoder_set_unpremultiply_alpha(JxlDecoder *decoder, JXL_BOOL unpremultiply);
JxlDecoderStatus imgcache_jxl_decoder_set_input(JxlDecoder *decoder, const uint8_t *data, size_t size);
void imgcache_jxl_decoder_close_input(JxlDecoder *decoder);
/// JxlDecoderProcessInput, with libjxl's failure prints kept off stderr (see jxl_shims.c); so too
/// imgcache_jxl_encoder_add_image_frame and imgcache_jxl_encoder_process_output.
JxlDecoderStatus imgcache_jxl_decoder_process_input(JxlDecoder *decoder);
JxlDecoderStatus imgcache_jxl_decoder_get_basic_info(const JxlDecoder *decoder, JxlBasicInfo *info);
JxlDecoderStatus imgcache_jxl_decoder_get_frame_header(const JxlDecoder *decoder, JxlFrameHeader *header);
JxlDecoderStatus imgcache_jxl_decoder_set_preferred_color_profile(JxlDecoder *decoder,
                                                                  const JxlColorEncoding *encoding);
JxlDecoderStatus imgcache_jxl_decoder_set_image_out_callback(JxlDecoder *decoder, const JxlPixelFormat *format,
                                                             JxlImageOutCallback callback, void *opaque);

// libjxl 0.9 dropped the unused pixel-format argument of the three
// colour-profile calls; these take none and pass NULL where 0.7 and 0.8 want it.

/// The colour encoding of `target` as structured data (JxlDecoderGetColorAsEncodedProfile);
/// an error when it is an ICC profile instead.
JxlDecoderStatus imgcache_jxl_decoder_get_color_as_encoded_profile(const JxlDecoder *decoder,
                                                                   JxlColorProfileTarget target,
                                                                   JxlColorEncoding *encoding);
/// The size of the ICC profile of `target` (JxlDecoderGetICCProfileSize).
JxlDecoderStatus imgcache_jxl_decoder_get_icc_profile_size(const JxlDecoder *decoder, JxlColorProfileTarget target,
                                                           size_t *size);
/// The ICC profile of `target` (JxlDecoderGetColorAsICCProfile).
JxlDecoderStatus imgcache_jxl_decoder_get_color_as_icc_profile(const JxlDecoder *decoder,
                                                               JxlColorProfileTarget target, uint8_t *icc,
                                                               size_t size);
void imgcache_jxl_color_encoding_set_to_srgb(JxlColorEncoding *encoding, JXL_BOOL is_gray);

JxlEncoder *imgcache_jxl_encoder_create(void);
void imgcache_jxl_encoder_destroy(JxlEncoder *encoder);
JxlEncoderFrameSettings *imgcache_jxl_encoder_frame_settings_create(JxlEncoder *encoder);
void imgcache_jxl_encoder_init_basic_info(JxlBasicInfo *info);
JxlEncoderStatus imgcache_jxl_encoder_set_basic_info(JxlEncoder *encoder, const JxlBasicInfo *info);
JxlEncoderStatus imgcache_jxl_encoder_set_color_encoding(JxlEncoder *encoder, const JxlColorEncoding *encoding);
JxlEncoderStatus imgcache_jxl_encoder_set_icc_profile(JxlEncoder *encoder, const uint8_t *icc, size_t size);
JxlEncoderStatus imgcache_jxl_encoder_set_frame_distance(JxlEncoderFrameSettings *settings, float distance);
JxlEncoderStatus imgcache_jxl_encoder_set_frame_lossless(JxlEncoderFrameSettings *settings, JXL_BOOL lossless);
JxlEncoderStatus imgcache_jxl_encoder_frame_settings_set_option(JxlEncoderFrameSettings *settings,
                                                                JxlEncoderFrameSettingId option, int64_t value);
void imgcache_jxl_encoder_init_frame_header(JxlFrameHeader *header);
JxlEncoderStatus imgcache_jxl_encoder_set_frame_header(JxlEncoderFrameSettings *settings,
                                                       const JxlFrameHeader *header);
JxlEncoderStatus imgcache_jxl_encoder_add_image_frame(const JxlEncoderFrameSettings *settings,
                                                      const JxlPixelFormat *format, const void *pixels, size_t size);
void imgcache_jxl_encoder_close_input(JxlEncoder *encoder);
JxlEncoderStatus imgcache_jxl_encoder_process_output(JxlEncoder *encoder, uint8_t **next_out, size_t *avail_out);
JxlEncoderError imgcache_jxl_encoder_get_error(JxlEncoder *encoder);

#endif
