#pragma once
// In the browser, files the viewer saves land in the page's memory file system: offer them to
// the user as a download. On the desktop the file is already where it belongs: nothing to do.
#include <string>

namespace wobble::viewer {

void offer_download(const std::string& path);

}  // namespace wobble::viewer
