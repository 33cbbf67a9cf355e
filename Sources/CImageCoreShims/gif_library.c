// giflib, loaded on first use (library_loader.h says how and why): a warm
// cache hit never decodes a GIF. A giflib function used from Swift or C
// that is missing here fails the link: add one line below.
#include "library_loader.h"
#include "codec_libraries.h"

#include <gif_lib.h>

#if GIFLIB_MAJOR != 5
#error "unknown giflib version: add its soname here"
#endif

#define GIF_FUNCTIONS(F, V, N)                                                                                \
    F(int, DGifCloseFile, (GifFileType * file, int *error), (file, error))                                    \
    F(int, DGifExtensionToGCB, (const size_t length, const GifByteType *extension, GraphicsControlBlock *gcb), \
      (length, extension, gcb))                                                                               \
    F(int, DGifGetCode, (GifFileType * file, int *size, GifByteType **block), (file, size, block))            \
    F(int, DGifGetCodeNext, (GifFileType * file, GifByteType **block), (file, block))                         \
    F(int, DGifGetExtension, (GifFileType * file, int *code, GifByteType **extension), (file, code, extension)) \
    F(int, DGifGetExtensionNext, (GifFileType * file, GifByteType **extension), (file, extension))            \
    F(int, DGifGetImageDesc, (GifFileType * file), (file))                                                    \
    F(int, DGifGetLine, (GifFileType * file, GifPixelType *line, int length), (file, line, length))           \
    F(int, DGifGetRecordType, (GifFileType * file, GifRecordType *type), (file, type))                        \
    F(GifFileType *, DGifOpen, (void *user, InputFunc read, int *error), (user, read, error))                 \
    F(int, EGifCloseFile, (GifFileType * file, int *error), (file, error))                                    \
    F(size_t, EGifGCBToExtension, (const GraphicsControlBlock *gcb, GifByteType *extension), (gcb, extension)) \
    F(GifFileType *, EGifOpen, (void *user, OutputFunc write, int *error), (user, write, error))              \
    F(int, EGifPutExtension, (GifFileType * file, const int code, const int length, const void *extension),  \
      (file, code, length, extension))                                                                        \
    F(int, EGifPutExtensionBlock, (GifFileType * file, const int length, const void *extension),             \
      (file, length, extension))                                                                              \
    F(int, EGifPutExtensionLeader, (GifFileType * file, const int code), (file, code))                        \
    F(int, EGifPutExtensionTrailer, (GifFileType * file), (file))                                             \
    F(int, EGifPutImageDesc,                                                                                  \
      (GifFileType * file, const int left, const int top, const int width, const int height,                  \
       const bool interlace, const ColorMapObject *colours),                                                  \
      (file, left, top, width, height, interlace, colours))                                                   \
    F(int, EGifPutLine, (GifFileType * file, GifPixelType *line, int length), (file, line, length))           \
    F(int, EGifPutScreenDesc,                                                                                 \
      (GifFileType * file, const int width, const int height, const int resolution, const int background,     \
       const ColorMapObject *colours),                                                                        \
      (file, width, height, resolution, background, colours))                                                 \
    V(void, EGifSetGifVersion, (GifFileType * file, const bool gif89), (file, gif89))                         \
    F(const char *, GifErrorString, (int error), (error))                                                     \
    V(void, GifFreeMapObject, (ColorMapObject * map), (map))                                                  \
    F(ColorMapObject *, GifMakeMapObject, (int count, const GifColorType *colours), (count, colours))

GIF_FUNCTIONS(IMGCACHE_POINTER, IMGCACHE_POINTER, IMGCACHE_POINTER)
IMGCACHE_SYMBOLS(GIF_FUNCTIONS);
static imgcache_library library =
    IMGCACHE_LIBRARY("libgif.so.7", "cannot load giflib (install libgif7)", "", symbols, NULL);
GIF_FUNCTIONS(IMGCACHE_FORWARD, IMGCACHE_FORWARD_VOID, IMGCACHE_FORWARD_NORETURN)

// Why: a missing library is the error of the image (or store) that needed it,
// reported before the first forwarder could end the process (codec_libraries.h).
int imgcache_gif_library_load(char *error) { return imgcache_library_load(&library, error); }
