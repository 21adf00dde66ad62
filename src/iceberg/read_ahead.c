/* Tasks opened ahead of basalt_iceberg_scan_read_task over remote files.
 *
 * Over object storage a task costs round trips before any decoding: the
 * footer, the delete files, the first chunks. One thread opens the next
 * tasks in order, at most `read_ahead` beyond the highest task asked for,
 * so that those requests overlap the decoding of the tasks before. Opening
 * parses a footer and asks for bytes: little CPU, most of it waiting. A
 * task asked for while being opened waits for it; one asked for before its
 * turn is opened by the asker as without read-ahead, and so is one whose
 * opening failed (the asker then meets, and reports, the error itself). */
#include <pthread.h>

#include "basalt/io.h"
#include "scan_internal.h"

enum ahead_state { AHEAD_IDLE, AHEAD_OPENING, AHEAD_READY, AHEAD_TAKEN };

struct basalt_iceberg_read_ahead {
    struct basalt_iceberg_scan *scan;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    uint32_t n_tasks;
    uint32_t asked;   /* 1 + the highest task asked for */
    bool stop;
    unsigned char *state;                      /* enum ahead_state per task */
    struct basalt_iceberg_task_reader **ready; /* per task, AHEAD_READY */
};

static void *opener(void *arg)
{
    struct basalt_iceberg_read_ahead *a = arg;
    struct basalt_iceberg_scan *scan = a->scan;
    uint32_t depth = (uint32_t)scan->options.read_ahead;
    for (uint32_t t = 0; t < a->n_tasks; t++) {
        pthread_mutex_lock(&a->lock);
        while (!a->stop && t >= a->asked + depth)
            pthread_cond_wait(&a->changed, &a->lock);
        bool go = !a->stop && a->state[t] == AHEAD_IDLE;
        if (go)
            a->state[t] = AHEAD_OPENING;
        bool stop = a->stop;
        pthread_mutex_unlock(&a->lock);
        if (stop)
            break;
        if (!go)
            continue;
        struct basalt_iceberg_task_reader *r = NULL;
        struct basalt_error err;
        basalt_error_init(&err);
        if (basalt_iceberg_task_reader_open(scan, &scan->plan.tasks[t], &scan->read_layout, NULL,
                                            1, &r, &err) != BASALT_OK)
            r = NULL;
        pthread_mutex_lock(&a->lock);
        a->ready[t] = r;
        a->state[t] = r != NULL ? AHEAD_READY : AHEAD_IDLE;
        pthread_cond_broadcast(&a->changed);
        pthread_mutex_unlock(&a->lock);
    }
    return NULL;
}

static void free_ahead(struct basalt_iceberg_read_ahead *a)
{
    basalt_free(a->state);
    basalt_free(a->ready);
    basalt_free(a);
}

void basalt_iceberg_read_ahead_start(struct basalt_iceberg_scan *scan)
{
    const struct basalt_iceberg_plan *plan = &scan->plan;
    if (scan->options.read_ahead <= 0 || plan->n_tasks < 2 ||
        !basalt_io_uri_is_remote(plan->tasks[0].file->file_path))
        return;
    struct basalt_iceberg_read_ahead *a = basalt_calloc(1, sizeof *a);
    if (a == NULL)
        return;
    a->scan = scan;
    a->n_tasks = plan->n_tasks;
    a->state = basalt_calloc(plan->n_tasks, sizeof *a->state);
    a->ready = basalt_calloc(plan->n_tasks, sizeof *a->ready);
    if (a->state == NULL || a->ready == NULL) {
        free_ahead(a);
        return;
    }
    pthread_mutex_init(&a->lock, NULL);
    pthread_cond_init(&a->changed, NULL);
    if (pthread_create(&a->thread, NULL, opener, a) != 0) {
        pthread_mutex_destroy(&a->lock);
        pthread_cond_destroy(&a->changed);
        free_ahead(a);
        return;
    }
    scan->ahead = a;
}

void basalt_iceberg_read_ahead_take(struct basalt_iceberg_scan *scan, uint32_t t,
                                    struct basalt_iceberg_task_reader **out)
{
    *out = NULL;
    struct basalt_iceberg_read_ahead *a = scan->ahead;
    if (a == NULL || t >= a->n_tasks)
        return;
    pthread_mutex_lock(&a->lock);
    if (t + 1 > a->asked) {
        a->asked = t + 1;
        pthread_cond_broadcast(&a->changed);
    }
    while (a->state[t] == AHEAD_OPENING)
        pthread_cond_wait(&a->changed, &a->lock);
    if (a->state[t] == AHEAD_READY)
        *out = a->ready[t];
    a->ready[t] = NULL;
    a->state[t] = AHEAD_TAKEN;
    pthread_mutex_unlock(&a->lock);
}

void basalt_iceberg_read_ahead_stop(struct basalt_iceberg_scan *scan)
{
    struct basalt_iceberg_read_ahead *a = scan->ahead;
    if (a == NULL)
        return;
    pthread_mutex_lock(&a->lock);
    a->stop = true;
    pthread_cond_broadcast(&a->changed);
    pthread_mutex_unlock(&a->lock);
    pthread_join(a->thread, NULL);
    for (uint32_t t = 0; t < a->n_tasks; t++)
        basalt_iceberg_task_reader_close(a->ready[t]);
    pthread_mutex_destroy(&a->lock);
    pthread_cond_destroy(&a->changed);
    free_ahead(a);
    scan->ahead = NULL;
}
