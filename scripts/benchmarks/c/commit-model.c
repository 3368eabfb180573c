/* The file work of a big staged commit, alone: no Hearth code, no JSON. LIST: one line per
 * file, "u DIR/NAME" (replace) or "c DIR/NAME" (create), relative to ROOT; two threads, lines
 * [0, SPLIT) on one, the rest on the other. MODE 0: every file through a temp file beside it
 * (lstat, open O_CREAT|O_EXCL, fstat, write 420 bytes, close), syncfs, every temp renamed over
 * its target, syncfs: what Hearth's committer does. MODE 2: the same for replaced files; a
 * created file is written after the first syncfs as an O_TMPFILE linked in with linkat. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef struct { char kind; char *path; } item;
static item *items;
static int count, mode;
static const char *root;
static char bytes[420];

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
static void die(const char *what, const char *path) { fprintf(stderr, "%s %s: %s\n", what, path, strerror(errno)); exit(1); }

typedef struct { int lo, hi, phase; } range;

static void *work(void *arg) {
    range *r = arg;
    char full[4096], temp[8300], dir[4096];
    for (int i = r->lo; i < r->hi; i++) {
        item *it = &items[i];
        const char *slash = strrchr(it->path, '/');
        snprintf(full, sizeof full, "%s/%s", root, it->path);
        snprintf(dir, sizeof dir, "%s/%.*s", root, (int)(slash - it->path), it->path);
        snprintf(temp, sizeof temp, "%s/.%s.hearth-tmp", dir, slash + 1);
        int created_late = mode == 2 && it->kind == 'c';
        if (r->phase == 0) {
            if (created_late) continue;
            struct stat st;
            lstat(full, &st);
            int fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0640);
            if (fd < 0) die("create", temp);
            fstat(fd, &st);
            if (write(fd, bytes, sizeof bytes) != sizeof bytes) die("write", temp);
            close(fd);
        } else if (created_late) {
            int fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0640);
            if (fd < 0) die("O_TMPFILE in", dir);
            if (write(fd, bytes, sizeof bytes) != sizeof bytes) die("write", full);
            char proc[64];
            snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
            if (linkat(AT_FDCWD, proc, AT_FDCWD, full, AT_SYMLINK_FOLLOW) != 0) die("linkat", full);
            close(fd);
        } else if (rename(temp, full) != 0) {
            die("rename", temp);
        }
    }
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 5) { fprintf(stderr, "usage: commit-model ROOT LIST MODE SPLIT\n"); return 64; }
    root = argv[1];
    mode = atoi(argv[3]);
    int split = atoi(argv[4]);
    memset(bytes, 'x', sizeof bytes);
    FILE *list = fopen(argv[2], "r");
    if (!list) die("open", argv[2]);
    char line[4096];
    int capacity = 1024;
    items = malloc(capacity * sizeof *items);
    while (fgets(line, sizeof line, list)) {
        line[strcspn(line, "\n")] = 0;
        if (strlen(line) < 3) continue;
        if (count == capacity) items = realloc(items, (capacity *= 2) * sizeof *items);
        items[count].kind = line[0];
        items[count].path = strdup(line + 2);
        count++;
    }
    double t0 = now();
    for (int phase = 0; phase < 2; phase++) {
        pthread_t a, b;
        range ra = {0, split, phase}, rb = {split, count, phase};
        pthread_create(&a, NULL, work, &ra);
        pthread_create(&b, NULL, work, &rb);
        pthread_join(a, NULL);
        pthread_join(b, NULL);
        double t1 = now();
        int fd = open(root, O_RDONLY | O_DIRECTORY);
        if (fd < 0 || syncfs(fd) != 0) die("syncfs", root);
        close(fd);
        double t2 = now();
        printf("%s: %.2f s, syncfs %.2f s\n", phase == 0 ? "temp files" : "renames and links", t1 - t0, t2 - t1);
        t0 = t2;
    }
    return 0;
}
