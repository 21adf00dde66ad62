/* A program outside the project, built against an installed basalt. */
#include <stdio.h>
#include <string.h>

#include <basalt/basalt.h>

int main(void)
{
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    if (basalt_buffer_append(&buf, "basalt", 6, &err) != BASALT_OK)
        return 1;
    int ok = buf.size == 6 && memcmp(buf.data, "basalt", 6) == 0;
    basalt_buffer_reset(&buf);
    printf("consumer linked against basalt %s: %s\n", basalt_version(), ok ? "ok" : "wrong");
    return ok ? 0 : 1;
}
