#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Starts plain threads for work that must not run on the cooperative pool (blocking C calls, real-time media).
///
/// Why not Foundation's `Thread`: it is the one thing many modules took from the whole of Foundation, which a
/// statically linked binary then carries and initialises (CoreFoundation, ~2.5 MB of a broadcaster's resident memory);
/// a pthread does the same job.
public enum DetachedThread {
    /// Runs `body` on a new detached thread.
    /// - Parameters:
    ///   - name: the thread's name for debuggers and `top -H` (the kernel keeps the first 15 bytes).
    ///   - body: the work; the thread ends when it returns.
    /// - Returns: false when no thread could be started; `body` then runs on the calling thread, so nothing is lost.
    @discardableResult
    public static func start(name: String, _ body: @escaping @Sendable () -> Void) -> Bool {
        let context = Unmanaged.passRetained(Box(name: name, body: body)).toOpaque()
        #if canImport(Glibc)
        var thread = pthread_t()
        #else
        var thread: pthread_t?
        #endif
        // The start routine's argument is optional in Glibc's signature and not in Darwin's (issue 35 defect 1:
        // `guard let` on a non-optional does not compile there), so each platform has its own closure.
        #if canImport(Glibc)
        let result = pthread_create(&thread, nil, { context in
            guard let context else { return nil }
            Box.run(context)
            return nil
        }, context)
        #else
        let result = pthread_create(&thread, nil, { context in
            Box.run(context)
            return nil
        }, context)
        #endif
        guard result == 0 else {
            Unmanaged<Box>.fromOpaque(context).takeRetainedValue().body()
            return false
        }
        #if canImport(Glibc)
        pthread_detach(thread)
        #else
        if let thread { pthread_detach(thread) }
        #endif
        return true
    }

    private final class Box: Sendable {
        let name: String
        let body: @Sendable () -> Void

        init(name: String, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }

        /// The new thread's work: takes the box the starter retained, names the thread, runs the body.
        static func run(_ context: UnsafeMutableRawPointer) {
            let box = Unmanaged<Box>.fromOpaque(context).takeRetainedValue()
            box.setName()
            box.body()
        }

        /// Names the calling thread (Linux keeps 15 bytes, so they are cut). Glibc's module does not export
        /// `pthread_setname_np` (a GNU extension); writing the name to the thread's `comm` file is what it does.
        func setName() {
            #if canImport(Glibc)
            let descriptor = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
            guard descriptor >= 0 else { return }
            let bytes = Array(name.utf8.prefix(15))
            _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            close(descriptor)
            #else
            _ = pthread_setname_np(name)
            #endif
        }
    }
}
