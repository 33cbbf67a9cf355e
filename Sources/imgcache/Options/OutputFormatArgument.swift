// Why public: a conformance of ImageCore's public types is itself public.
public import ArgumentParser
import ImageCore

// `--encode` and `--decode` take ImageCore's format values by their names.
extension OutputFormat.Encoding: ExpressibleByArgument {}
extension OutputFormat.Pixels: ExpressibleByArgument {}
// `--colorspace srgb|original`.
extension ColourSpace: ExpressibleByArgument {}
