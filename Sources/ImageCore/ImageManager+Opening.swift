extension ImageManager.Configuration {
    /// Settings for the cache in `directory`, with its `imgcache.conf` read
    /// (defaults where the file is silent or missing).
    package static func reading(_ directory: CacheDirectory) throws -> Self {
        var configuration = Self(directory: directory)
        configuration.cache = try CacheConfiguration.load(fromCacheDirectory: directory.root)
        return configuration
    }
}

extension ImageManager {
    /// A manager with the standard decoder for `configuration.limits`, which
    /// turns JPEGs upright per their EXIF orientation when `appliesOrientation`
    /// and converts pixels with a profile to sRGB when `colourSpace` is `.srgb`.
    package convenience init(
        configuration: Configuration, appliesOrientation: Bool, colourSpace: ColourSpace = .original
    ) throws {
        try self.init(
            configuration: configuration,
            decoder: ImageDecoder(
                limits: configuration.limits, appliesOrientation: appliesOrientation, colourSpace: colourSpace,
                notes: configuration.events))
    }
}
