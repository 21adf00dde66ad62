#include "cli.h"

int cli_codec_main(int argc, char **argv)
{
    static const struct cli_verb verbs[] = {{NULL, NULL, NULL}};
    return cli_dispatch_verbs("codec", verbs, argc, argv);
}
