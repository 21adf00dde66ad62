#include "plan/run_internal.h"
basalt_status basalt_qrun_aggregate(struct basalt_qctx *ctx, struct basalt_qplan *node, struct basalt_arrow_batches *out, struct basalt_error *err)
{ (void)ctx; (void)node; (void)out; return basalt_error_set(err, BASALT_UNSUPPORTED, "stub"); }
basalt_status basalt_qrun_sort(struct basalt_qctx *ctx, struct basalt_qplan *node, struct basalt_arrow_batches *out, struct basalt_error *err)
{ (void)ctx; (void)node; (void)out; return basalt_error_set(err, BASALT_UNSUPPORTED, "stub"); }
basalt_status basalt_qrun_join_probe(struct basalt_qctx *ctx, struct basalt_qplan *node, struct qpipeline *pl, struct basalt_error *err)
{ (void)ctx; (void)node; (void)pl; return basalt_error_set(err, BASALT_UNSUPPORTED, "stub"); }
basalt_status basalt_qrun_join_outer(struct basalt_qctx *ctx, struct basalt_qplan *node, struct basalt_arrow_batches *out, struct basalt_error *err)
{ (void)ctx; (void)node; (void)out; return basalt_error_set(err, BASALT_UNSUPPORTED, "stub"); }
