import ImageCore

/// Loads one image and measures how long it took, turning any error into an
/// `ImageCoreError`: what `fetch` and `prefetch` report per URL.
func timedLoad(_ manager: ImageManager, _ request: ImageRequest) async -> (Result<ImageResponse, ImageCoreError>, Double) {
    let start = WallClock.monotonic()
    do {
        let response = try await manager.load(request)
        return (.success(response), (WallClock.monotonic() - start) * 1000)
    } catch {
        return (.failure(coreError(error)), (WallClock.monotonic() - start) * 1000)
    }
}
