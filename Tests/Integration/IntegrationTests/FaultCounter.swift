import Synchronization

/// An integer shared between a test and its peer threads.
final class FaultCounter: Sendable {
    private let storage = Atomic<Int>(0)

    var value: Int { storage.load(ordering: .acquiring) }

    func add(_ amount: Int) { storage.add(amount, ordering: .acquiringAndReleasing) }

    func store(_ value: Int) { storage.store(value, ordering: .releasing) }
}
