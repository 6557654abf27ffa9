#ifndef STREAM_CLAZYLIBRARY_H
#define STREAM_CLAZYLIBRARY_H
// A shared library loaded with dlopen at the first call of one of its functions, for the C modules whose library
// only some commands use (CPulse, CFAAD): a program that never calls them does not map the library and what it pulls
// in. A module defines each function it uses with STREAM_LAZY_FORWARD, with the library's own prototype; the first
// call loads the library, every call goes on to the library's function of the same name (dlsym, kept once found),
// and without the library a call returns the fallback value.

/// One library, loaded at most once (a static of the module that uses it).
typedef struct {
    const char *soname;
    void *handle;
    const char *error;
} stream_lazy_library;

/// A library not loaded yet.
#define STREAM_LAZY_LIBRARY(name) {name, 0, 0}

/// NULL once `library` is loaded (loading it if need be); otherwise why it cannot be (dlerror's text).
const char *stream_lazy_library_error(stream_lazy_library *library);

/// The function `name` of `library`, kept in `slot` once found; NULL without the library or the function.
void *stream_lazy_library_resolve(stream_lazy_library *library, void **slot, const char *name);

// STREAM_LAZY_FORWARD(library, return type, name, (parameters), (arguments), value without the library)
#define STREAM_LAZY_FORWARD(library, type, name, parameters, arguments, fallback) \
    type name parameters { \
        static void *slot; \
        type (*real) parameters = (type (*) parameters)stream_lazy_library_resolve(&(library), &slot, #name); \
        if (real == 0) return fallback; \
        return real arguments; \
    }

#define STREAM_LAZY_FORWARD_VOID(library, name, parameters, arguments) \
    void name parameters { \
        static void *slot; \
        void (*real) parameters = (void (*) parameters)stream_lazy_library_resolve(&(library), &slot, #name); \
        if (real != 0) real arguments; \
    }
#endif
