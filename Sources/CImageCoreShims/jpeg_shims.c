#include "imgcache_jpeg.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jerror.h>
#include <jpeglib.h>

/// An error manager that records the message and jumps back to the shim
/// function that made the libjpeg call.
typedef struct {
    struct jpeg_error_mgr base;
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
    /// Set by a "premature end of data" warning: a truncated file, refused.
    int premature_end;
} error_manager;

struct imgcache_jpeg {
    struct jpeg_decompress_struct cinfo;
    error_manager errors;
    int started;
    int is_cmyk;
    /// CMYK rows are handed out as they are (imgcache_jpeg_keep_cmyk).
    int keeps_cmyk;
    int channels;
    /// One CMYK row, allocated from libjpeg's image pool (freed with it).
    JSAMPARRAY cmyk_row;
    struct jpeg_progress_mgr progress;
    int max_scans;
};

static void on_error(j_common_ptr cinfo) {
    error_manager *errors = (error_manager *)cinfo->err;
    cinfo->err->format_message(cinfo, errors->message);
    longjmp(errors->jump, 1);
}

// Why: libjpeg prints warnings to stderr by default. Corrupt-but-decodable
// data is accepted (browsers show such images), except a premature end.
static void on_message(j_common_ptr cinfo, int level) {
    error_manager *errors = (error_manager *)cinfo->err;
    if (level >= 0) {
        return;  // trace messages
    }
    cinfo->err->num_warnings++;
    if (cinfo->err->msg_code == JWRN_JPEG_EOF) {
        errors->premature_end = 1;
        cinfo->err->format_message(cinfo, errors->message);
    }
}

static void init_errors(error_manager *errors) {
    jpeg_std_error(&errors->base);
    errors->base.error_exit = on_error;
    errors->base.emit_message = on_message;
    errors->message[0] = 0;
    errors->premature_end = 0;
}

// Why: each scan of a progressive JPEG costs a pass over every coefficient,
// so thousands of tiny scans are a CPU bomb. libjpeg calls this between
// chunks of input, with the number of the scan being read (TurboJPEG 3's
// TJPARAM_SCANLIMIT works the same way).
static void on_progress(j_common_ptr common) {
    imgcache_jpeg *jpeg = (imgcache_jpeg *)((char *)common - offsetof(imgcache_jpeg, cinfo));
    if (jpeg->cinfo.input_scan_number > jpeg->max_scans) {
        snprintf(jpeg->errors.message, sizeof jpeg->errors.message,
                 "too many JPEG scans: more than the limit of %d", jpeg->max_scans);
        longjmp(jpeg->errors.jump, 1);
    }
}

imgcache_jpeg *imgcache_jpeg_create(void) {
    imgcache_jpeg *jpeg = calloc(1, sizeof(imgcache_jpeg));
    if (!jpeg) {
        return NULL;
    }
    jpeg->cinfo.err = &jpeg->errors.base;
    init_errors(&jpeg->errors);
    if (setjmp(jpeg->errors.jump)) {
        free(jpeg);
        return NULL;
    }
    jpeg_create_decompress(&jpeg->cinfo);
    return jpeg;
}

void imgcache_jpeg_close(imgcache_jpeg *jpeg) {
    if (!jpeg) {
        return;
    }
    jpeg_destroy_decompress(&jpeg->cinfo);
    free(jpeg);
}

const char *imgcache_jpeg_error(const imgcache_jpeg *jpeg) {
    return jpeg->errors.message[0] ? jpeg->errors.message : "unknown error";
}

/// The data of the first APP1 segment holding Exif before the first scan,
/// found in the JPEG's bytes in place. Why not jpeg_save_markers: libjpeg
/// copies a saved marker a byte at a time through its source manager, and a
/// camera's 15 KB Exif block cost 167 k instructions a header (a cold
/// batch's JPEG checks). The walk skips what libjpeg's next_marker skips
/// (stray bytes before a marker, fill bytes), so it finds the segment
/// libjpeg would have saved.
static void find_exif(const uint8_t *data, size_t size, const uint8_t **exif, size_t *exif_size) {
    size_t i = 2;  // after SOI
    while (i + 1 < size) {
        if (data[i] != 0xFF || data[i + 1] == 0xFF) {
            i++;
            continue;
        }
        uint8_t marker = data[i + 1];
        i += 2;
        if (marker == 0xDA || marker == 0xD9) {
            return;  // SOS or EOI: the header is over
        }
        if (marker == 0x00 || marker == 0x01 || (marker >= 0xD0 && marker <= 0xD8)) {
            continue;  // no length field
        }
        if (i + 2 > size) {
            return;
        }
        size_t length = (size_t)data[i] << 8 | data[i + 1];
        if (length < 2 || length > size - i) {
            return;
        }
        if (marker == 0xE1 && length - 2 >= 6 && memcmp(data + i + 2, "Exif\0\0", 6) == 0) {
            *exif = data + i + 2;
            *exif_size = length - 2;
            return;
        }
        i += length;
    }
}

int imgcache_jpeg_read_header(imgcache_jpeg *jpeg, const uint8_t *data, size_t size, imgcache_jpeg_header *header) {
    struct jpeg_decompress_struct *cinfo = &jpeg->cinfo;
    if (setjmp(jpeg->errors.jump)) {
        return -1;
    }
    jpeg_mem_src(cinfo, data, (unsigned long)size);
    if (jpeg_read_header(cinfo, TRUE) != JPEG_HEADER_OK) {
        snprintf(jpeg->errors.message, sizeof jpeg->errors.message, "no image in the data stream");
        return -1;
    }
    memset(header, 0, sizeof *header);
    header->width = cinfo->image_width;
    header->height = cinfo->image_height;
    header->components = cinfo->num_components;
    jpeg->is_cmyk = cinfo->jpeg_color_space == JCS_CMYK || cinfo->jpeg_color_space == JCS_YCCK;
    header->is_cmyk = jpeg->is_cmyk;
    header->adobe = cinfo->saw_Adobe_marker;
    const uint8_t *exif = NULL;
    size_t exif_size = 0;
    find_exif(data, size, &exif, &exif_size);
    header->exif = exif;
    header->exif_size = exif_size;
    return 0;
}

int imgcache_jpeg_start(imgcache_jpeg *jpeg, int scale_eighths, int channels, int max_scans, uint32_t *width,
                        uint32_t *height) {
    struct jpeg_decompress_struct *cinfo = &jpeg->cinfo;
    if (setjmp(jpeg->errors.jump)) {
        return -1;
    }
    if (channels != 3 && channels != 4) {
        snprintf(jpeg->errors.message, sizeof jpeg->errors.message, "unsupported pixel layout");
        return -1;
    }
    jpeg->channels = channels;
    jpeg->max_scans = max_scans;
    jpeg->progress.progress_monitor = on_progress;
    cinfo->progress = &jpeg->progress;
    cinfo->scale_num = (unsigned int)scale_eighths;
    cinfo->scale_denom = 8;
    // djpeg's defaults (islow DCT, fancy upsampling) are libjpeg's defaults.
    if (jpeg->is_cmyk) {
        cinfo->out_color_space = JCS_CMYK;
    } else {
        cinfo->out_color_space = channels == 4 ? JCS_EXT_RGBA : JCS_EXT_RGB;
    }
    jpeg_start_decompress(cinfo);
    jpeg->started = 1;
    if (jpeg->is_cmyk && !jpeg->keeps_cmyk) {
        jpeg->cmyk_row = cinfo->mem->alloc_sarray((j_common_ptr)cinfo, JPOOL_IMAGE, cinfo->output_width * 4, 1);
    }
    *width = cinfo->output_width;
    *height = cinfo->output_height;
    return 0;
}

/// libjpeg-turbo's cmyk_to_rgb (cmyk.h), as djpeg -ppm applies it: no ICC.
static void convert_cmyk_row(const JSAMPLE *cmyk, uint8_t *out, JDIMENSION width, int channels) {
    for (JDIMENSION x = 0; x < width; x++, cmyk += 4, out += channels) {
        unsigned k = cmyk[3];
        out[0] = (uint8_t)((cmyk[0] * k + 127) / 255);
        out[1] = (uint8_t)((cmyk[1] * k + 127) / 255);
        out[2] = (uint8_t)((cmyk[2] * k + 127) / 255);
        if (channels == 4) {
            out[3] = 255;
        }
    }
}

void imgcache_jpeg_keep_cmyk(imgcache_jpeg *jpeg) { jpeg->keeps_cmyk = 1; }

int imgcache_jpeg_read_rows(imgcache_jpeg *jpeg, uint8_t *rows, size_t stride, int max_rows) {
    struct jpeg_decompress_struct *cinfo = &jpeg->cinfo;
    if (setjmp(jpeg->errors.jump)) {
        return -1;
    }
    int count = 0;
    while (count < max_rows && cinfo->output_scanline < cinfo->output_height) {
        uint8_t *target = rows + (size_t)count * stride;
        if (jpeg->is_cmyk && !jpeg->keeps_cmyk) {
            jpeg_read_scanlines(cinfo, jpeg->cmyk_row, 1);
            convert_cmyk_row(jpeg->cmyk_row[0], target, cinfo->output_width, jpeg->channels);
        } else {
            JSAMPROW row = target;
            jpeg_read_scanlines(cinfo, &row, 1);
        }
        count++;
    }
    if (jpeg->errors.premature_end) {
        return -1;
    }
    return count;
}

int imgcache_jpeg_finish(imgcache_jpeg *jpeg) {
    if (setjmp(jpeg->errors.jump)) {
        return -1;
    }
    jpeg_finish_decompress(&jpeg->cinfo);
    return jpeg->errors.premature_end ? -1 : 0;
}

int imgcache_jpeg_encode_rgba(const uint8_t *pixels, uint32_t width, uint32_t height, int quality,
                              uint8_t **out, size_t *out_size, char *error) {
    struct jpeg_compress_struct cinfo;
    error_manager errors;
    // Volatile: assigned after setjmp and read after a longjmp.
    unsigned char *volatile buffer = NULL;
    unsigned long size = 0;
    memset(&cinfo, 0, sizeof cinfo);
    cinfo.err = &errors.base;
    init_errors(&errors);
    if (setjmp(errors.jump)) {
        snprintf(error, 200, "%s", errors.message);
        jpeg_destroy_compress(&cinfo);
        free(buffer);
        return -1;
    }
    jpeg_create_compress(&cinfo);
    jpeg_mem_dest(&cinfo, (unsigned char **)&buffer, &size);
    cinfo.image_width = width;
    cinfo.image_height = height;
    cinfo.input_components = 4;
    cinfo.in_color_space = JCS_EXT_RGBA;
    jpeg_set_defaults(&cinfo);  // YCbCr 4:2:0, islow DCT
    jpeg_set_quality(&cinfo, quality, TRUE);
    jpeg_start_compress(&cinfo, TRUE);
    while (cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW row = (JSAMPROW)(pixels + (size_t)cinfo.next_scanline * width * 4);
        jpeg_write_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    *out = buffer;
    *out_size = size;
    return 0;
}
