#include "CLazyLibrary.h"
#include <dlfcn.h>
#include <stddef.h>

static void *handle(stream_lazy_library *library) {
    void *loaded = __atomic_load_n(&library->handle, __ATOMIC_ACQUIRE);
    if (loaded != NULL) return loaded;
    // dlopen is thread-safe and counts references: two threads racing here get the same handle.
    loaded = dlopen(library->soname, RTLD_NOW | RTLD_LOCAL);
    if (loaded == NULL) {
        const char *reason = dlerror();
        __atomic_store_n(&library->error, reason != NULL ? reason : "the library cannot be loaded", __ATOMIC_RELEASE);
        return NULL;
    }
    __atomic_store_n(&library->handle, loaded, __ATOMIC_RELEASE);
    return loaded;
}

const char *stream_lazy_library_error(stream_lazy_library *library) {
    if (handle(library) != NULL) return NULL;
    return __atomic_load_n(&library->error, __ATOMIC_ACQUIRE);
}

void *stream_lazy_library_resolve(stream_lazy_library *library, void **slot, const char *name) {
    void *function = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (function != NULL) return function;
    void *loaded = handle(library);
    if (loaded == NULL) return NULL;
    function = dlsym(loaded, name);
    __atomic_store_n(slot, function, __ATOMIC_RELEASE);
    return function;
}
