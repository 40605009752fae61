// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Probes on user-space programs and libraries: one uprobe consumer per
 * probe, on the file's inode at a file offset, so the kernel places the
 * breakpoint in every process that maps the file, now or later. Markers'
 * semaphores are counted by the kernel (the ref_ctr offset). A .return
 * is a uretprobe; the values its body needs from the entry are kept per
 * call in a pool keyed by thread and stack pointer, which recursion and
 * longjmp cannot confuse (a stale entry is reused, its return counted
 * as missed).
 *
 * Handlers run in the probed thread's own context, on its way back to
 * user mode; the hit itself runs like any other (rt_run_hit: interrupts
 * off, the statement and time budgets) and reads user memory only
 * through the fault-safe readers. With -c or -x, only the target (and
 * for -c its descendants) counts.
 */
#include <linux/dcache.h>
#include <linux/elf.h>
#include <linux/fs.h>
#include <linux/namei.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "hit.h"
#include "runtime.h"

/* --- user-space symbols: usymname(), usymdata(), umodname() --- */

static struct path *rt_uobject_paths;

/* The inode of each file probes are in, held while the script runs: a
 * mapping is matched to its file by it. */
static void rt_uobjects_start(void)
{
	rt_size i;

	if (!rt_script.nuobjects || rt_uobject_paths)
		return;
	rt_uobject_paths = kcalloc(rt_script.nuobjects, sizeof(*rt_uobject_paths), GFP_KERNEL);
	for (i = 0; rt_uobject_paths && i < rt_script.nuobjects; i++)
		if (!kern_path(rt_script.uobjects[i].path, LOOKUP_FOLLOW, &rt_uobject_paths[i]))
			WRITE_ONCE(rt_script.uobjects[i].inode, d_real_inode(rt_uobject_paths[i].dentry));
}

static void rt_uobjects_stop(void)
{
	rt_size i;

	for (i = 0; rt_uobject_paths && i < rt_script.nuobjects; i++)
		if (rt_script.uobjects[i].inode) {
			WRITE_ONCE(rt_script.uobjects[i].inode, NULL);
			path_put(&rt_uobject_paths[i]);
		}
	kfree(rt_uobject_paths);
	rt_uobject_paths = NULL;
}

/* What is at a user address of the current task: the file mapped there
 * (its path in path, "" if none), and in a file the script probes, the
 * symbol at or before it (*sym, 0 if none) and the offset into that.
 * Never sleeps: the memory map's lock is only tried. The path of a file
 * no probe is in comes from d_path, only where the hit interrupted user
 * mode (user): from inside the kernel, this CPU may be in the middle of
 * a rename, and d_path would wait for it forever. */
static void rt_uaddr_lookup(unsigned long addr, char *path, rt_size size, bool user,
			    const struct rt_uobject **obj, const struct rt_usym **sym, rt_size *off,
			    unsigned long *base)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	rt_size i, lo, hi, fileoff;

	path[0] = 0;
	*obj = NULL;
	*sym = NULL;
	if (!mm || (current->flags & PF_KTHREAD) || in_nmi() || !mmap_read_trylock(mm))
		return;
	vma = find_vma(mm, addr);
	if (!vma || addr < vma->vm_start || !vma->vm_file)
		goto out;
	fileoff = addr - vma->vm_start + ((rt_size)vma->vm_pgoff << PAGE_SHIFT);
	/* Where the file's first byte would be: its mappings keep their
	 * distances from it. */
	if (base)
		*base = vma->vm_start - ((unsigned long)vma->vm_pgoff << PAGE_SHIFT);
	for (i = 0; i < rt_script.nuobjects && !*obj; i++)
		if (READ_ONCE(rt_script.uobjects[i].inode) == file_inode(vma->vm_file))
			*obj = &rt_script.uobjects[i];
	if (*obj) {
		strscpy(path, (*obj)->path, size);
		lo = 0;
		hi = (*obj)->nsyms;
		while (lo < hi) {
			rt_size mid = lo + (hi - lo) / 2;

			if ((*obj)->syms[mid].offset <= fileoff)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo && (!(*obj)->syms[lo - 1].size ||
			   fileoff < (*obj)->syms[lo - 1].offset + (*obj)->syms[lo - 1].size)) {
			*sym = &(*obj)->syms[lo - 1];
			*off = fileoff - (*sym)->offset;
		}
	} else if (user) {
		char *p = d_path(&vma->vm_file->f_path, path, (int)size);

		if (IS_ERR(p))
			path[0] = 0;
		else
			memmove(path, p, strlen(p) + 1);
	}
out:
	mmap_read_unlock(mm);
}

/*
 * A user file's global or static variable in the current process: where
 * the file's first page is mapped (the mapping at file offset 0, which
 * the dynamic linker or exec always makes), plus its distance from there;
 * .bss beyond the file's end is in the anonymous mapping that follows,
 * at the same distance. The memory map's lock is only tried: a thread
 * changing the map at that moment makes the read fail, and says so.
 */
unsigned long rt_ustatic_addr(struct rt_context *c, const struct rt_static *st, const char *what,
			      const char *loc)
{
	const struct rt_uobject *obj = &rt_script.uobjects[st->uobject - 1];
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	unsigned long addr = 0;
	void *inode = READ_ONCE(obj->inode);

	if (!mm || (current->flags & PF_KTHREAD)) {
		rt_failf(c, loc, NULL, "%s: a variable of %s, read where no process runs", what,
			 obj->path);
		return 0;
	}
	if (!inode || !mmap_read_trylock(mm)) {
		rt_failf(c, loc, NULL, "%s: %s", what,
			 inode ? "the process's memory map was being changed (a thread mapping or unmapping memory); try again"
			       : "its file is not there");
		return 0;
	}
	{
		VMA_ITERATOR(vmi, mm, 0);

		for_each_vma(vmi, vma)
			if (vma->vm_file && !vma->vm_pgoff && file_inode(vma->vm_file) == inode) {
				addr = vma->vm_start + st->uoffset;
				break;
			}
	}
	mmap_read_unlock(mm);
	if (!addr)
		rt_failf(c, loc, NULL, "%s: %s is not mapped in process %d (%s)", what, obj->path,
			 task_tgid_nr(current), current->comm);
	return addr;
}

enum rt_uaddr_text { RT_USYMNAME, RT_USYMDATA, RT_UMODNAME };

/* usymname, usymdata or umodname of addr into buf; an address in no
 * probed file's symbol is given in hex (umodname: its file, or ""). */
static void rt_uaddr_text(struct rt_context *c, char *buf, rt_size size, unsigned long addr,
			  enum rt_uaddr_text what)
{
	const struct rt_uobject *obj;
	const struct rt_usym *sym;
	rt_size off;

	rt_uaddr_lookup(addr, buf, size, c->regs && user_mode(c->regs), &obj, &sym, &off, NULL);
	if (what == RT_UMODNAME)
		return;
	if (!sym)
		snprintf(buf, size, "0x%lx", addr);
	else if (what == RT_USYMNAME)
		strscpy(buf, obj->names + sym->name, size);
	else
		snprintf(buf, size, "%s+0x%lx/0x%lx [%s]", obj->names + sym->name, (unsigned long)off,
			 (unsigned long)sym->size, obj->path);
}

void rt_usymname(struct rt_context *c, char *buf, rt_size size, rt_long addr)
{
	rt_uaddr_text(c, buf, size, (unsigned long)addr, RT_USYMNAME);
}

void rt_usymdata(struct rt_context *c, char *buf, rt_size size, rt_long addr)
{
	rt_uaddr_text(c, buf, size, (unsigned long)addr, RT_USYMDATA);
}

void rt_umodname(struct rt_context *c, char *buf, rt_size size, rt_long addr)
{
	rt_uaddr_text(c, buf, size, (unsigned long)addr, RT_UMODNAME);
}

/* umodaddr(addr): addr as an offset from where its file is mapped in the
 * current process (the file's first byte; one of the script's files or
 * any other). */
rt_long rt_umodaddr(struct rt_context *c, rt_long addr, const char *what, const char *loc)
{
	const struct rt_uobject *obj;
	const struct rt_usym *sym;
	unsigned long base = 0;
	char path[8];
	rt_size off;

	rt_uaddr_lookup((unsigned long)addr, path, sizeof(path), false, &obj, &sym, &off, &base);
	if (!base) {
		rt_failf(c, loc, NULL, "%s: no file is mapped at 0x%llx in process %d (or its memory map was being changed)",
			 what, (unsigned long long)addr, task_tgid_nr(current));
		return 0;
	}
	return addr - (rt_long)base;
}

/* umodbuildid(addr): the build-id of the script's file mapped at addr. */
void rt_umodbuildid(struct rt_context *c, char *buf, rt_size size, rt_long addr,
		    const char *what, const char *loc)
{
	const struct rt_uobject *obj;
	const struct rt_usym *sym;
	rt_size off;

	rt_uaddr_lookup((unsigned long)addr, buf, size, false, &obj, &sym, &off, NULL);
	buf[0] = 0;
	if (obj && obj->build_id)
		strscpy(buf, obj->build_id, size);
	else
		rt_failf(c, loc, NULL, "%s: 0x%llx is in none of the files the script probes, or in one without a build-id",
			 what, (unsigned long long)addr);
}

#if RT_UPROBES

struct rt_uplace {
	const struct rt_probe *p;
	struct uprobe_consumer uc;
	struct path path;	/* holds the inode and its mount while placed */
	struct inode *inode;
	void *handle;		/* the kernel's uprobe (6.12 and later) */
	bool placed;
};

/* One call of a .return whose body needs entry values. */
struct rt_ucall {
	pid_t tid;		/* 0: free */
	unsigned long sp;	/* the stack pointer at entry (at the return address) */
	const struct rt_probe *p;
	u64 stamp;		/* when taken: the oldest is reused when all are */
	char data[];
};

static struct rt_uplace *rt_uplaces; /* by probe index */
static char *rt_ucalls;
static size_t rt_ucall_size, rt_nucalls;
static u64 rt_ucall_clock;
static DEFINE_RAW_SPINLOCK(rt_ucall_lock);
static atomic64_t rt_ureturns_missed;

static struct rt_ucall *rt_ucall_at(size_t i)
{
	return (struct rt_ucall *)(rt_ucalls + i * rt_ucall_size);
}

/* A slot for this call: a free one, else this thread's whose frame is
 * gone (a stack pointer at or below ours), else the oldest. */
static struct rt_ucall *rt_ucall_take(const struct rt_probe *p, unsigned long sp)
{
	struct rt_ucall *best = NULL, *u;
	pid_t tid = task_pid_nr(current);
	unsigned long flags;
	size_t i;

	raw_spin_lock_irqsave(&rt_ucall_lock, flags);
	for (i = 0; i < rt_nucalls; i++) {
		u = rt_ucall_at(i);
		if (!u->tid || (u->tid == tid && u->sp <= sp)) {
			best = u;
			break;
		}
		if (!best || u->stamp < best->stamp)
			best = u;
	}
	if (best) {
		if (best->tid && (best->tid != tid || best->sp > sp))
			atomic64_inc(&rt_ureturns_missed);
		best->tid = tid;
		best->sp = sp;
		best->p = p;
		best->stamp = ++rt_ucall_clock;
	}
	raw_spin_unlock_irqrestore(&rt_ucall_lock, flags);
	return best;
}

static struct rt_ucall *rt_ucall_find(const struct rt_probe *p, unsigned long sp)
{
	pid_t tid = task_pid_nr(current);
	unsigned long flags;
	struct rt_ucall *found = NULL;
	size_t i;

	raw_spin_lock_irqsave(&rt_ucall_lock, flags);
	for (i = 0; i < rt_nucalls && !found; i++) {
		struct rt_ucall *u = rt_ucall_at(i);

		if (u->tid == tid && u->sp == sp && u->p == p)
			found = u;
	}
	raw_spin_unlock_irqrestore(&rt_ucall_lock, flags);
	return found;
}

static void rt_ucall_free(struct rt_ucall *u)
{
	WRITE_ONCE(u->tid, 0);
}

/*
 * A plain uprobe: its own callback, so the hot path carries nothing of
 * the .return entry part's bookkeeping, and one for each case of the
 * -c/-x filter, which is fixed before probes are placed. Uprobe handlers
 * run where they may sleep (the kernel calls them under a sleeping lock,
 * or sleepable RCU): interrupts are on.
 */
static __always_inline int rt_uprobe_run(struct uprobe_consumer *uc, struct pt_regs *regs,
					 bool filtered)
{
	const struct rt_probe *p = container_of(uc, struct rt_uplace, uc)->p;

	if (!filtered || rt_task_in_target(current))
		rt_run_hit_in(p, p->handler, regs, NULL, true, false);
	return 0;
}

static notrace RT_UPROBE_HANDLER(rt_uprobe_hit)
{
	return rt_uprobe_run(uc, regs, false);
}

static notrace RT_UPROBE_HANDLER(rt_uprobe_hit_filtered)
{
	return rt_uprobe_run(uc, regs, true);
}

/* A .return's entry part: what the return will need, saved per call. */
static notrace RT_UPROBE_HANDLER(rt_uprobe_entry_hit)
{
	struct rt_uplace *up = container_of(uc, struct rt_uplace, uc);
	const struct rt_probe *p = up->p;
	struct rt_ucall *call;

	if (!rt_is_target(current))
		return 0;
	call = rt_ucall_take(p, regs->sp);
	if (!call) {
		atomic64_inc(&rt_ureturns_missed);
		return 0;
	}
	if (rt_run_hit_in(p, p->entry, regs, call->data, true, false))
		rt_ucall_free(call);
	return 0;
}

static notrace RT_URETPROBE_HANDLER(rt_uretprobe_hit)
{
	struct rt_uplace *up = container_of(uc, struct rt_uplace, uc);
	const struct rt_probe *p = up->p;
	struct rt_ucall *call;

	if (!rt_is_target(current))
		return 0;
	if (!p->entry) {
		rt_run_hit_in(p, p->handler, regs, NULL, true, false);
		return 0;
	}
	/* The return popped the return address: the entry's sp is 8 below.
	 * No call: its entry part did not run (the script was stopping, or
	 * the hit was skipped or failed, which was counted and said then),
	 * or its slot was taken by a newer call (counted then). */
	call = rt_ucall_find(p, regs->sp - 8);
	if (!call)
		return 0;
	rt_run_hit_in(p, p->handler, regs, call->data, true, false);
	rt_ucall_free(call);
	return 0;
}

static const char *rt_uprobe_errno_text(int rc)
{
	switch (rc) {
	case -ENOENT:
		return "the file is not on this machine";
	case -EINVAL:
		return "the offset is past the file's end or not where an instruction can be probed, or the kernel would not count the marker's semaphore there";
	case -ENOTSUPP:
	case -EOPNOTSUPP:
		return "the instruction there cannot be probed";
	case -EACCES:
		return "not a regular file";
	}
	return "registration failed";
}

/*
 * The GNU build-id of the ELF file at path, as hex into hex (at least 129
 * bytes): from its program headers' notes, read with kernel_read. False
 * if it has none or cannot be read. The file was looked up once and is
 * a regular file (a FIFO's open waits for a writer, a device's may do
 * anything), and it is opened without blocking, from that lookup, so
 * what is read is what the probes go on.
 */
static bool rt_file_build_id(const struct path *path, char *hex)
{
	struct file *f = dentry_open(path, O_RDONLY | O_NONBLOCK, current_cred());
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	char *buf = NULL;
	bool found = false;
	loff_t pos = 0;
	int i;

	if (IS_ERR(f))
		return false;
	if (!S_ISREG(file_inode(f)->i_mode) ||
	    kernel_read(f, &eh, sizeof(eh), &pos) != sizeof(eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_phentsize != sizeof(ph) || eh.e_phnum > 64)
		goto out;
	buf = kmalloc(4096, GFP_KERNEL);
	for (i = 0; buf && i < eh.e_phnum && !found; i++) {
		size_t off = 0, len;

		pos = eh.e_phoff + (loff_t)i * sizeof(ph);
		if (kernel_read(f, &ph, sizeof(ph), &pos) != sizeof(ph) || ph.p_type != PT_NOTE)
			continue;
		pos = ph.p_offset;
		len = min_t(size_t, ph.p_filesz, 4096);
		if (kernel_read(f, buf, len, &pos) != (ssize_t)len)
			continue;
		while (off + 12 <= len && !found) {
			const u32 *w = (const u32 *)(buf + off);
			size_t name = ALIGN(w[0], 4), desc = ALIGN(w[1], 4), k;

			if (off + 12 + name + desc > len)
				break;
			if (w[2] == 3 /* NT_GNU_BUILD_ID */ && w[0] == 4 && !memcmp(buf + off + 12, "GNU", 4) &&
			    w[1] >= 8 && w[1] <= 64) {
				for (k = 0; k < w[1]; k++)
					snprintf(hex + 2 * k, 3, "%02x", (unsigned char)buf[off + 16 + k]);
				found = true;
			}
			off += 12 + name + desc;
		}
	}
out:
	kfree(buf);
	fput(f);
	return found;
}

/* Is the file the probes go on (path) the build the script was made for?
 * A probe at a file offset of another build could land inside an
 * instruction. */
static bool rt_same_build(const struct rt_probe *p, const struct path *path, const char **why)
{
	static char have[129];

	if (!p->module_build_id)
		return true;
	if (!rt_file_build_id(path, have))
		strscpy(have, "(none found)", sizeof(have));
	if (!strcmp(have, p->module_build_id))
		return true;
	rt_message("error", "%s here has build-id %s, not %s, the build the script was made for",
		   p->symbol, have, p->module_build_id);
	*why = "another build of the file than the one the script was made for";
	return false;
}

/* Place probe i (RT_UPROBE or RT_URETPROBE); 0 or a negative errno, with
 * the reason in *why. */
int rt_uprobe_place(int i, const char **why)
{
	struct rt_uplace *up = &rt_uplaces[i];
	const struct rt_probe *p = &rt_script.probes[i];
	int rc;

	up->p = p;
	rc = kern_path(p->symbol, LOOKUP_FOLLOW, &up->path);
	if (rc) {
		*why = rt_uprobe_errno_text(rc);
		return rc;
	}
	/* On overlayfs, the uprobe belongs on the file underneath. */
	up->inode = d_real_inode(up->path.dentry);
	if (!S_ISREG(up->inode->i_mode)) {
		path_put(&up->path);
		*why = rt_uprobe_errno_text(-EACCES);
		return -EACCES;
	}
	/* Each file once: probes on one file follow each other (and a file
	 * put in its place meanwhile is checked again). */
	if (i == 0 || !rt_uplaces[i - 1].placed || rt_uplaces[i - 1].inode != up->inode ||
	    strcmp(rt_script.probes[i - 1].symbol ?: "", p->symbol)) {
		if (!rt_same_build(p, &up->path, why)) {
			path_put(&up->path);
			return -ESTALE;
		}
	}
	if (p->kind == RT_UPROBE)
		up->uc.handler = rt_run.target ? rt_uprobe_hit_filtered : rt_uprobe_hit;
	else if (p->entry)
		up->uc.handler = rt_uprobe_entry_hit;
	if (p->kind == RT_URETPROBE)
		up->uc.ret_handler = rt_uretprobe_hit;
	rc = rt_uprobe_register(up->inode, (loff_t)p->file_offset, (loff_t)p->sem_offset, &up->uc,
				&up->handle);
	if (rc) {
		path_put(&up->path);
		memset(&up->uc, 0, sizeof(up->uc));
		*why = rt_uprobe_errno_text(rc);
		return rc;
	}
	up->placed = true;
	return 0;
}

/* The tables, before any probe is placed: sizes come from the script. */
int rt_uprobes_prepare(void)
{
	size_t need = 0;
	int i, n = 0;

	for (i = 0; i < rt_script.nprobes; i++) {
		const struct rt_probe *p = &rt_script.probes[i];

		if (p->kind != RT_UPROBE && p->kind != RT_URETPROBE)
			continue;
		n++;
		if (p->kind == RT_URETPROBE && p->entry && p->entry_size > need)
			need = p->entry_size;
	}
	/* The files of -d (usymname() from a timer) too, uprobes or not. */
	rt_uobjects_start();
	if (!n)
		return 0;
	rt_uplaces = kvcalloc(rt_script.nprobes, sizeof(*rt_uplaces), GFP_KERNEL);
	if (!rt_uplaces)
		return -ENOMEM;
	if (need) {
		rt_ucall_size = ALIGN(sizeof(struct rt_ucall) + need, 8);
		rt_nucalls = rt_script.maxactive > 0 ? (size_t)rt_script.maxactive
						     : max_t(size_t, 256, 64 * num_possible_cpus());
		rt_ucalls = kvcalloc(rt_nucalls, rt_ucall_size, GFP_KERNEL);
		if (!rt_ucalls) {
			kvfree(rt_uplaces);
			rt_uplaces = NULL;
			return -ENOMEM;
		}
	}
	return 0;
}

/* Remove every placed uprobe; when this returns none of their handlers runs. */
void rt_uprobes_stop(void)
{
	int i, removed = 0;
	s64 missed;

	if (!rt_uplaces) {
		rt_uobjects_stop();
		return;
	}
	for (i = 0; i < rt_script.nprobes; i++) {
		struct rt_uplace *up = &rt_uplaces[i];

		if (!up->placed)
			continue;
		rt_uprobe_unregister(up->inode, (loff_t)up->p->file_offset, &up->uc, up->handle);
		removed++;
	}
	if (removed)
		rt_uprobe_unregister_done();
	for (i = 0; i < rt_script.nprobes; i++) {
		struct rt_uplace *up = &rt_uplaces[i];

		if (up->placed)
			path_put(&up->path);
		up->placed = false;
	}
	missed = atomic64_read(&rt_ureturns_missed);
	if (missed)
		rt_message("warning",
			   "%lld returns of user functions were missed (more calls in flight than MAXACTIVE = %zu, or a call left by longjmp)",
			   (long long)missed, rt_nucalls);
	kvfree(rt_uplaces);
	rt_uplaces = NULL;
	kvfree(rt_ucalls);
	rt_ucalls = NULL;
	rt_uobjects_stop();
}

#else

int rt_uprobes_prepare(void)
{
	rt_uobjects_start();
	return 0;
}

int rt_uprobe_place(int i, const char **why)
{
	*why = "this kernel has no uprobes (CONFIG_UPROBES)";
	return -EOPNOTSUPP;
}

void rt_uprobes_stop(void)
{
	rt_uobjects_stop();
}

#endif
