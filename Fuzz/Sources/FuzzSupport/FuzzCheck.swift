/// Stops the run with a crash that libFuzzer records, when a property of the code under test does not hold.
/// - Parameters:
///   - condition: the property.
///   - message: what went wrong (printed with the crash).
public func fuzzCheck(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() {
        fuzzFail(message())
    }
}

/// Stops the run with a crash that libFuzzer records.
/// - Parameter message: what went wrong.
public func fuzzFail(_ message: String) -> Never {
    fatalError("fuzz property violated: \(message)")
}
