// tools/browser/stb_impl.cpp — the stb functions the figure code calls, compiled for the
// browser build: natively they come from Debian's libstb (-lstb), which has no WebAssembly
// build. The panels draw no PNG; the figure code is linked only because the trainers the
// panels share with the chapters (tools/d2l/train/) can draw curves.
#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STB_TRUETYPE_IMPLEMENTATION
#include <stb/stb_image_write.h>
#include <stb/stb_truetype.h>
