/* libFuzzer: czkd's configuration file (libinih + the option table) and its conversion
 * to the engine's configuration. */
#include "czk/alloc.h"
#include "server.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = 0;
    czk_daemon_config c;
    czk__config_defaults(&c);
    czk_err err;
    if (czk__config_parse_string(&c, text, "fuzz.conf", &err) == CZK_OK) {
        czk_engine_config ec;
        int *gpus = NULL;
        (void)czk__config_to_engine(&c, &ec, &gpus, &err);
        czk_free(gpus);
    }
    czk__config_free(&c);
    free(text);
    return 0;
}
