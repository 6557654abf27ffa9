/// Decimal text for playlists without Foundation: RFC 8216bis §4.2 decimal-floating-point values and integers.
enum DecimalText {
    /// `value` / `scale` seconds written with `digits` decimals, rounded to nearest (e.g. 30060 / 90000 → "0.33400").
    static func seconds(_ value: Int64, scale: Int64, digits: Int = 5) -> String {
        var unit: Int64 = 1
        for _ in 0..<digits { unit *= 10 }
        let scaled = (max(value, 0) * unit + scale / 2) / scale
        let whole = scaled / unit
        var fraction = String(scaled % unit)
        while fraction.count < digits { fraction = "0" + fraction }
        return digits == 0 ? "\(whole)" : "\(whole).\(fraction)"
    }

    /// Milliseconds as seconds with three decimals (334 → "0.334").
    static func milliseconds(_ value: Int64) -> String {
        seconds(value, scale: 1000, digits: 3)
    }

    /// Zero-padded decimal of at least `width` digits.
    static func padded(_ value: Int64, width: Int) -> String {
        var text = String(value)
        while text.count < width { text = "0" + text }
        return text
    }
}
