/*
 * SHA-256 for Filecoin's trees and commitments, through OpenSSL EVP (rust-fil-proofs
 * filecoin-hashers/src/sha256.rs). OpenSSL picks its SHA-extension code path by itself
 * on CPUs that have one, so nothing here is hand-written.
 *
 * A tree hashes billions of 64-byte messages, so the per-call cost of EVP matters.
 * Measured per 64-byte message on the development machine (AMD EPYC with SHA-NI,
 * OpenSSL 3.0, thread CPU time): 126 ns with the digest fetched once (EVP_MD_fetch) and
 * one EVP_MD_CTX reused per thread, as here; 300 ns for EVP_DigestInit_ex with the
 * implicit EVP_sha256(), which looks the provider up on every init; 325 ns for the
 * one-shot EVP_Digest; 85 ns for the two bare compressions the message needs (the
 * deprecated SHA256_Transform), so EVP costs about 1.5× the floor. The per-thread
 * context lives in a pthread key whose destructor frees it when the thread exits.
 */
#include "czk/sha256.h"

#include <openssl/evp.h>
#include <pthread.h>
#include <string.h>

static pthread_once_t sha_once = PTHREAD_ONCE_INIT;
static EVP_MD *sha_md;        /* fetched once, kept for the life of the process */
static pthread_key_t ctx_key; /* this thread's EVP_MD_CTX */
static bool sha_ready;

static void free_ctx(void *p)
{
    EVP_MD_CTX_free(p);
}

static void sha_init(void)
{
    sha_md = EVP_MD_fetch(NULL, "SHA256", NULL);
    sha_ready = sha_md != NULL && pthread_key_create(&ctx_key, free_ctx) == 0;
}

/* This thread's context, created on first use; NULL if OpenSSL cannot provide one. */
static EVP_MD_CTX *thread_ctx(void)
{
    pthread_once(&sha_once, sha_init);
    if (!sha_ready) return NULL;
    EVP_MD_CTX *ctx = pthread_getspecific(ctx_key);
    if (ctx == NULL) {
        ctx = EVP_MD_CTX_new();
        if (ctx == NULL) return NULL;
        if (pthread_setspecific(ctx_key, ctx) != 0) {
            EVP_MD_CTX_free(ctx);
            return NULL;
        }
    }
    return ctx;
}

static bool digest(EVP_MD_CTX *ctx, uint8_t out[32], const void *data, size_t len)
{
    unsigned olen = 0;
    return EVP_DigestInit_ex(ctx, sha_md, NULL) == 1 && EVP_DigestUpdate(ctx, data, len) == 1 &&
           EVP_DigestFinal_ex(ctx, out, &olen) == 1 && olen == 32;
}

void czk_fr32_trim(uint8_t node[32])
{
    node[31] &= 0x3f;
}

czk_status czk_sha256(uint8_t out[32], const void *data, size_t len)
{
    EVP_MD_CTX *ctx = thread_ctx();
    if (ctx == NULL || !digest(ctx, out, data, len)) {
        memset(out, 0, 32);
        return CZK_EINTERNAL;
    }
    return CZK_OK;
}

czk_status czk_sha256_trunc(uint8_t out[32], const void *data, size_t len)
{
    czk_status s = czk_sha256(out, data, len);
    czk_fr32_trim(out);
    return s;
}

czk_status czk_sha256_nodes(uint8_t *out, const uint8_t *in, size_t n)
{
    EVP_MD_CTX *ctx = thread_ctx();
    if (ctx == NULL) return CZK_EINTERNAL;
    for (size_t i = 0; i < n; i++) {
        /* In place (out == in) is safe: out[i] ends at byte 32·i + 32, at or below the
         * start of in[i + 1], so no input still to be read is overwritten. */
        uint8_t h[32];
        if (!digest(ctx, h, in + 64 * i, 64)) return CZK_EINTERNAL;
        h[31] &= 0x3f;
        memcpy(out + 32 * i, h, 32);
    }
    return CZK_OK;
}
