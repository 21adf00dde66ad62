/* basalt info: what this build of the library is and what it can use. */
#include <string.h>

#include "cli.h"

int cli_info_main(int argc, char **argv)
{
    if (argc > 1 && cli_is_help(argv[1])) {
        printf("usage: basalt info\n\nPrints the library version, detected CPU features and the\n"
               "codecs this build supports, and whether the heap gets transparent huge\n"
               "pages (BASALT_HUGE_PAGES=0 turns them off).\n");
        return CLI_OK;
    }
    if (argc > 1)
        return cli_usage_error("basalt info takes no arguments, got '%s'", argv[1]);
    printf("basalt %s\n", basalt_version());
    printf("cpu features: %s\n", basalt_cpu_describe());
    printf("codecs:");
    for (int k = 0; k < BASALT_CODEC_COUNT; k++)
        printf(" %s", basalt_codec_name((enum basalt_codec_kind)k));
    printf("\n");
    char huge[600];
    basalt_huge_pages_describe(huge, sizeof huge);
    printf("huge pages: %s\n", huge);
    return CLI_OK;
}
