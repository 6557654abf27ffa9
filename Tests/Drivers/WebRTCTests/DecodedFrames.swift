import Media
import Testing

/// The frames aiortc saved (RGB, with their arrival times), checked against the screen pattern: each colour bar
/// where it belongs, and the frame number the pattern drew, to measure capture-to-decode latency.
enum DecodedFrames {
    /// Checks every saved frame's size and colour bars.
    /// - Parameters:
    ///   - captureTime: when the frame with that number was captured (Unix seconds), nil if never.
    /// - Returns: capture-to-arrival latency of each saved frame, in seconds.
    static func check(_ endpoint: WHIPTestEndpoint, _ results: [String: Any], pattern: ScreenPattern,
                      width: Int, height: Int, captureTime: (Int) -> Double?) throws -> [Double] {
        let saved = results["saved"] as? [[String: Any]] ?? []
        #expect(saved.count >= 10)
        var latencies: [Double] = []
        for entry in saved {
            #expect(entry["width"] as? Int == width && entry["height"] as? Int == height, "\(entry)")
            let rgb = try endpoint.file(named: entry["file"] as? String ?? "")
            guard rgb.count == width * height * 3 else { continue }
            func pixel(_ x: Int, _ y: Int) -> (r: Int, g: Int, b: Int) {
                let offset = (y * width + x) * 3
                return (Int(rgb[offset]), Int(rgb[offset + 1]), Int(rgb[offset + 2]))
            }
            // Each colour bar where it belongs: between the sliding box and the grey ramp (the rows above hold the
            // frame number and the time code).
            let box = pattern.boxRect(frameIndex: 0)
            let barsY = (box.y + box.height + height * 3 / 4) / 2
            for (bar, color) in ScreenPattern.barColors.enumerated() {
                let x = (2 * bar + 1) * width / (2 * ScreenPattern.barColors.count)
                let got = pixel(x, barsY)
                #expect(abs(got.r - Int(color.r)) < 40 && abs(got.g - Int(color.g)) < 40
                        && abs(got.b - Int(color.b)) < 40, "bar \(bar) is \(got), expected \(color)")
            }
            var number = 0
            for bit in 0..<ScreenPattern.frameNumberBits {
                let rect = pattern.blockRect(bit: bit)
                number = number << 1 | (pixel(rect.x + rect.width / 2, rect.y + rect.height / 2).g > 128 ? 1 : 0)
            }
            let captured = try #require(captureTime(number), "frame number \(number) was never captured")
            latencies.append((entry["arrival"] as? Double ?? 0) - captured)
        }
        return latencies
    }
}
