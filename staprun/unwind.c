// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unwinding user stack samples with libdwfl, in staprun (doc/ustack.md).
 *
 * One Dwfl per process, holding the files the process had mapped
 * executable as the kernel reported them (map records): a process that
 * has exited still unwinds, and nothing is read from /proc/PID. A newer
 * generation of a process's mappings that only adds files (dlopen) adds
 * modules to its Dwfl; one that drops or moves any (exec, munmap) starts
 * a new Dwfl. The frames come from the CFI of each file (.eh_frame, else
 * .debug_frame, else the frame-pointer fallback of libdwfl), with memory
 * from the copied stack only; elfutils 0.188 has no sample unwinder
 * (libdwfl_stacktrace is 0.193), so the thread is our own: its registers
 * and memory are the sample's, set through dwfl_attach_state once per
 * Dwfl, the sample passed by a pointer.
 *
 * Each file is opened by the path the kernel gave and checked to be the
 * same file (device and inode): a program rebuilt or upgraded since it
 * was mapped is not used to name frames.
 */
#include "unwind.h"

#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct sr_map {
	uint64_t start, end, offset, dev, ino, size;
	char *path;
	Dwfl_Module *mod;       /* NULL: not reported (unreadable or replaced) */
	uint64_t bias;
	bool tried;             /* reporting it was tried */
	bool replaced;          /* the file at path is another one now */
};

struct sr_proc {
	uint32_t tgid, gen;     /* the mappings in use */
	struct sr_map *maps;
	size_t nmaps;
	/* The generation being received (map records come one by one). */
	uint32_t next_gen;
	struct sr_map *next;
	size_t nnext;
	bool next_complete;     /* its last record came */
	Dwfl *dwfl;
	bool attached;
	unsigned long long used;        /* when a sample of it was last unwound */
	struct sr_proc *chain;
};

#define SR_PROC_BUCKETS 1024

/* A file's ELF, read once for every process that maps it: each process's
 * Dwfl module holds a reference (libelf counts them). */
struct sr_file {
	uint64_t dev, ino, size;        /* as the kernel gave them */
	char *path;
	Elf *elf;
	struct sr_file *chain;
};
#define SR_FILE_BUCKETS 256

struct sr_unwinder {
	struct sr_proc *procs[SR_PROC_BUCKETS];
	/* The sample being unwound, for the thread callbacks. */
	const struct rt_us_sample *cur;
	const unsigned char *cur_stack;
	bool read_past_copy;
	/* Files found replaced, warned about once each. */
	char **replaced;
	size_t nreplaced;
	/* Dwfls open (each holds its files open): at most SR_MAX_DWFLS, the
	 * least recently used closed first (a profile of a build sees
	 * thousands of processes); a process's mappings stay, and its Dwfl
	 * is made again if it is sampled again. */
	unsigned long long tick;
	int ndwfl;
	struct sr_file *files[SR_FILE_BUCKETS];
};
#define SR_MAX_DWFLS 64

/*
 * Debug files as libdwfl finds them (.gnu_debuglink, /usr/lib/debug,
 * debuginfod when DEBUGINFOD_URLS is set), asked for only when a frame in
 * the file is named. When debuginfod is set and has nothing for a file
 * (or cannot be reached), frames have symbols without source lines: said
 * once.
 */
static int sr_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			     Dwarf_Addr base, const char *file_name, const char *debuglink_file,
			     GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	static bool warned;
	const char *urls = getenv("DEBUGINFOD_URLS");
	int fd = dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name,
					      debuglink_file, debuglink_crc, debuginfo_file_name);

	if (fd < 0 && urls && *urls && !warned) {
		warned = true;
		fprintf(stderr,
			"WARNING: no debug information for %s, here or from debuginfod (%s): its frames, and those of other such files, have no source lines\n",
			file_name ? file_name : modname, urls);
	}
	return fd;
}

/* A module's ELF: the shared one of its file (its userdata). */
static int sr_find_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
		       char **file_name, Elf **elfp)
{
	struct sr_file *f = *userdata;

	(void)mod;
	(void)modname;
	(void)base;
	if (!f)
		return -1;
	/* Another reference to the same descriptor, not another read. */
	*elfp = elf_begin(-1, ELF_C_READ_MMAP, f->elf);
	*file_name = strdup(f->path);
	return -1;
}

static const Dwfl_Callbacks sr_dwfl_callbacks = {
	.find_elf = sr_find_elf,
	.find_debuginfo = sr_find_debuginfo,
};

struct sr_unwinder *sr_unwinder_new(void)
{
	elf_version(EV_CURRENT);
	/* A server that does not answer holds up the unwinding of every
	 * stack after it: a few seconds, not debuginfod's 90. */
	setenv("DEBUGINFOD_TIMEOUT", "5", 0);
	return calloc(1, sizeof(struct sr_unwinder));
}

static void sr_maps_free(struct sr_map *maps, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(maps[i].path);
	free(maps);
}

static void sr_proc_reset_dwfl(struct sr_unwinder *u, struct sr_proc *p)
{
	if (p->dwfl) {
		dwfl_end(p->dwfl);
		u->ndwfl--;
	}
	p->dwfl = NULL;
	p->attached = false;
	for (size_t i = 0; i < p->nmaps; i++) {
		p->maps[i].mod = NULL;
		p->maps[i].tried = false;
	}
}

void sr_unwinder_free(struct sr_unwinder *u)
{
	if (!u)
		return;
	for (size_t b = 0; b < SR_PROC_BUCKETS; b++) {
		struct sr_proc *p = u->procs[b], *next;

		for (; p; p = next) {
			next = p->chain;
			sr_proc_reset_dwfl(u, p);
			sr_maps_free(p->maps, p->nmaps);
			sr_maps_free(p->next, p->nnext);
			free(p);
		}
	}
	for (size_t b = 0; b < SR_FILE_BUCKETS; b++)
		for (struct sr_file *f = u->files[b], *next; f; f = next) {
			next = f->chain;
			elf_end(f->elf);
			free(f->path);
			free(f);
		}
	for (size_t i = 0; i < u->nreplaced; i++)
		free(u->replaced[i]);
	free(u->replaced);
	free(u);
}

static struct sr_proc *sr_proc_find(struct sr_unwinder *u, uint32_t tgid, bool create)
{
	struct sr_proc **head = &u->procs[tgid % SR_PROC_BUCKETS], *p;

	for (p = *head; p; p = p->chain)
		if (p->tgid == tgid)
			return p;
	if (!create)
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->tgid = tgid;
	p->chain = *head;
	*head = p;
	return p;
}

static bool sr_same_map(const struct sr_map *a, const struct sr_map *b)
{
	return a->start == b->start && a->end == b->end && a->offset == b->offset &&
	       a->dev == b->dev && a->ino == b->ino;
}

/* Every mapping of old is in new, unchanged. */
static bool sr_maps_grow(const struct sr_map *old, size_t nold, const struct sr_map *new,
			 size_t nnew)
{
	for (size_t i = 0; i < nold; i++) {
		bool found = false;

		for (size_t k = 0; k < nnew && !found; k++)
			found = sr_same_map(&old[i], &new[k]);
		if (!found)
			return false;
	}
	return true;
}

/* The new generation is complete once a sample names it: take it. */
static void sr_proc_take_next(struct sr_unwinder *u, struct sr_proc *p)
{
	if (p->next_gen == 0 || p->next_gen == p->gen)
		return;
	if (p->dwfl && sr_maps_grow(p->maps, p->nmaps, p->next, p->nnext)) {
		/* Keep the modules already reported; the new ones are added. */
		for (size_t k = 0; k < p->nnext; k++)
			for (size_t i = 0; i < p->nmaps; i++)
				if (sr_same_map(&p->maps[i], &p->next[k])) {
					p->next[k].mod = p->maps[i].mod;
					p->next[k].bias = p->maps[i].bias;
					p->next[k].tried = p->maps[i].tried;
					p->next[k].replaced = p->maps[i].replaced;
				}
	} else {
		sr_proc_reset_dwfl(u, p);
	}
	sr_maps_free(p->maps, p->nmaps);
	p->maps = p->next;
	p->nmaps = p->nnext;
	p->gen = p->next_gen;
	p->next = NULL;
	p->nnext = 0;
	p->next_gen = 0;
	p->next_complete = false;
}

void sr_unwinder_map(struct sr_unwinder *u, const struct rt_us_map *m, const char *path,
		     size_t path_len)
{
	struct sr_proc *p = sr_proc_find(u, m->tgid, true);
	struct sr_map *grown;

	if (!p)
		return;
	if (m->flags & RT_US_FIRST) {
		sr_maps_free(p->next, p->nnext);
		p->next = NULL;
		p->nnext = 0;
		p->next_gen = m->gen;
		p->next_complete = false;
	} else if (m->gen != p->next_gen) {
		return; /* the rest of a generation whose start was lost */
	}
	if (m->flags & RT_US_LAST)
		p->next_complete = true;
	if (!path_len)
		return; /* the last record, or a process with nothing mapped executable */
	grown = realloc(p->next, (p->nnext + 1) * sizeof(*grown));
	if (!grown)
		return;
	p->next = grown;
	grown[p->nnext] = (struct sr_map){ .start = m->start, .end = m->end, .offset = m->offset,
					   .dev = m->dev, .ino = m->ino, .size = m->size,
					   .path = strndup(path, path_len) };
	if (grown[p->nnext].path)
		p->nnext++;
}

static void sr_warn_replaced(struct sr_unwinder *u, const char *path)
{
	char **more;

	for (size_t i = 0; i < u->nreplaced; i++)
		if (!strcmp(u->replaced[i], path))
			return;
	more = realloc(u->replaced, (u->nreplaced + 1) * sizeof(*more));
	if (!more)
		return;
	u->replaced = more;
	u->replaced[u->nreplaced++] = strdup(path);
	fprintf(stderr,
		"WARNING: %s is not the file the process mapped (it was replaced on disk since): its frames are shown as addresses\n",
		path);
}

/* The load bias of a file mapped at m->start from file offset m->offset,
 * and the addresses its loaded image spans then. */
static bool sr_bias(Elf *elf, const struct sr_map *m, uint64_t *bias, uint64_t *low,
		    uint64_t *high)
{
	size_t n = 0;
	bool found = false, first = true;
	uint64_t lo = 0, hi = 0;

	*bias = 0;
	if (elf_getphdrnum(elf, &n) != 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		/* libdwfl takes the first segment's start, aligned, as the image's. */
		if (first)
			lo = ph.p_vaddr & -(ph.p_align ? ph.p_align : 1);
		first = false;
		if (ph.p_vaddr + ph.p_memsz > hi)
			hi = ph.p_vaddr + ph.p_memsz;
		uint64_t page_off = ph.p_offset & ~(uint64_t)0xfff;
		if (found || m->offset < page_off || m->offset >= ph.p_offset + ph.p_filesz)
			continue;
		/* The virtual address of file offset m->offset. */
		*bias = m->start - (ph.p_vaddr - (ph.p_offset - m->offset));
		found = true;
	}
	*low = *bias + lo;
	*high = *bias + hi;
	return found && hi > lo;
}

static int sr_open_mapped(const struct sr_proc *p, const struct sr_map *m, struct stat *st);

/* The ELF of mapping m's file: read already for another process, or now. */
static struct sr_file *sr_file_of(struct sr_unwinder *u, const struct sr_proc *p,
				  struct sr_map *m)
{
	struct sr_file **head = &u->files[m->ino % SR_FILE_BUCKETS], *f;
	struct stat st;
	int fd;

	for (f = *head; f; f = f->chain)
		if (f->dev == m->dev && f->ino == m->ino && f->size == m->size)
			return f;
	fd = sr_open_mapped(p, m, &st);
	if (fd < 0) {
		if (fd == -2) {
			sr_warn_replaced(u, m->path);
			m->replaced = true;
		}
		return NULL;
	}
	f = calloc(1, sizeof(*f));
	if (f)
		f->elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	/* Mapped whole: the descriptor is no longer needed. */
	if (f && f->elf)
		elf_cntl(f->elf, ELF_C_FDDONE);
	close(fd);
	if (!f || !f->elf || !(f->path = strdup(m->path))) {
		if (f && f->elf)
			elf_end(f->elf);
		free(f);
		return NULL;
	}
	f->dev = m->dev;
	f->ino = m->ino;
	f->size = m->size;
	f->chain = *head;
	*head = f;
	return f;
}

/* The same file: inode and size as the kernel gave them (not the device:
 * a btrfs subvolume's stat() says another than its mappings). A FIFO or
 * a device is no program. */
static bool sr_same_file(const struct sr_map *m, int fd, struct stat *st)
{
	return !fstat(fd, st) && S_ISREG(st->st_mode) && (uint64_t)st->st_ino == m->ino &&
	       (uint64_t)st->st_size == m->size;
}

/*
 * The file of mapping m open: by its path, or, when that is another file
 * now (replaced on disk, " (deleted)"), through /proc/PID/map_files while
 * the process lives (the file it really mapped). -2: replaced, and the
 * original is gone; -1: cannot be read.
 */
static int sr_open_mapped(const struct sr_proc *p, const struct sr_map *m, struct stat *st)
{
	static const char deleted[] = " (deleted)";
	size_t len = strlen(m->path);
	char path[PATH_MAX];
	bool replaced = false;
	int fd;

	snprintf(path, sizeof(path), "%s", m->path);
	if (len > sizeof(deleted) - 1 && !strcmp(m->path + len - (sizeof(deleted) - 1), deleted)) {
		path[len - (sizeof(deleted) - 1)] = 0;
		replaced = true;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd >= 0) {
		if (sr_same_file(m, fd, st))
			return fd;
		close(fd);
		replaced = true;
	}
	snprintf(path, sizeof(path), "/proc/%u/map_files/%llx-%llx", p->tgid,
		 (unsigned long long)m->start, (unsigned long long)m->end);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd >= 0) {
		if (sr_same_file(m, fd, st))
			return fd;
		close(fd);
	}
	return replaced ? -2 : -1;
}

/* Report to p's Dwfl the files not reported yet. */
/* Close the Dwfl of the process least recently unwound. */
static void sr_evict_dwfl(struct sr_unwinder *u)
{
	struct sr_proc *oldest = NULL;

	for (size_t b = 0; b < SR_PROC_BUCKETS; b++)
		for (struct sr_proc *p = u->procs[b]; p; p = p->chain)
			if (p->dwfl && (!oldest || p->used < oldest->used))
				oldest = p;
	if (oldest)
		sr_proc_reset_dwfl(u, oldest);
}

static void sr_proc_report(struct sr_unwinder *u, struct sr_proc *p)
{
	if (!p->dwfl) {
		if (u->ndwfl >= SR_MAX_DWFLS)
			sr_evict_dwfl(u);
		p->dwfl = dwfl_begin(&sr_dwfl_callbacks);
		if (!p->dwfl)
			return;
		u->ndwfl++;
		dwfl_report_begin(p->dwfl);
	} else {
		dwfl_report_begin_add(p->dwfl);
	}
	for (size_t i = 0; i < p->nmaps; i++) {
		struct sr_map *m = &p->maps[i];
		struct sr_file *f;
		uint64_t bias, low, high;
		bool dup = false;

		if (m->mod || m->tried)
			continue;
		m->tried = true;
		/* A file mapped in several pieces is one module. */
		for (size_t k = 0; k < i && !dup; k++)
			if (p->maps[k].mod && p->maps[k].dev == m->dev && p->maps[k].ino == m->ino) {
				m->mod = p->maps[k].mod;
				m->bias = p->maps[k].bias;
				dup = true;
			}
		if (dup)
			continue;
		f = sr_file_of(u, p, m);
		if (!f || !sr_bias(f->elf, m, &bias, &low, &high))
			continue;
		/* The module's ELF comes from sr_find_elf: its file's, shared. */
		m->mod = dwfl_report_module(p->dwfl, m->path, low, high);
		m->bias = bias;
		if (m->mod) {
			void **userdata;

			dwfl_module_info(m->mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
			*userdata = f;
		}
	}
	dwfl_report_end(p->dwfl, NULL, NULL);
}

static const struct sr_map *sr_map_of(const struct sr_proc *p, uint64_t addr);

/* --- the thread the sample is --- */

static pid_t sr_next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct sr_unwinder *u = arg;

	(void)dwfl;
	if (*thread_argp || !u->cur)
		return 0;
	*thread_argp = u;
	return (pid_t)u->cur->tid;
}

static bool sr_get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	struct sr_unwinder *u = arg;

	(void)dwfl;
	*thread_argp = u;
	return u->cur && (pid_t)u->cur->tid == tid;
}

/* Memory is the copied stack only: the data a process had at the sample
 * is gone (and the process may be too). */
static bool sr_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct sr_unwinder *u = arg;
	uint64_t sp = u->cur->regs[7];

	(void)dwfl;
	if (addr >= sp && addr - sp + 8 <= u->cur->stack_len) {
		memcpy(result, u->cur_stack + (addr - sp), 8);
		return true;
	}
	if (addr >= sp && addr - sp < (uint64_t)u->cur->stack_max + 65536)
		u->read_past_copy = true;
	return false;
}

static bool sr_set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct sr_unwinder *u = arg;
	Dwarf_Word regs[16];

	for (int i = 0; i < 16; i++)
		regs[i] = u->cur->regs[i];
	dwfl_thread_state_register_pc(thread, u->cur->regs[16]);
	return dwfl_thread_state_registers(thread, 0, 16, regs);
}

static const Dwfl_Thread_Callbacks sr_thread_callbacks = {
	.next_thread = sr_next_thread,
	.get_thread = sr_get_thread,
	.memory_read = sr_memory_read,
	.set_initial_registers = sr_set_initial_registers,
};

struct sr_walk {
	struct sr_unwind_result *r;
	int max;
};

static int sr_frame_cb(Dwfl_Frame *state, void *arg)
{
	struct sr_walk *w = arg;
	Dwarf_Addr pc;
	bool activation;

	if (!dwfl_frame_pc(state, &pc, &activation))
		return DWARF_CB_ABORT;
	if (w->r->n && !activation && pc == 0)
		return DWARF_CB_ABORT;
	w->r->pcs[w->r->n] = pc;
	w->r->return_addr[w->r->n] = !activation;
	w->r->n++;
	return w->r->n < w->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

bool sr_maps_line(const char *line, uint32_t tgid, uint32_t gen, bool first, struct rt_us_map *m,
		  char file[4097])
{
	unsigned long long start, end, off, ino;
	unsigned int major, minor;
	char perms[8];
	struct stat st;

	if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %4096s", &start, &end, perms, &off, &major,
		   &minor, &ino, file) != 8 || perms[2] != 'x' || file[0] != '/' || stat(file, &st))
		return false;
	/* The device as the kernel encodes it (new_encode_dev). */
	*m = (struct rt_us_map){ .tgid = tgid, .gen = gen, .flags = first ? RT_US_FIRST : 0,
				 .start = start, .end = end, .offset = off,
				 .dev = (minor & 0xff) | (major << 8) | ((uint64_t)(minor & ~0xffu) << 12),
				 .ino = ino, .size = (uint64_t)st.st_size,
				 .path_len = (uint32_t)strlen(file) };
	return true;
}

/*
 * A process whose mappings the module could not send (its samples came
 * from kernel probes only): from /proc while it lives. Its files are
 * taken as they are now (st_size), so a replaced one is not noticed.
 */
static struct sr_proc *sr_proc_from_procfs(struct sr_unwinder *u, uint32_t tgid)
{
	char path[64], line[4352];
	struct sr_proc *p;
	FILE *f;
	bool first = true;

	snprintf(path, sizeof(path), "/proc/%u/maps", tgid);
	f = fopen(path, "re");
	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		char file[4097];
		struct rt_us_map m;

		if (!sr_maps_line(line, tgid, UINT32_MAX, first, &m, file))
			continue;
		sr_unwinder_map(u, &m, file, m.path_len);
		first = false;
	}
	fclose(f);
	p = sr_proc_find(u, tgid, false);
	if (p && p->next_gen == UINT32_MAX)
		sr_proc_take_next(u, p);
	return p && p->nmaps ? p : NULL;
}

bool sr_unwinder_has_gen(struct sr_unwinder *u, uint32_t tgid, uint32_t gen)
{
	struct sr_proc *p = sr_proc_find(u, tgid, false);

	return p && (p->gen == gen || (p->next_gen == gen && p->next_complete));
}

void sr_unwind(struct sr_unwinder *u, const struct rt_us_sample *s, const unsigned char *stack,
	       struct sr_unwind_result *r)
{
	struct sr_proc *p = sr_proc_find(u, s->tgid, false);
	struct sr_walk w = { .r = r, .max = SR_MAX_FRAMES };

	memset(r, 0, sizeof(*r));
	r->pcs[0] = s->regs[16];
	r->n = 1;
	r->addr_only = s->flags & RT_US_ADDR;
	/* No mappings sent, or those to come never came (dropped). */
	if ((!p || (!p->nmaps && !p->nnext)) &&
	    (!s->gen || ((s->flags & RT_US_PENDING) && !sr_unwinder_has_gen(u, s->tgid, s->gen))))
		p = sr_proc_from_procfs(u, s->tgid);
	if (!p) {
		r->note = "the process's mappings are not known (the module could not send them, and it has exited)";
		return;
	}
	if (s->gen == p->next_gen)
		sr_proc_take_next(u, p);
	r->proc = p;
	p->used = ++u->tick;
	sr_proc_report(u, p);
	if (!p->dwfl || r->addr_only)
		return;
	/* Nothing to unwind the first frame with. */
	const struct sr_map *m0 = sr_map_of(p, s->regs[16]);
	if (!m0 || !m0->mod) {
		r->note = !m0 ? "its address is in no file the process mapped"
		      : m0->replaced ? "its file was replaced on disk"
				     : "its file cannot be read";
		return;
	}
	if (!p->attached) {
		/* NULL: the machine is taken from the first module with an ELF. */
		if (!dwfl_attach_state(p->dwfl, NULL, (pid_t)p->tgid, &sr_thread_callbacks, u)) {
			r->note = dwfl_errmsg(-1);
			return;
		}
		p->attached = true;
	}
	u->cur = s;
	u->cur_stack = stack;
	u->read_past_copy = false;
	r->n = 0;
	/* A read past the copy ends the walk, whether libdwfl calls that
	 * an error or the outermost frame. */
	if (dwfl_getthread_frames(p->dwfl, (pid_t)s->tid, sr_frame_cb, &w) != 0 &&
	    r->n < SR_MAX_FRAMES && !u->read_past_copy) {
		/* dwfl_errno() clears the error it returns. */
		int e = dwfl_errno();

		r->note = e ? dwfl_errmsg(e) : "no unwind information here";
	}
	r->cut = u->read_past_copy && r->n < SR_MAX_FRAMES;
	if (r->n == 0) {
		r->pcs[0] = s->regs[16];
		r->n = 1;
	}
	u->cur = NULL;
}

/* The mapping of p holding addr. */
static const struct sr_map *sr_map_of(const struct sr_proc *p, uint64_t addr)
{
	for (size_t i = 0; p && i < p->nmaps; i++)
		if (addr >= p->maps[i].start && addr < p->maps[i].end)
			return &p->maps[i];
	return NULL;
}

size_t sr_unwinder_files(const struct sr_unwinder *u)
{
	size_t n = 0;

	for (size_t b = 0; b < SR_FILE_BUCKETS; b++)
		for (const struct sr_file *f = u->files[b]; f; f = f->chain)
			n++;
	return n;
}

void sr_frame_identity(const struct sr_unwind_result *r, int i, uint64_t *file, uint64_t *rel)
{
	const struct sr_map *m = sr_map_of(r->proc, r->pcs[i]);

	*file = m ? (m->dev * 1000003u) ^ m->ino : 0;
	*rel = m ? r->pcs[i] - m->start + m->offset : r->pcs[i];
}

static const char *sr_basename(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

int sr_symbolize(const struct sr_unwind_result *r, int i, struct sr_sym *out, int max)
{
	const struct sr_map *m = sr_map_of(r->proc, r->pcs[i]);
	/* A return address is the instruction after the call: look up the call. */
	uint64_t pc = r->pcs[i], look = r->return_addr[i] && pc ? pc - 1 : pc;
	int n = 0;

	if (max < 1)
		return 0;
	memset(out, 0, sizeof(*out) * (size_t)max);
	out[0].pc = pc;
	out[0].file = m ? m->path : NULL;
	out[0].module = m ? sr_basename(m->path) : NULL;
	if (!m || !m->mod) {
		out[0].replaced = m && m->replaced;
		return 1;
	}
	GElf_Off off = 0;
	GElf_Sym sym;
	const char *name = dwfl_module_addrinfo(m->mod, look, &off, &sym, NULL, NULL, NULL);
	Dwarf_Addr bias = 0;
	Dwarf_Die *cudie = dwfl_module_addrdie(m->mod, look, &bias);
	Dwarf_Die *scopes = NULL;
	int nscopes = cudie ? dwarf_getscopes(cudie, look - bias, &scopes) : 0;

	Dwfl_Line *line = dwfl_module_getsrc(m->mod, look);
	int lineno = 0;
	const char *src = line ? dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL) : NULL;
	Dwarf_Files *files = NULL;

	if (cudie && dwarf_getsrcfiles(cudie, &files, NULL) != 0)
		files = NULL;
	/* Inline frames, innermost first, then the function holding them;
	 * the innermost is at pc's line, each other at the call of the one
	 * inside it. */
	for (int k = 0; k < nscopes && n < max - 1; k++) {
		if (dwarf_tag(&scopes[k]) != DW_TAG_inlined_subroutine)
			continue;
		const char *iname = dwarf_diename(&scopes[k]);
		Dwarf_Attribute attr;
		Dwarf_Word file_idx = 0, call_line = 0;

		out[n].pc = pc;
		out[n].file = m->path;
		out[n].module = sr_basename(m->path);
		out[n].name = iname ? iname : "?";
		out[n].inlined = true;
		out[n].src = src;
		out[n].line = lineno;
		n++;
		/* The next one out is where this one was called. */
		src = NULL;
		lineno = 0;
		if (dwarf_formudata(dwarf_attr(&scopes[k], DW_AT_call_line, &attr), &call_line) == 0 &&
		    dwarf_formudata(dwarf_attr(&scopes[k], DW_AT_call_file, &attr), &file_idx) == 0 &&
		    files) {
			src = dwarf_filesrc(files, file_idx, NULL, NULL);
			lineno = (int)call_line;
		}
	}
	free(scopes);
	out[n].pc = pc;
	out[n].file = m->path;
	out[n].module = sr_basename(m->path);
	out[n].name = name;
	out[n].offset = name ? off + (look != pc) : pc - m->bias;
	out[n].size = name ? sym.st_size : 0;
	if (src && lineno > 0) {
		out[n].src = src;
		out[n].line = lineno;
	}
	return n + 1;
}
