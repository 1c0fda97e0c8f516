/*
 * fs_iter.c - pull iterators over grep and glob (for Python generators and
 * Lua for-loops): the streaming form runs on a thread of its own and hands
 * over copies of its batches through a queue of at most QUEUE_MAX batches,
 * so memory stays bounded whatever the consumer's pace; freeing the
 * iterator stops the walk at the next batch.
 *
 * Audit events are the consumer's: the operand's decision is made (and
 * emitted) by iter_new on the calling thread, the walk thread runs quiet,
 * and the count of entries the policy hid is emitted by the next call
 * that sees the end.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stddef.h>
#include <string.h>

#include "alloc.h"
#include "error.h"
#include "fs_result.h"
#include "fs_target.h"
#include "resolver_internal.h"

#define QUEUE_MAX 4

typedef struct batch {
    struct batch *next;
    pathgate_fs_matches m; /* grep */
    pathgate_fs_list l;    /* glob */
} batch;

struct pathgate_fs_iter {
    pathgate_allocator alloc;
    int is_grep;
    /* the call, copied */
    pathgate_resolver *resolver;
    pathgate_fs_search_options opts; /* opts.glob points to glob */
    char *pattern, *address, *glob;
    size_t pattern_len, address_len;
    /* the queue */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    batch *head, *tail;
    size_t queued;
    int finished, stop, rc;
    pathgate_error err;
    pathgate_fs_matches msum;
    pathgate_fs_list lsum;
    pthread_t thread;
    int inited, started;
    uint64_t files_seen; /* atomic: files searched as of the last batch */
    /* the consumer's batch */
    batch *cur;
    size_t pos;
    /* the operand, for the end's audit event */
    pathgate__fs_target *target;
    int ended;
};

static void batch_free(pathgate_fs_iter *it, batch *b)
{
    pathgate_fs_matches_dispose(&b->m);
    pathgate_fs_list_dispose(&b->l);
    pathgate__free(&it->alloc, b);
}

static batch *batch_new(pathgate_fs_iter *it)
{
    batch *b = pathgate__calloc(&it->alloc, 1, sizeof *b);
    if (b) {
        b->m.alloc = it->alloc;
        b->l.alloc = it->alloc;
    }
    return b;
}

/* Queues b for the consumer (waiting while the queue is full); when the
 * consumer has stopped, frees b instead and returns 1 (the walk ends). */
static int enqueue(pathgate_fs_iter *it, batch *b)
{
    pthread_mutex_lock(&it->mu);
    while (it->queued >= QUEUE_MAX && !it->stop)
        pthread_cond_wait(&it->cv, &it->mu);
    int stop = it->stop;
    if (!stop) {
        if (it->tail)
            it->tail->next = b;
        else
            it->head = b;
        it->tail = b;
        it->queued++;
        pthread_cond_broadcast(&it->cv);
    }
    pthread_mutex_unlock(&it->mu);
    if (stop)
        batch_free(it, b);
    return stop;
}

static int on_matches(const pathgate_fs_match *items, size_t count, void *ctx)
{
    pathgate_fs_iter *it = ctx;
    /* the summary is this thread's until the end */
    __atomic_store_n(&it->files_seen, (uint64_t)it->msum.files_scanned, __ATOMIC_RELAXED);
    batch *b = batch_new(it);
    if (!b)
        return 1; /* ends the walk; the iterator reports ENOMEM */
    for (size_t i = 0; i < count; i++)
        if (pathgate__fs_matches_push(&b->m, items[i].path, items[i].path_len, items[i].line,
                                      items[i].text, items[i].text_len) < 0) {
            batch_free(it, b);
            return 1;
        }
    return enqueue(it, b);
}

static int on_infos(const pathgate_fs_info *items, size_t count, void *ctx)
{
    pathgate_fs_iter *it = ctx;
    batch *b = batch_new(it);
    if (!b)
        return 1;
    for (size_t i = 0; i < count; i++) {
        pathgate__os_stat st;
        memset(&st, 0, sizeof st);
        st.size = (uint64_t)items[i].size;
        st.mtime_sec = (int64_t)items[i].mtime_sec;
        st.mtime_nsec = items[i].mtime_nsec;
        if (pathgate__fs_list_push(&b->l, items[i].path, items[i].path_len, items[i].is_dir,
                                   items[i].has_metadata ? &st : NULL) < 0) {
            batch_free(it, b);
            return 1;
        }
    }
    return enqueue(it, b);
}

static void *producer(void *p)
{
    pathgate_fs_iter *it = p;
    pathgate_error err;
    int rc;
    if (it->is_grep)
        rc = pathgate_fs_grep_each(&it->msum, it->resolver, it->pattern, it->pattern_len,
                                   it->address, it->address_len, on_matches, it, &it->opts, &err);
    else
        rc = pathgate_fs_glob_each(&it->lsum, it->resolver, it->pattern, it->pattern_len,
                                   it->address, it->address_len, on_infos, it, &it->opts, &err);
    pthread_mutex_lock(&it->mu);
    it->finished = 1;
    it->rc = rc;
    if (rc < 0)
        it->err = err;
    pthread_cond_broadcast(&it->cv);
    pthread_mutex_unlock(&it->mu);
    return NULL;
}

static int iter_new(pathgate_fs_iter **out, int is_grep, pathgate_resolver *resolver,
                    const char *pattern, size_t pattern_len, const char *address,
                    size_t address_len, const pathgate_fs_search_options *opts, pathgate_error *err)
{
    if (!out || (!pattern && (pattern_len || !is_grep)))
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    *out = NULL;
    if (pathgate__fs_search_check(opts, err) < 0)
        return PATHGATE_EINVAL;
    pathgate_resolver *r = pathgate__fs_resolver(resolver, PATHGATE__FS_OF(opts), err);
    if (!r)
        return PATHGATE_EINVAL;
    const pathgate_allocator *a = pathgate__resolver_allocator(r);
    pathgate_fs_iter *it = pathgate__calloc(a, 1, sizeof *it);
    if (!it)
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    it->alloc = *a;
    it->is_grep = is_grep;
    it->resolver = resolver;
    pathgate_fs_search_options init = PATHGATE_FS_SEARCH_OPTIONS_INIT;
    it->opts = opts ? *opts : init;
    it->opts.fs.version = PATHGATE__FS_OPTIONS_QUIET_VERSION; /* events are ours */
    it->pattern_len = pattern_len;
    it->address_len = address_len;
    it->pattern = pathgate__strndup(a, pattern ? pattern : "", pattern_len);
    it->address = address ? pathgate__strndup(a, address, address_len) : NULL;
    const char *glob = is_grep ? it->opts.glob : NULL;
    it->glob = glob ? pathgate__strndup(a, glob, it->opts.glob_len) : NULL;
    it->opts.glob = it->glob;
    if (!it->pattern || (address && !it->address) || (glob && !it->glob)) {
        pathgate_fs_iter_free(it);
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    }
    /* the operand's decision, on this thread (the walk makes it again) */
    it->target = pathgate__malloc(a, sizeof *it->target);
    if (!it->target) {
        pathgate_fs_iter_free(it);
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    }
    pathgate_error ignored;
    if (pathgate__fs_target_of(it->target, is_grep ? "grep" : "glob", r, PATHGATE__FS_OF(opts),
                               address, address_len, &ignored) < 0) {
        pathgate__free(a, it->target);
        it->target = NULL;
    }
    pthread_mutex_init(&it->mu, NULL);
    pthread_cond_init(&it->cv, NULL);
    it->inited = 1;
    if (pthread_create(&it->thread, NULL, producer, it) != 0) {
        pathgate_fs_iter_free(it);
        return pathgate__error_set(err, PATHGATE_ENOMEM, "cannot start the search thread");
    }
    it->started = 1;
    *out = it;
    return PATHGATE_OK;
}

int pathgate_fs_grep_iter_new(pathgate_fs_iter **out, pathgate_resolver *resolver,
                              const char *pattern, size_t pattern_len, const char *address,
                              size_t address_len, const pathgate_fs_search_options *opts,
                              pathgate_error *err)
{
    return iter_new(out, 1, resolver, pattern, pattern_len, address, address_len, opts, err);
}

int pathgate_fs_glob_iter_new(pathgate_fs_iter **out, pathgate_resolver *resolver,
                              const char *pattern, size_t pattern_len, const char *address,
                              size_t address_len, const pathgate_fs_search_options *opts,
                              pathgate_error *err)
{
    return iter_new(out, 0, resolver, pattern, pattern_len, address, address_len, opts, err);
}

static int advance(pathgate_fs_iter *it, pathgate_error *err)
{
    for (;;) {
        if (it->cur) {
            size_t n = it->is_grep ? it->cur->m.count : it->cur->l.count;
            if (it->pos < n)
                return 1;
            batch_free(it, it->cur);
            it->cur = NULL;
        }
        pthread_mutex_lock(&it->mu);
        while (!it->head && !it->finished)
            pthread_cond_wait(&it->cv, &it->mu);
        batch *b = it->head;
        if (b) {
            it->head = b->next;
            if (!it->head)
                it->tail = NULL;
            it->queued--;
            pthread_cond_broadcast(&it->cv);
        }
        int rc = it->rc;
        pathgate_error e = it->err;
        pthread_mutex_unlock(&it->mu);
        if (!b) {
            if (rc < 0) {
                if (err)
                    *err = e;
                return rc;
            }
            if (!it->ended && it->target)
                pathgate__fs_audit_hidden(it->target, it->is_grep ? it->msum.skipped_denied
                                                                  : it->lsum.skipped_denied);
            it->ended = 1;
            return 0;
        }
        it->cur = b;
        it->pos = 0;
    }
}

int pathgate_fs_iter_next_match(const pathgate_fs_match **out, pathgate_fs_iter *it,
                                pathgate_error *err)
{
    if (!out || !it || !it->is_grep)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    int rc = advance(it, err);
    if (rc == 1)
        *out = &it->cur->m.items[it->pos++];
    return rc;
}

int pathgate_fs_iter_next_info(const pathgate_fs_info **out, pathgate_fs_iter *it,
                               pathgate_error *err)
{
    if (!out || !it || it->is_grep)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    int rc = advance(it, err);
    if (rc == 1)
        *out = &it->cur->l.items[it->pos++];
    return rc;
}

const pathgate_fs_matches *pathgate_fs_iter_grep_summary(const pathgate_fs_iter *it)
{
    return it && it->is_grep ? &it->msum : NULL;
}

const pathgate_fs_list *pathgate_fs_iter_glob_summary(const pathgate_fs_iter *it)
{
    return it && !it->is_grep ? &it->lsum : NULL;
}

uint64_t pathgate_fs_iter_files_scanned(const pathgate_fs_iter *it)
{
    return it ? __atomic_load_n(&it->files_seen, __ATOMIC_RELAXED) : 0;
}

void pathgate_fs_iter_free(pathgate_fs_iter *it)
{
    if (!it)
        return;
    if (it->started) {
        pthread_mutex_lock(&it->mu);
        it->stop = 1;
        pthread_cond_broadcast(&it->cv);
        pthread_mutex_unlock(&it->mu);
        pthread_join(it->thread, NULL);
    }
    if (it->inited) {
        pthread_mutex_destroy(&it->mu);
        pthread_cond_destroy(&it->cv);
    }
    while (it->head) {
        batch *b = it->head;
        it->head = b->next;
        batch_free(it, b);
    }
    if (it->cur)
        batch_free(it, it->cur);
    pathgate_fs_matches_dispose(&it->msum);
    pathgate_fs_list_dispose(&it->lsum);
    pathgate_allocator a = it->alloc;
    pathgate__free(&a, it->pattern);
    pathgate__free(&a, it->address);
    pathgate__free(&a, it->glob);
    pathgate__free(&a, it->target);
    pathgate__free(&a, it);
}
