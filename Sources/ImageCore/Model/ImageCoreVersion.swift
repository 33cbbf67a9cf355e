/// The version reported in the User-Agent and `--version`.
public enum ImageCoreVersion {
    /// The release version.
    public static let string = "0.1.0"
}
