/*
 * czk — common definitions shared by every public header: export macro, status type,
 * error buffer.
 */
#ifndef CZK_COMMON_H
#define CZK_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Symbols are hidden by default (-fvisibility=hidden); the public API is marked. */
#if defined(__GNUC__)
#define CZK_API __attribute__((visibility("default")))
#else
#define CZK_API
#endif

/*
 * One status table: name and message. The enum, czk_status_name() and czk_strerror()
 * are all generated from it, so they cannot drift apart. Mapping to gRPC codes lives in
 * one function at the server edge. New statuses go at the end: the job journal stores
 * their numbers.
 */
#define CZK_STATUS_MAP(X)                                                                      \
    X(OK, "success")                                                                           \
    X(EINVAL, "invalid argument")                                                              \
    X(ENOMEM, "out of memory")                                                                 \
    X(EIO, "input/output error")                                                               \
    X(ENOENT, "no such file or object")                                                        \
    X(EFORMAT, "malformed input")                                                              \
    X(ETRUNCATED, "input truncated")                                                           \
    X(ENONCANONICAL, "field element not below the modulus")                                    \
    X(EBADFLAGS, "point encoding flag bits invalid")                                           \
    X(ENOTONCURVE, "point not on the curve")                                                   \
    X(ENOTINSUBGROUP, "point not in the prime-order subgroup")                                 \
    X(EINFINITY, "point at infinity not allowed here")                                         \
    X(EVERIFY, "proof verification failed")                                                    \
    X(EUNSUPPORTED, "operation not supported")                                                 \
    X(ENOGPU, "no usable GPU")                                                                 \
    X(ECUDA, "CUDA error")                                                                     \
    X(EEXIST, "already exists")                                                                \
    X(ECANCELED, "operation canceled")                                                         \
    X(ETIMEDOUT, "timed out")                                                                  \
    X(EBUSY, "resource busy")                                                                  \
    X(ERESOURCE, "resource exhausted")                                                         \
    X(EINTERNAL, "internal error")                                                             \
    X(EMISMATCH, "input does not match what it claims")

typedef enum czk_status {
#define CZK__STATUS_ENUM(name, msg) CZK_##name,
    CZK_STATUS_MAP(CZK__STATUS_ENUM)
#undef CZK__STATUS_ENUM
        CZK_STATUS_COUNT
} czk_status;

/** Short symbolic name of a status ("ENOTONCURVE"); "UNKNOWN" for out-of-range values. */
CZK_API const char *czk_status_name(czk_status s);
/** Human-readable message of a status ("point not on the curve"). */
CZK_API const char *czk_strerror(czk_status s);

/*
 * Optional error buffer filled by functions that touch I/O, the GPU or untrusted input.
 * Callers may pass NULL when they only want the status.
 */
#define CZK_ERR_MSG_MAX 512
typedef struct czk_err {
    czk_status status;
    char msg[CZK_ERR_MSG_MAX];
} czk_err;

/** Record `s` and a printf-style message in `err` (if not NULL); returns `s`. */
CZK_API czk_status czk_err_set(czk_err *err, czk_status s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/** Clear an error buffer to CZK_OK with an empty message. */
CZK_API void czk_err_clear(czk_err *err);

/** Version string of the library, e.g. "0.1.0". */
CZK_API const char *czk_version(void);

/** The monotonic clock (CLOCK_MONOTONIC) in microseconds and in seconds, for timings. */
CZK_API uint64_t czk_clock_us(void);
CZK_API double czk_clock_s(void);
/** The wall clock, Unix milliseconds (job and event stamps). */
CZK_API uint64_t czk_unix_ms(void);

/** What czk_text_check found wrong with a string (CZK_TEXT_OK: nothing). */
typedef enum czk_text_fault {
    CZK_TEXT_OK = 0,
    CZK_TEXT_NOT_UTF8 = 1, /* not valid UTF-8 (overlong, surrogate, truncated, > U+10FFFF) */
    CZK_TEXT_CONTROL = 2,  /* a control character: C0 (NUL included), DEL or C1 */
} czk_text_fault;

/**
 * Check that n bytes are an identifier-safe string: valid UTF-8 without control
 * characters. Ids and names that reach logs, the journal and other clients' protobuf
 * decoders must be; *at (may be NULL) gets the offset of the first bad byte.
 */
CZK_API czk_text_fault czk_text_check(const char *s, size_t n, size_t *at);

#ifdef __cplusplus
}
#endif
#endif /* CZK_COMMON_H */
