#pragma once
// Warnings from the runtime (repairs of messy input, settings that are ignored), one line each, go
// to a sink the application chooses: by default standard error, as "wobble: warning: MESSAGE".
// The command-line tool and the Python module send them to their logger, an engine to its own.
#include <functional>
#include <string_view>

namespace wobble {

using WarningSink = std::function<void(std::string_view message)>;

// Replaces the sink for every thread (an empty function restores the default) and returns the
// previous one. Sinks may be called from any thread, one call at a time.
WarningSink set_warning_sink(WarningSink sink);

// Sends one warning to the sink.
void warn(std::string_view message);

}  // namespace wobble
