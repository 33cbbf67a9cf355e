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
    /// A manager with the standard decoder for `configuration.limits`: JPEGs
    /// turned upright per their EXIF orientation, colours as stored. A
    /// request's rendition decides both for its own pixels (`ImageRequest.render`).
    package convenience init(configuration: Configuration) throws {
        try self.init(
            configuration: configuration,
            decoder: ImageDecoder(limits: configuration.limits, notes: configuration.events))
    }
}
