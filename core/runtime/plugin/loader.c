/* Plugin loader; see loader.h. */
#define _GNU_SOURCE
#include "plugin/loader.h"

#include <dirent.h>
#include <stddef.h>
#include <dlfcn.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rlhost/rlcore.h>

#include "plugin/act.h"
#include "plugin/host_schema.h"
#include "plugin/schema.h"
#include "base/text.h"
#include "base/nearest.h"
#include "plugin/host_api.h"

#ifndef RLHOST_PLUGINDIR
#define RLHOST_PLUGINDIR "/usr/local/lib/rlhost/plugins"
#endif
#ifndef RLHOST_BUILD_ROOT
#define RLHOST_BUILD_ROOT ""
#endif

struct rl__plugin_file {
    char *path;
    void *handle;
    const rl_plugin_entry *entry;
};

/* Sizes of the structs as ABI 1.0 defined them: the least a plugin of this
   major may hand us.  They stay fixed when later minors grow the structs. */
#define ENTRY_SIZE_1_0 sizeof(rl_plugin_entry)
#define DESC_SIZE_1_0 offsetof(rl_plugin_desc, flags)
#define ENV_VT_SIZE_1_0 sizeof(rl_env_vtable)
#define ALGO_VT_SIZE_1_0 offsetof(rl_algo_vtable, act_box) /* act_box came in 1.2 */

const char *rl__kind_name(rl_plugin_kind kind)
{
    return kind == RL_KIND_ENV ? "env" : kind == RL_KIND_ALGO ? "algo" : "?";
}

static int refuse(rl__registry *reg, char *err, size_t errlen, int rc, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static int refuse(rl__registry *reg, char *err, size_t errlen, int rc, const char *fmt, ...)
{
    char msg[RL_ERR_MAX + 256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (err && errlen) snprintf(err, errlen, "%s", msg);
    char **r = realloc(reg->refusals, (reg->n_refusals + 1) * sizeof *r);
    if (r) {
        reg->refusals = r;
        char *copy = strdup(msg);
        if (copy) reg->refusals[reg->n_refusals++] = copy;
    }
    return rc;
}

uint32_t rl__desc_flags(const rl_plugin_desc *d)
{
    return RL_HAS_FIELD(d, rl_plugin_desc, flags) ? d->flags : 0;
}

const char *rl__desc_tune_space(const rl_plugin_desc *d)
{
    return RL_HAS_FIELD(d, rl_plugin_desc, tune_space) ? d->tune_space : NULL;
}

/* The descriptor's own fields: size, kind, name, texts, tables. */
static int check_header(const rl_plugin_desc *d, char *why, size_t whylen)
{
    if (!d) {
        snprintf(why, whylen, "a descriptor is NULL");
        return -1;
    }
    if (d->struct_size < DESC_SIZE_1_0) {
        snprintf(why, whylen, "rl_plugin_desc struct_size %u is smaller than ABI %d.0's %zu", d->struct_size,
                 RL_ABI_MAJOR, DESC_SIZE_1_0);
        return -1;
    }
    if (d->kind != RL_KIND_ENV && d->kind != RL_KIND_ALGO) {
        snprintf(why, whylen, "descriptor '%s' has unknown kind %d", d->name ? d->name : "?", (int)d->kind);
        return -1;
    }
    if (!d->name || !*d->name || strspn(d->name, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(d->name)) {
        snprintf(why, whylen, "plugin name '%s' is not [a-z0-9_]+", d->name ? d->name : "(null)");
        return -1;
    }
    if (!d->version || !d->description) {
        snprintf(why, whylen, "plugin '%s' lacks a version or description", d->name);
        return -1;
    }
    if ((d->n_options && !d->options) || (d->n_stages && !d->stages)) {
        snprintf(why, whylen, "plugin '%s' has a NULL option table", d->name);
        return -1;
    }
    return 0;
}

/* Every option and stage definition is well formed, and its name unique
   in its config group: the names share it with the host's keys, or the
   resolved config.cfg could not be read back. */
static int check_schemas(const rl_plugin_desc *d, char *why, size_t whylen)
{
    char inner[256];
    uint32_t n_all = d->n_options + d->n_stages;
    for (uint32_t k = 0; k < n_all; k++) {
        const rl_option_def *def = k < d->n_options ? &d->options[k] : &d->stages[k - d->n_options];
        if (rl__def_check(def, inner, sizeof inner) != RL_OK) {
            snprintf(why, whylen, "plugin '%s': %s", d->name, inner);
            return -1;
        }
    }
    uint32_t nh = 0, nhs = 0;
    const rl_option_def *host = rl__env_host_schema(&nh), *host_st = rl__env_host_stages(&nhs);
    for (uint32_t k = 0; k < n_all; k++) {
        int stage = k >= d->n_options;
        const rl_option_def *tab = stage ? d->stages : d->options;
        uint32_t i = stage ? k - d->n_options : k, n = stage ? d->n_stages : d->n_options;
        const char *name = tab[i].name;
        int reserved = !strcmp(name, "plugin") || !strcmp(name, "optimizations") ||
            (d->kind == RL_KIND_ENV && rl__def_find(stage ? host_st : host, stage ? nhs : nh, name) >= 0);
        if (reserved || rl__def_find(tab + i + 1, n - i - 1, name) >= 0) {
            snprintf(why, whylen, "plugin '%s': %s name '%s' is %s", d->name, stage ? "stage" : "option", name,
                     reserved ? "reserved for the host" : "declared twice");
            return -1;
        }
    }
    return 0;
}

/* What a vtable of each kind needs since ABI 1.0: at least that version's
   size (both start with struct_size) and these functions. */
typedef struct vtable_rule {
    const char *kind, *needs;
    size_t size_1_0;
    size_t n_fns, fns[5]; /* offsets of the function pointers that may not be NULL */
} vtable_rule;

static const vtable_rule env_rule = {"env",
                                     "create, destroy, reset or step",
                                     ENV_VT_SIZE_1_0,
                                     4,
                                     {offsetof(rl_env_vtable, create), offsetof(rl_env_vtable, destroy),
                                      offsetof(rl_env_vtable, reset), offsetof(rl_env_vtable, step)}};
static const vtable_rule algo_rule = {"algo",
                                      "create, destroy, observe or update",
                                      ALGO_VT_SIZE_1_0,
                                      4,
                                      {offsetof(rl_algo_vtable, create), offsetof(rl_algo_vtable, destroy),
                                       offsetof(rl_algo_vtable, observe), offsetof(rl_algo_vtable, update)}};

/* An algorithm acts through act_batch (ABI 1.8) or, built before it,
   through the entry of each space its flags claim: act for discrete
   actions (unless RL_DESC_NO_DISCRETE), act_box with RL_DESC_BOX,
   act_masked with RL_DESC_MASKS or RL_DESC_MULTI_DISCRETE. */
static int check_act(const rl_plugin_desc *d, char *why, size_t whylen)
{
    const rl_algo_vtable *vt = d->vtable;
    if (rl__algo_has_act_batch(vt)) return 0;
    uint32_t flags = rl__desc_flags(d);
    const char *lacks = NULL;
    if (!(flags & RL_DESC_NO_DISCRETE) && !vt->act)
        lacks = "act";
    else if ((flags & RL_DESC_BOX) && !(RL_HAS_FIELD(vt, rl_algo_vtable, act_box) && vt->act_box))
        lacks = "act_box, which its flag RL_DESC_BOX needs";
    else if ((flags & (RL_DESC_MASKS | RL_DESC_MULTI_DISCRETE)) &&
             !(RL_HAS_FIELD(vt, rl_algo_vtable, act_masked) && vt->act_masked))
        lacks = "act_masked, which its flags RL_DESC_MASKS or RL_DESC_MULTI_DISCRETE need";
    if (!lacks) return 0;
    snprintf(why, whylen, "algo '%s' vtable lacks act_batch, and %s", d->name, lacks);
    return -1;
}

static int check_vtable(const rl_plugin_desc *d, char *why, size_t whylen)
{
    if (!d->vtable) {
        snprintf(why, whylen, "plugin '%s' has no vtable", d->name);
        return -1;
    }
    const vtable_rule *r = d->kind == RL_KIND_ENV ? &env_rule : &algo_rule;
    uint32_t size;
    memcpy(&size, d->vtable, sizeof size);
    if (size < r->size_1_0) {
        snprintf(why, whylen, "%s '%s' vtable struct_size %u is smaller than ABI %d.0's %zu", r->kind, d->name, size,
                 RL_ABI_MAJOR, r->size_1_0);
        return -1;
    }
    for (size_t i = 0; i < r->n_fns; i++) {
        void (*fn)(void);
        memcpy(&fn, (const char *)d->vtable + r->fns[i], sizeof fn);
        if (!fn) {
            snprintf(why, whylen, "%s '%s' vtable lacks %s", r->kind, d->name, r->needs);
            return -1;
        }
    }
    if (d->kind == RL_KIND_ALGO) return check_act(d, why, whylen);
    return 0;
}

int rl__desc_check(const rl_plugin_desc *d, char *why, size_t whylen)
{
    if (check_header(d, why, whylen) || check_schemas(d, why, whylen)) return -1;
    return check_vtable(d, why, whylen);
}

static int add_plugin(rl__registry *reg, const rl_plugin_desc *d, const rl__plugin_file *f)
{
    if (reg->n_plugins == reg->cap_plugins) {
        size_t cap = reg->cap_plugins ? 2 * reg->cap_plugins : 16;
        rl__plugin *p = realloc(reg->plugins, cap * sizeof *p);
        if (!p) return RL_ENOMEM;
        reg->plugins = p;
        reg->cap_plugins = cap;
    }
    rl__plugin *p = &reg->plugins[reg->n_plugins];
    memset(p, 0, sizeof *p);
    p->desc = d;
    p->file = f;
    p->path = f->path;
    reg->n_plugins++;
    return RL_OK;
}

int rl__registry_add_caller(rl__registry *reg, const rl_plugin_desc *d, char *err, size_t errlen)
{
    char why[RL_ERR_MAX];
    if (rl__desc_check(d, why, sizeof why)) {
        snprintf(err, errlen, "env '%s': %s", d->name ? d->name : "?", why);
        return RL_EINVAL;
    }
    for (size_t i = 0; i < reg->n_plugins; i++)
        if (reg->plugins[i].desc->kind == d->kind && !strcmp(reg->plugins[i].desc->name, d->name)) {
            snprintf(err, errlen, "an env named '%s' exists already (%s): pick another name", d->name,
                     reg->plugins[i].caller ? "registered before" : reg->plugins[i].path);
            return RL_EINVAL;
        }
    static const rl__plugin_file none;
    int rc = add_plugin(reg, d, &none);
    if (rc != RL_OK) {
        snprintf(err, errlen, "out of memory");
        return rc;
    }
    reg->plugins[reg->n_plugins - 1].path = "the embedding program (rlh_env_register)";
    reg->plugins[reg->n_plugins - 1].caller = 1;
    return RL_OK;
}

/* shadowed_by pointers are resolved after loading since realloc moves the
   array; they are recomputed here each time. */
static void resolve_shadows(rl__registry *reg)
{
    for (size_t i = 0; i < reg->n_plugins; i++) {
        reg->plugins[i].shadowed_by = NULL;
        for (size_t j = 0; j < i; j++) {
            if (reg->plugins[j].desc->kind == reg->plugins[i].desc->kind && !reg->plugins[j].shadowed_by &&
                strcmp(reg->plugins[j].desc->name, reg->plugins[i].desc->name) == 0) {
                reg->plugins[i].shadowed_by = &reg->plugins[j];
                break;
            }
        }
    }
}

/* A plugin runs code while it is loaded (constructors, init, get); if that
   code crashes, the message names the file before the process dies. */
static const char *volatile g_loading;

static void on_fatal(int sig)
{
    static const char a[] = "rlhost: fatal signal while loading plugin ";
    const char *f = g_loading;
    if (f) {
        ssize_t w = write(STDERR_FILENO, a, sizeof a - 1);
        w = write(STDERR_FILENO, f, strlen(f));
        w = write(STDERR_FILENO, "\n", 1);
        (void)w;
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

static int load_file(rl__registry *reg, const char *real, char *err, size_t errlen);

int rl__registry_load_file(rl__registry *reg, const char *path, char *err, size_t errlen)
{
    char real[PATH_MAX];
    if (!realpath(path, real)) snprintf(real, sizeof real, "%s", path);
    static const int sigs[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
    struct sigaction sa, old[5];
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_fatal;
    for (int i = 0; i < 5; i++) sigaction(sigs[i], &sa, &old[i]);
    g_loading = real;
    int rc = load_file(reg, real, err, errlen);
    g_loading = NULL;
    for (int i = 0; i < 5; i++) sigaction(sigs[i], &old[i], NULL);
    return rc;
}

static int load_file(rl__registry *reg, const char *real, char *err, size_t errlen)
{
    for (size_t i = 0; i < reg->n_files; i++)
        if (strcmp(reg->files[i]->path, real) == 0) return RL_OK; /* seen */

    dlerror();
    void *h = dlopen(real, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        return refuse(reg, err, errlen, RL_EIO, "cannot load plugin %s: %s", real, e ? e : "unknown dlopen error");
    }
    const rl_plugin_entry *entry = dlsym(h, RL_PLUGIN_ENTRY_SYMBOL);
    if (!entry) {
        dlclose(h);
        return refuse(reg, err, errlen, RL_EABI, "%s is not an rlhost plugin: it does not export '%s'", real,
                      RL_PLUGIN_ENTRY_SYMBOL);
    }
    if (entry->abi.major != RL_ABI_MAJOR) {
        int maj = entry->abi.major, min = entry->abi.minor;
        dlclose(h);
        return refuse(reg, err, errlen, RL_EABI,
                      "%s was built for plugin ABI %d.%d but this rlhost "
                      "speaks %d.%d: rebuild it against the installed rlhost "
                      "SDK (pkg-config rlhost-plugin)",
                      real, maj, min, RL_ABI_MAJOR, RL_ABI_MINOR);
    }
    if (entry->abi.minor > RL_ABI_MINOR) {
        int min = entry->abi.minor;
        dlclose(h);
        return refuse(reg, err, errlen, RL_EABI,
                      "%s needs plugin ABI %d.%d but this rlhost speaks only "
                      "%d.%d: upgrade rlhost, or rebuild the plugin against "
                      "the installed rlhost SDK (pkg-config rlhost-plugin)",
                      real, RL_ABI_MAJOR, min, RL_ABI_MAJOR, RL_ABI_MINOR);
    }
    if (entry->struct_size < ENTRY_SIZE_1_0) {
        unsigned sz = entry->struct_size;
        dlclose(h);
        return refuse(reg, err, errlen, RL_EABI,
                      "%s: its rl_plugin_entry struct_size %u is smaller than "
                      "ABI %d.0's %zu: rebuild it against the installed rlhost "
                      "SDK (pkg-config rlhost-plugin)",
                      real, sz, RL_ABI_MAJOR, ENTRY_SIZE_1_0);
    }
    if (!entry->init || !entry->count || !entry->get) {
        dlclose(h);
        return refuse(reg, err, errlen, RL_EABI, "%s: its entry lacks init, count or get", real);
    }
    char perr[RL_ERR_MAX] = "";
    int rc = entry->init(rl__host_api(), perr, sizeof perr);
    if (rc != RL_OK) {
        dlclose(h);
        return refuse(reg, err, errlen, rc < 0 ? rc : RL_EIO, "%s: plugin init failed: %s", real,
                      perr[0] ? perr : rl_strerror(rc));
    }
    uint32_t n = entry->count();
    char why[RL_ERR_MAX];
    for (uint32_t i = 0; i < n; i++) {
        if (rl__desc_check(entry->get(i), why, sizeof why) != 0) {
            if (entry->deinit) entry->deinit();
            dlclose(h);
            return refuse(reg, err, errlen, RL_EABI, "%s: %s", real, why);
        }
    }
    rl__plugin_file *f = calloc(1, sizeof *f);
    rl__plugin_file **files = realloc(reg->files, (reg->n_files + 1) * sizeof *files);
    if (!f || !files || !(f->path = strdup(real))) {
        free(f);
        if (files) reg->files = files;
        if (entry->deinit) entry->deinit();
        dlclose(h);
        return refuse(reg, err, errlen, RL_ENOMEM, "%s: out of memory", real);
    }
    reg->files = files;
    f->handle = h;
    f->entry = entry;
    reg->files[reg->n_files++] = f;
    for (uint32_t i = 0; i < n; i++)
        if (add_plugin(reg, entry->get(i), f) != RL_OK)
            return refuse(reg, err, errlen, RL_ENOMEM, "%s: out of memory", real);
    resolve_shadows(reg);
    return RL_OK;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

void rl__registry_scan_dir(rl__registry *reg, const char *dir, int depth)
{
    DIR *d = opendir(dir);
    if (!d) return;
    if (depth == 0) {
        char **s = realloc(reg->searched, (reg->n_searched + 1) * sizeof *s);
        if (s) {
            reg->searched = s;
            char *copy = strdup(dir);
            if (copy) reg->searched[reg->n_searched++] = copy;
        }
    }
    char **names = NULL;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        if (depth == 0 && !ends_with(e->d_name, ".so")) continue;
        char **nn = realloc(names, (n + 1) * sizeof *nn);
        if (!nn) break;
        names = nn;
        if (!(names[n] = strdup(e->d_name))) break;
        n++;
    }
    closedir(d);
    if (n) qsort(names, n, sizeof *names, cmp_str);
    for (size_t i = 0; i < n; i++) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (depth > 0)
            rl__registry_scan_dir(reg, path, depth - 1);
        else
            rl__registry_load_file(reg, path, NULL, 0);
        free(names[i]);
    }
    free(names);
}

/* True when this code (librlhost, or a test linking the runtime) was loaded
   from inside the meson build tree. */
static const char g_anchor; /* an address inside this object */
int rl__running_from_build_tree(void)
{
    if (!RLHOST_BUILD_ROOT[0]) return 0;
    char self[PATH_MAX], root[PATH_MAX];
    Dl_info info;
    if (dladdr(&g_anchor, &info) && info.dli_fname && strchr(info.dli_fname, '/')) {
        if (!realpath(info.dli_fname, self)) return 0;
    } else {
        ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
        if (n <= 0) return 0;
        self[n] = 0;
    }
    if (!realpath(RLHOST_BUILD_ROOT, root)) return 0;
    size_t m = strlen(root);
    return strncmp(self, root, m) == 0 && self[m] == '/';
}

void rl__registry_discover(rl__registry *reg, const char *const *extra, size_t n_extra)
{
    for (size_t i = 0; i < n_extra; i++) rl__registry_scan_dir(reg, extra[i], 0);
    const char *env = getenv("RLHOST_PLUGIN_PATH");
    if (env && *env) {
        char *copy = strdup(env);
        char *save = NULL;
        for (char *tok = copy ? strtok_r(copy, ":", &save) : NULL; tok; tok = strtok_r(NULL, ":", &save)) {
            if (tok[0] != '/') { /* what it loads would depend on the current directory */
                refuse(reg, NULL, 0, RL_EINVAL,
                       "RLHOST_PLUGIN_PATH entry '%s' is relative and was ignored: use an absolute path", tok);
                continue;
            }
            rl__registry_scan_dir(reg, tok, 0);
        }
        free(copy);
    }
    if (rl__running_from_build_tree()) {
        static const char *const sub[] = {"envs", "algos", "examples"};
        for (size_t i = 0; i < 3; i++) {
            char path[PATH_MAX];
            snprintf(path, sizeof path, "%s/%s", RLHOST_BUILD_ROOT, sub[i]);
            rl__registry_scan_dir(reg, path, 1);
        }
    }
    rl__registry_scan_dir(reg, RLHOST_PLUGINDIR, 0);
}

const rl__plugin *rl__registry_find(const rl__registry *reg, rl_plugin_kind kind, const char *name, const char *key,
                                    char *err, size_t errlen)
{
    const rl__plugin *other_kind = NULL;
    for (size_t i = 0; i < reg->n_plugins; i++) {
        const rl__plugin *p = &reg->plugins[i];
        if (p->shadowed_by || strcmp(p->desc->name, name) != 0) continue;
        if (p->desc->kind == kind) return p;
        other_kind = p;
    }
    /* Build the list of names of the wanted kind. */
    const char *names[256];
    size_t n = 0;
    rl__sbuf list = {0};
    for (size_t i = 0; i < reg->n_plugins && n < 256; i++) {
        const rl__plugin *p = &reg->plugins[i];
        if (p->shadowed_by || p->desc->kind != kind) continue;
        names[n++] = p->desc->name;
        rl__sbuf_printf(&list, "%s%s", n > 1 ? ", " : "", p->desc->name);
    }
    const char *kn = rl__kind_name(kind);
    const char *avail = list.data ? list.data : "none found";
    if (other_kind) {
        snprintf(err, errlen, "%s: '%s' is an %s plugin, but an %s is expected (available %ss: %s)", key, name,
                 rl__kind_name(other_kind->desc->kind), kn, kn, avail);
    } else {
        const char *near = rl__nearest(name, names, n);
        char hint[128] = "";
        if (near) snprintf(hint, sizeof hint, "did you mean '%s'? ", near);
        snprintf(err, errlen,
                 "%s: unknown %s plugin '%s' (%savailable %ss: %s; a plugin of your own is found through "
                 "--plugin-path DIR or RLHOST_PLUGIN_PATH)",
                 key, kn, name, hint, kn, avail);
    }
    rl__sbuf_free(&list);
    return NULL;
}

void rl__registry_destroy(rl__registry *reg)
{
    for (size_t i = 0; i < reg->n_files; i++) {
        rl__plugin_file *f = reg->files[i];
        if (f->entry->deinit) f->entry->deinit();
        dlclose(f->handle);
        free(f->path);
        free(f);
    }
    free(reg->files);
    free(reg->plugins);
    for (size_t i = 0; i < reg->n_refusals; i++) free(reg->refusals[i]);
    free(reg->refusals);
    for (size_t i = 0; i < reg->n_searched; i++) free(reg->searched[i]);
    free(reg->searched);
    memset(reg, 0, sizeof *reg);
}

uint32_t rl__act_workers(const rl_plugin_desc *desc, uint32_t threads)
{
    if (!desc || !(rl__desc_flags(desc) & RL_DESC_ACT_WORKERS)) return 1;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    uint32_t n = cores > 1 ? (uint32_t)cores : 1;
    return threads > n ? threads : n;
}
