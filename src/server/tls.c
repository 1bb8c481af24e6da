/*
 * The daemon's TLS material, checked with OpenSSL before gRPC sees it: gRPC reports any
 * fault in it only as a failed bind, so a key of another certificate or a key given as
 * the certificate would stop the start with "cannot bind". Here each file is read and
 * parsed, the key is matched against the certificate, and an error names the option, the
 * file and the fault.
 */
#include "server.h"

#include "czk/alloc.h"
#include "czk/log.h"

#include <openssl/bio.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* PEM files beyond this are not key material. */
#define PEM_MAX (1 << 20)

/* An encrypted key would make OpenSSL ask for its passphrase on the terminal. */
static int no_passphrase(char *buf, int size, int rwflag, void *u)
{
    (void)buf;
    (void)size;
    (void)rwflag;
    (void)u;
    return -1;
}

static char *read_pem(const char *opt, const char *path, czk_err *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        czk_err_set(err, CZK_ENOENT, "%s: cannot read %s: %s", opt, path, strerror(errno));
        return NULL;
    }
    char *buf = czk_malloc(PEM_MAX + 1);
    size_t n = buf ? fread(buf, 1, PEM_MAX + 1, f) : 0;
    bool bad = buf && ferror(f);
    fclose(f);
    if (!buf || bad || n > PEM_MAX) {
        czk_free(buf);
        czk_err_set(err, CZK_EIO, "%s: %s: %s", opt, path, !buf ? "out of memory" : bad ? "read error" : "larger than 1 MiB");
        return NULL;
    }
    buf[n] = 0;
    if (strlen(buf) != n) {
        czk_free(buf);
        czk_err_set(err, CZK_EFORMAT, "%s: %s is not PEM (it holds binary data; DER must be converted)", opt, path);
        return NULL;
    }
    if (!strstr(buf, "-----BEGIN ")) {
        czk_free(buf);
        czk_err_set(err, CZK_EFORMAT, "%s: %s is not PEM (no -----BEGIN line)", opt, path);
        return NULL;
    }
    return buf;
}

static const char *what_it_holds(const char *pem)
{
    if (strstr(pem, "PRIVATE KEY-----")) return "a private key";
    if (strstr(pem, "CERTIFICATE REQUEST-----")) return "a certificate request";
    if (strstr(pem, "CERTIFICATE-----")) return "a certificate";
    if (strstr(pem, "PUBLIC KEY-----")) return "a public key";
    return "no recognised PEM block";
}

/* The certificates in pem (at least one); *leaf gets the first. */
static czk_status parse_certs(const char *opt, const char *path, const char *pem, X509 **leaf,
                              czk_err *err)
{
    BIO *b = BIO_new_mem_buf(pem, -1);
    if (!b) return czk_err_set(err, CZK_ENOMEM, "%s: out of memory", opt);
    int n = 0;
    X509 *x;
    *leaf = NULL;
    while ((x = PEM_read_bio_X509(b, NULL, no_passphrase, NULL)) != NULL) {
        if (n++ == 0) *leaf = x;
        else X509_free(x);
    }
    BIO_free(b);
    /* The loop ends on the error of reading past the last block. */
    unsigned long e = ERR_peek_last_error();
    ERR_clear_error();
    if (n == 0) {
        const char *holds = what_it_holds(pem);
        if (!strcmp(holds, "a certificate"))
            return czk_err_set(err, CZK_EFORMAT, "%s: %s: the certificate does not parse (%s)", opt, path,
                               ERR_reason_error_string(e) ? ERR_reason_error_string(e) : "bad encoding");
        return czk_err_set(err, CZK_EFORMAT, "%s: %s holds %s, not a certificate", opt, path, holds);
    }
    return CZK_OK;
}

czk_status czk__tls_load(const czk_daemon_config *c, czk_tls_files *out, czk_err *err)
{
    memset(out, 0, sizeof *out);
    X509 *leaf = NULL;
    EVP_PKEY *key = NULL;
    czk_status st = CZK_OK;
    out->cert = read_pem("tls.cert", c->tls_cert, err);
    if (!out->cert) goto fail;
    st = parse_certs("tls.cert", c->tls_cert, out->cert, &leaf, err);
    if (st != CZK_OK) goto fail;
    out->key = read_pem("tls.key", c->tls_key, err);
    if (!out->key) goto fail;
    BIO *b = BIO_new_mem_buf(out->key, -1);
    key = b ? PEM_read_bio_PrivateKey(b, NULL, no_passphrase, NULL) : NULL;
    BIO_free(b);
    if (!key) {
        unsigned long e = ERR_peek_last_error();
        ERR_clear_error();
        const char *holds = what_it_holds(out->key);
        if (strstr(out->key, "ENCRYPTED"))
            st = czk_err_set(err, CZK_EFORMAT, "tls.key: %s is encrypted; czkd needs the key without a passphrase",
                             c->tls_key);
        else if (strcmp(holds, "a private key"))
            st = czk_err_set(err, CZK_EFORMAT, "tls.key: %s holds %s, not a private key", c->tls_key, holds);
        else
            st = czk_err_set(err, CZK_EFORMAT, "tls.key: %s: the private key does not parse (%s)", c->tls_key,
                             ERR_reason_error_string(e) ? ERR_reason_error_string(e) : "bad encoding");
        goto fail;
    }
    if (X509_check_private_key(leaf, key) != 1) {
        ERR_clear_error();
        st = czk_err_set(err, CZK_EINVAL, "tls.key: %s is not the key of the certificate in %s (tls.cert)",
                         c->tls_key, c->tls_cert);
        goto fail;
    }
    if (X509_cmp_current_time(X509_get0_notAfter(leaf)) < 0)
        CZK_LOG_WARN("tls.cert has expired: clients will refuse it", "path=%s", c->tls_cert);
    if (c->tls_client_ca[0]) {
        out->ca = read_pem("tls.client_ca", c->tls_client_ca, err);
        if (!out->ca) goto fail;
        X509 *first = NULL;
        st = parse_certs("tls.client_ca", c->tls_client_ca, out->ca, &first, err);
        X509_free(first);
        if (st != CZK_OK) goto fail;
    }
    X509_free(leaf);
    EVP_PKEY_free(key);
    return CZK_OK;
fail:
    if (st == CZK_OK) st = err ? err->status : CZK_EIO;
    X509_free(leaf);
    EVP_PKEY_free(key);
    czk__tls_files_free(out);
    return st;
}

void czk__tls_files_free(czk_tls_files *f)
{
    czk_free(f->cert);
    if (f->key) OPENSSL_cleanse(f->key, strlen(f->key));
    czk_free(f->key);
    czk_free(f->ca);
    memset(f, 0, sizeof *f);
}
