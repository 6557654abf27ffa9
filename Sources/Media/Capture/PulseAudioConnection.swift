#if canImport(CPulse)
import CPulse

/// A connection to a PulseAudio server (or PipeWire's pulse server) running on its own threaded mainloop.
///
/// Every `pa_*` call on the context or its streams must hold the mainloop lock (``locked(_:)``); callbacks run on
/// the mainloop's thread with the lock held. Owned by one capture object; freed in `deinit`.
final class PulseAudioConnection {
    let mainloop: OpaquePointer
    let context: OpaquePointer
    /// Where the server was looked for, for messages.
    let serverDescription: String

    /// Starts a mainloop and connects to `server` (nil: `$PULSE_SERVER`, then the user's runtime directory).
    /// - Throws: ``CaptureError`` when no server answers.
    init(server: String?, applicationName: String = "Stream") throws(CaptureError) {
        serverDescription = server ?? "the default PulseAudio server"
        // libpulse is loaded at the first use (CPulse): say so if it cannot be.
        if let reason = stream_pulse_load_error() {
            throw CaptureError.audioServer("cannot load the PulseAudio library: \(String(cString: reason))")
        }
        guard let mainloop = pa_threaded_mainloop_new() else {
            throw CaptureError.audioServer("cannot create a PulseAudio mainloop (out of memory?)")
        }
        guard let context = pa_context_new(pa_threaded_mainloop_get_api(mainloop), applicationName) else {
            pa_threaded_mainloop_free(mainloop)
            throw CaptureError.audioServer("cannot create a PulseAudio context (out of memory?)")
        }
        self.mainloop = mainloop
        self.context = context
        pa_context_set_state_callback(context, { _, userdata in
            pa_threaded_mainloop_signal(OpaquePointer(userdata), 0)
        }, UnsafeMutableRawPointer(mainloop))
        guard pa_threaded_mainloop_start(mainloop) >= 0 else {
            pa_context_unref(context)
            pa_threaded_mainloop_free(mainloop)
            throw CaptureError.audioServer("cannot start the PulseAudio mainloop thread")
        }
        pa_threaded_mainloop_lock(mainloop)
        var failure: String?
        if pa_context_connect(context, server, PA_CONTEXT_NOAUTOSPAWN, nil) < 0 {
            failure = lastError()
        } else {
            while failure == nil {
                let state = pa_context_get_state(context)
                if state == PA_CONTEXT_READY { break }
                if state == PA_CONTEXT_FAILED || state == PA_CONTEXT_TERMINATED {
                    failure = lastError()
                } else {
                    pa_threaded_mainloop_wait(mainloop)
                }
            }
        }
        pa_threaded_mainloop_unlock(mainloop)
        if let failure {
            throw CaptureError.audioServer("cannot connect to \(serverDescription): \(failure); is PulseAudio (or "
                                               + "PipeWire's pulse server) running? Check with 'pactl info'")
        }
    }

    deinit {
        pa_threaded_mainloop_lock(mainloop)
        pa_context_set_state_callback(context, nil, nil)
        pa_context_disconnect(context)
        pa_context_unref(context)
        pa_threaded_mainloop_unlock(mainloop)
        pa_threaded_mainloop_stop(mainloop)
        pa_threaded_mainloop_free(mainloop)
    }

    /// Runs `body` holding the mainloop lock.
    func locked<Result>(_ body: () throws(CaptureError) -> Result) throws(CaptureError) -> Result {
        pa_threaded_mainloop_lock(mainloop)
        defer { pa_threaded_mainloop_unlock(mainloop) }
        return try body()
    }

    /// Waits (lock held) until `operation` completes, then releases it.
    /// - Throws: ``CaptureError`` when the operation could not be started (nil) or the connection failed.
    func wait(for operation: OpaquePointer?, _ what: String) throws(CaptureError) {
        guard let operation else { throw CaptureError.audioServer("PulseAudio refused to \(what): \(lastError())") }
        defer { pa_operation_unref(operation) }
        while pa_operation_get_state(operation) == PA_OPERATION_RUNNING {
            pa_threaded_mainloop_wait(mainloop)
        }
        guard pa_context_get_state(context) == PA_CONTEXT_READY else {
            throw CaptureError.audioServer("lost the connection to \(serverDescription) while trying to \(what)")
        }
    }

    /// The context's last error as text.
    func lastError() -> String {
        String(cString: pa_strerror(pa_context_errno(context)))
    }
}
#endif
