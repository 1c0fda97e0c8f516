/*
 * fs_walk_plan.c - pathgate__fs_walk: one task on the calling thread, or
 * the parallel plan. The calling thread lists the root and, breadth-first,
 * a few levels below it until there are enough tasks (slices of those
 * listings); threads take tasks in order, at most TASKS_PER_THREAD per
 * thread ahead of the consumer, and walk them with their own walker; the
 * calling thread emits the tasks' outputs in task order, so the result is
 * the one-thread walk's. The listings are shared read-only; their
 * descriptors stay open until the walk ends (at most EXPAND_MAX of them).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "alloc.h"
#include "error.h"
#include "fs_policy.h"
#include "fs_target.h"
#include "fs_walk.h"
#include "walk.h"

#define EXPAND_MAX 32      /* directories listed ahead by the calling thread */
#define TASKS_PER_THREAD 8 /* expansion stops at threads * this many tasks */
#define SLICE_MIN 8        /* entries of one task, at least ... */
#define SLICE_MAX 256      /* ... and at most */

typedef struct task {
    listing *dir;
    size_t from, to; /* slice of dir's entries */
    void *sink;
    int state; /* 0 waiting, 1 running, 2 done */
    int rc;
    pathgate__walk_stats stats;
} task;

/* ---------------------------------------------------------- the walk */

typedef struct plan {
    pathgate__walk *w;
    listing **dirs;
    size_t ndirs, dcap;
    task *tasks;
    size_t ntasks, tcap;
    /* run state */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    size_t next_task;
    size_t emitted; /* tasks handed over; claims stay within AHEAD of it */
    size_t ahead;
    int cancel;                 /* atomic */
    pathgate__walk_stats stats; /* of the listings made by the plan */
} plan;

static int add_task(plan *P, listing *dir, size_t from, size_t to)
{
    /* slices small enough for every thread to get some of a flat directory */
    size_t slice = (to - from) / ((size_t)P->w->threads * TASKS_PER_THREAD);
    slice = slice < SLICE_MIN ? SLICE_MIN : slice > SLICE_MAX ? SLICE_MAX : slice;
    while (from < to) {
        size_t end = to - from > slice ? from + slice : to;
        if (P->ntasks == P->tcap) {
            size_t cap = P->tcap ? P->tcap * 2 : 16;
            task *nt = pathgate__realloc(P->w->t->alloc, P->tasks, cap * sizeof *nt);
            if (!nt)
                return PATHGATE_ENOMEM;
            P->tasks = nt;
            P->tcap = cap;
        }
        task *T = &P->tasks[P->ntasks++];
        memset(T, 0, sizeof *T);
        T->dir = dir;
        T->from = from;
        T->to = end;
        from = end;
    }
    return 0;
}

static void listing_free(const pathgate_allocator *a, listing *d)
{
    if (!d)
        return;
    if (d->L.fd >= 0)
        pathgate__os_close(d->L.fd);
    pathgate__free(a, d->L.buf);
    pathgate__free(a, d->L.ents);
    pathgate__free(a, d->rel);
    pathgate__free(a, d->state);
    pathgate__free(a, d);
}

/* Lists directory fd (taken) as a listing at rel with a glob state. */
static int make_listing(plan *P, listing **out, int fd, const char *rel, size_t rel_len, int depth,
                        const unsigned char *state)
{
    pathgate__walk *w = P->w;
    const pathgate_allocator *a = w->t->alloc;
    size_t ss = w->glob ? pathgate__glob_state_size(w->glob) : 0;
    listing *d = pathgate__calloc(a, 1, sizeof *d);
    if (!d) {
        pathgate__os_close(fd);
        return PATHGATE_ENOMEM;
    }
    d->L.fd = fd;
    d->depth = depth;
    d->rel = pathgate__strndup(a, rel, rel_len);
    d->state = w->glob ? pathgate__malloc(a, 2 * ss) : NULL;
    int rc = PATHGATE_ENOMEM;
    if (d->rel && (!w->glob || d->state)) {
        if (w->glob)
            memcpy(d->state, state, ss);
        d->L.rel_len = rel_len;
        rc = pathgate__walk_read_dir(&d->L, a, w->glob, d->state, d->state ? d->state + ss : NULL,
                                     w->shallow, w->policy, d->rel, &P->stats);
    }
    if (rc == 0 && P->ndirs == P->dcap) {
        size_t cap = P->dcap ? P->dcap * 2 : 8;
        listing **nd = pathgate__realloc(a, P->dirs, cap * sizeof *nd);
        if (!nd)
            rc = PATHGATE_ENOMEM;
        else {
            P->dirs = nd;
            P->dcap = cap;
        }
    }
    if (rc < 0) {
        listing_free(a, d);
        return rc;
    }
    P->dirs[P->ndirs++] = d;
    *out = d;
    return 0;
}

/* Replaces the tasks by the same walk with the directories of their
 * slices listed (up to the budget), so that there are more, smaller tasks. */
static int expand(plan *P, size_t *budget)
{
    pathgate__walk *w = P->w;
    const pathgate_allocator *a = w->t->alloc;
    task *old = P->tasks;
    size_t nold = P->ntasks;
    P->tasks = NULL;
    P->ntasks = P->tcap = 0;
    size_t ss = w->glob ? pathgate__glob_state_size(w->glob) : 0;
    char *rel = pathgate__malloc(a, PATHGATE_PATH_MAX + PATHGATE__OS_NAME_MAX + 2);
    unsigned char *cstate = w->glob ? pathgate__malloc(a, ss) : NULL;
    int rc = (!rel || (w->glob && !cstate)) ? PATHGATE_ENOMEM : 0;
    for (size_t k = 0; k < nold && rc == 0; k++) {
        listing *d = old[k].dir;
        size_t start = old[k].from;
        for (size_t i = old[k].from; i < old[k].to && rc == 0; i++) {
            const ent *e = &d->L.ents[i];
            size_t rl = strlen(d->rel);
            if (e->type != PATHGATE__OS_T_DIR || !*budget || d->depth + 1 > PATHGATE_FS_MAX_DEPTH ||
                rl + 1 + e->len > PATHGATE_PATH_MAX)
                continue;
            if (w->glob && !pathgate__glob_step(w->glob, cstate, d->state, e->name, e->len))
                continue;
            char name[PATHGATE__OS_NAME_MAX + 1];
            memcpy(name, e->name, e->len);
            name[e->len] = '\0';
            int fd = pathgate__walk_open_dir(d->L.fd, name);
            if (fd < 0)
                continue; /* the walker meets it again and counts it */
            (*budget)--;
            memcpy(rel, d->rel, rl);
            size_t n = rl;
            if (n)
                rel[n++] = '/';
            memcpy(rel + n, e->name, e->len);
            n += e->len;
            listing *child;
            if ((rc = add_task(P, d, start, i)) < 0 ||
                (rc = make_listing(P, &child, fd, rel, n, d->depth + 1, cstate)) < 0 ||
                (rc = add_task(P, child, 0, child->L.n)) < 0)
                break;
            start = i + 1;
        }
        if (rc == 0)
            rc = add_task(P, d, start, old[k].to);
    }
    pathgate__free(a, old);
    pathgate__free(a, rel);
    pathgate__free(a, cstate);
    return rc;
}

/* Runs task T with walker W (any thread). */
static void run_task(plan *P, walker *W, task *T)
{
    pathgate__walk *w = P->w;
    memset(&W->stats, 0, sizeof W->stats);
    T->rc = w->sink_new(w->ctx, &T->sink);
    if (T->rc == 0)
        T->rc = pathgate__walker_run(W, T->dir, T->from, T->to, &T->sink, 0);
    T->stats = W->stats;
}

/* No task is left to claim (or the walk was stopped). Lock held. */
static int all_claimed(plan *P)
{
    return __atomic_load_n(&P->cancel, __ATOMIC_RELAXED) || P->next_task == P->ntasks;
}

/* Takes the next task to run, or NULL (none left, or the next is too far
 * ahead of the tasks handed over: memory stays bounded when the consumer
 * is slow). Called with the lock held. */
static task *claim(plan *P)
{
    if (all_claimed(P) || P->next_task >= P->emitted + P->ahead)
        return NULL;
    task *T = &P->tasks[P->next_task++];
    T->state = 1;
    return T;
}

typedef struct worker_arg {
    plan *P;
    walker W;
    pthread_t tid;
} worker_arg;

static void *worker_main(void *p)
{
    worker_arg *wa = p;
    plan *P = wa->P;
    pthread_mutex_lock(&P->mu);
    while (!all_claimed(P)) {
        task *T = claim(P);
        if (!T) {
            pthread_cond_wait(&P->cv, &P->mu); /* until the consumer catches up */
            continue;
        }
        pthread_mutex_unlock(&P->mu);
        run_task(P, &wa->W, T);
        pthread_mutex_lock(&P->mu);
        T->state = 2;
        pthread_cond_broadcast(&P->cv);
    }
    pthread_mutex_unlock(&P->mu);
    return NULL;
}

static void add_stats(pathgate__walk_stats *to, const pathgate__walk_stats *s)
{
    to->truncated |= s->truncated;
    to->unreadable_dirs += s->unreadable_dirs;
    to->skipped_names += s->skipped_names;
    to->skipped_denied += s->skipped_denied;
}

/* Runs the tasks on the calling thread and up to nworkers more, emitting
 * each task's sink in order on the calling thread. */
static int run_parallel(plan *P, walker *self, worker_arg *workers, size_t nworkers)
{
    pathgate__walk *w = P->w;
    size_t started = 0;
    int rc = 0;
    for (; started < nworkers; started++) {
        worker_arg *wa = &workers[started];
        wa->P = P;
        if (pathgate__walker_init(&wa->W, w) < 0) {
            pathgate__walker_free(&wa->W);
            break;
        }
        wa->W.cancel = &P->cancel;
        if (pthread_create(&wa->tid, NULL, worker_main, wa) != 0) {
            pathgate__walker_free(&wa->W);
            break;
        }
    }
    size_t emitted = 0;
    pthread_mutex_lock(&P->mu);
    while (emitted < P->ntasks && rc == 0) {
        task *T = &P->tasks[emitted];
        if (T->state == 2) {
            pthread_mutex_unlock(&P->mu);
            add_stats(&w->stats, &T->stats);
            rc = T->rc;
            if (rc == 0)
                rc = w->emit(w->ctx, T->sink);
            if (T->sink)
                w->sink_free(w->ctx, T->sink);
            T->sink = NULL;
            pthread_mutex_lock(&P->mu);
            P->emitted = ++emitted;
            pthread_cond_broadcast(&P->cv);
            continue;
        }
        task *mine = claim(P);
        if (mine) {
            pthread_mutex_unlock(&P->mu);
            run_task(P, self, mine);
            pthread_mutex_lock(&P->mu);
            mine->state = 2;
            continue;
        }
        pthread_cond_wait(&P->cv, &P->mu);
    }
    __atomic_store_n(&P->cancel, 1, __ATOMIC_RELAXED);
    pthread_cond_broadcast(&P->cv);
    pthread_mutex_unlock(&P->mu);
    for (size_t i = 0; i < started; i++) {
        pthread_join(workers[i].tid, NULL);
        pathgate__walker_free(&workers[i].W);
    }
    return rc == 1 ? 0 : rc;
}

int pathgate__fs_walk(pathgate__walk *w, pathgate_error *err)
{
    const pathgate__fs_target *t = w->t;
    const pathgate_allocator *a = t->alloc;
    memset(&w->stats, 0, sizeof w->stats);

    int root = pathgate__fs_open(t, NULL, O_RDONLY | O_DIRECTORY, 0);
    if (root < 0) {
        if (root == -ENOTDIR) {
            /* the root exists as something else, or a parent is a file */
            int probe = pathgate__fs_open(t, NULL, PATHGATE__OS_O_PATH, 0);
            if (probe >= 0) {
                pathgate__os_close(probe);
                return pathgate__fs_fail(err, PATHGATE_ENOTDIR, t, PATHGATE__FS_DIRECTORY);
            }
        }
        return pathgate__fs_fail_errno(err, root, t, PATHGATE__FS_DIRECTORY);
    }
    /* what the policy hides, by name and, when a symlink led to the root,
     * by where the entries really are */
    pathgate__walk_policy wp = {t, NULL, 0};
    char *real_root = NULL;
    w->policy = NULL;
    if (t->policy) {
        real_root = pathgate__malloc(a, PATHGATE_PATH_MAX + 1);
        int rr = real_root
                     ? pathgate__fs_policy_real_root(t, root, real_root, PATHGATE_PATH_MAX + 1)
                     : PATHGATE_ENOMEM;
        if (rr < 0) {
            pathgate__os_close(root);
            pathgate__free(a, real_root);
            return rr == PATHGATE_ENOMEM
                       ? pathgate__error_set(err, rr, NULL)
                       : pathgate__fs_fail_errno(err, rr, t, PATHGATE__FS_DIRECTORY);
        }
        if (rr == 1) {
            wp.real_root = real_root;
            wp.real_len = strlen(real_root);
        }
        w->policy = &wp;
    }
    plan P;
    memset(&P, 0, sizeof P);
    P.w = w;
    walker self;
    worker_arg *workers = NULL;
    int rc = pathgate__walker_init(&self, w);
    self.cancel = &P.cancel;
    unsigned char *start = NULL;
    if (rc == 0 && w->glob) {
        if (!(start = pathgate__malloc(a, pathgate__glob_state_size(w->glob))))
            rc = PATHGATE_ENOMEM;
        else
            pathgate__glob_start(w->glob, start);
    }
    listing *rootdir = NULL;
    if (rc == 0)
        rc = make_listing(&P, &rootdir, root, t->rel, t->rel_len, 0, start);
    else
        pathgate__os_close(root);
    pathgate__free(a, start);
    unsigned int threads = w->shallow ? 1 : w->threads ? w->threads : 1;
    if (rc == 0 && threads == 1) {
        /* one task on this thread: the visitor may emit as it goes */
        void *sink = NULL;
        if ((rc = w->sink_new(w->ctx, &sink)) == 0)
            rc = pathgate__walker_run(&self, rootdir, 0, rootdir->L.n, &sink, 1);
        add_stats(&w->stats, &self.stats);
        if (rc == 0)
            rc = w->emit(w->ctx, sink);
        if (sink)
            w->sink_free(w->ctx, sink);
        if (rc == 1)
            rc = 0;
    } else if (rc == 0) {
        rc = add_task(&P, rootdir, 0, rootdir->L.n);
        size_t budget = EXPAND_MAX;
        for (int round = 0; rc == 0 && round < 3 && budget && P.ntasks < threads * TASKS_PER_THREAD;
             round++) {
            size_t before = P.ntasks;
            rc = expand(&P, &budget);
            if (P.ntasks == before)
                break;
        }
        size_t nworkers = P.ntasks > 1 ? threads - 1 : 0;
        if (nworkers > P.ntasks - 1)
            nworkers = P.ntasks - 1;
        if (rc == 0 && nworkers && !(workers = pathgate__calloc(a, nworkers, sizeof *workers)))
            rc = PATHGATE_ENOMEM;
        P.ahead = (size_t)threads * TASKS_PER_THREAD;
        if (rc == 0 && pthread_mutex_init(&P.mu, NULL) == 0) {
            pthread_cond_init(&P.cv, NULL);
            rc = run_parallel(&P, &self, workers, nworkers);
            pthread_cond_destroy(&P.cv);
            pthread_mutex_destroy(&P.mu);
        }
        for (size_t i = 0; i < P.ntasks; i++)
            if (P.tasks[i].sink)
                w->sink_free(w->ctx, P.tasks[i].sink);
    }
    add_stats(&w->stats, &P.stats);
    pathgate__walker_free(&self);
    for (size_t i = 0; i < P.ndirs; i++)
        listing_free(a, P.dirs[i]);
    pathgate__free(a, P.dirs);
    pathgate__free(a, P.tasks);
    pathgate__free(a, workers);
    pathgate__free(a, real_root);
    w->policy = NULL;
    if (rc == PATHGATE_ENOMEM)
        pathgate__error_set(err, rc, NULL);
    return rc;
}
