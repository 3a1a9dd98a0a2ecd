#include "web_download.hpp"

#ifdef __EMSCRIPTEN__
#include <emscripten.h>
#endif

namespace wobble::viewer {

void offer_download(const std::string& path) {
#ifdef __EMSCRIPTEN__
  EM_ASM(
      {
        const path = UTF8ToString($0);
        const bytes = FS.readFile(path);
        const link = document.createElement('a');
        link.href = URL.createObjectURL(new Blob([bytes]));
        link.download = path.split('/').pop();
        link.click();
      },
      path.c_str());
#else
  (void)path;
#endif
}

}  // namespace wobble::viewer
