// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * User stacks: a hit in user context (a uprobe, or a kernel probe, timer
 * or sample serving a user task) copies the task's user registers and the
 * top of its user stack into the output stream as a sample record
 * (ustack-records.h); staprun unwinds it later with libdwfl, from the CFI
 * of the files the process had mapped, and puts the frames where the
 * script printed the sample's token. Nothing here reads CFI or walks
 * frames: most of Debian is built without frame pointers, and unwinding
 * in the kernel would need every file's tables up front.
 *
 * So that a process that has exited still unwinds, each sample names the
 * generation of its process's mappings, and map records for it go ahead
 * of the first sample that needs them. A process's mappings are read again
 * when its exec or map count changed: at once from a hit that interrupted
 * user mode (no kernel lock of this task can then be held, and the map
 * lock is only tried), by a worker for a hit in the kernel (the sample
 * then says the generation is still to come).
 *
 * Aggregating by stack (doc/ustack.md): staprun tells the module which
 * earlier sample each sample's stack equals ("aliases"); an array whose
 * keys hold tokens is folded onto those (maps.c) before it is walked.
 */
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/proc_fs.h>
#include <linux/random.h>
#include <linux/seq_file.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/bsearch.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>
#include <linux/sched/mm.h>

#include "runtime.h"
#include "contract/ustack-records.h"

static atomic64_t rt_us_next_id;

/* The mappings last sent for a process (a small table, by tgid): which
 * process (a pid is reused), which program it runs, how many mappings it
 * had then; sending: another CPU is sending them. */
struct rt_us_proc {
	pid_t tgid;
	int map_count;
	u64 exec_id, start_time;
	u32 gen;
	bool sending;
	bool pending;   /* the worker sends gen (a hit in the kernel asked) */
};
#define RT_US_PROCS 1024
/* A process with more mappings than this is not walked from a hit. */
#define RT_US_MAX_VMAS 8192
#define RT_US_MAX_EXEC 1024
u64 rt_us_cookie;
static struct rt_us_proc rt_us_procs[RT_US_PROCS];
static DEFINE_RAW_SPINLOCK(rt_us_procs_lock);
static atomic_t rt_us_next_gen;

static struct rt_us_proc *rt_us_slot(pid_t tgid)
{
	return &rt_us_procs[hash_32((u32)tgid, ilog2(RT_US_PROCS))];
}

/* The user registers of the current task, or NULL where it has none
 * worth a stack (a kernel thread; begin and end probes, which run in
 * staprun). */
static struct pt_regs *rt_us_regs(struct rt_cpu *cpu)
{
	struct pt_regs *regs = cpu->c.regs;

	if (cpu->process_context || !current->mm || (current->flags & PF_KTHREAD))
		return NULL;
	if (regs && user_mode(regs))
		return regs;
	return task_pt_regs(current);
}

/* The record of an executable file mapping, its path at *path (in buf,
 * RT_SYM_LEN bytes); false for a mapping that is not one. */
static bool rt_us_map_of(struct vm_area_struct *vma, struct rt_us_map *m, char *buf, char **path)
{
	struct inode *inode;
	char *p;

	if (!(vma->vm_flags & VM_EXEC) || !vma->vm_file)
		return false;
	inode = file_inode(vma->vm_file);
	p = d_path(&vma->vm_file->f_path, buf, RT_SYM_LEN);
	if (IS_ERR(p))
		return false;
	m->start = vma->vm_start;
	m->end = vma->vm_end;
	m->offset = (u64)vma->vm_pgoff << PAGE_SHIFT;
	m->dev = new_encode_dev(inode->i_sb->s_dev);
	m->ino = inode->i_ino;
	m->size = i_size_read(inode);
	m->path_len = strlen(p);
	*path = p;
	return true;
}

static bool rt_us_write_map(struct rt_cpu *cpu, const struct rt_us_map *m, const char *path)
{
	struct {
		struct rt_us_header h;
		struct rt_us_map m;
	} head = {
		.h = { .mark = RT_US_MARK, .kind = RT_US_MAP, .len = sizeof(*m) + m->path_len,
		       .cookie = rt_us_cookie },
		.m = *m,
	};

	return rt_out_record(cpu, &head, sizeof(head), path, m->path_len);
}

/* The record that ends a generation (and, first too, says a process has
 * no file mapped executable): staprun knows it has them all. */
static bool rt_us_write_last(struct rt_cpu *cpu, pid_t tgid, u32 gen, u32 flags)
{
	struct rt_us_map m = { .tgid = tgid, .gen = gen, .flags = flags | RT_US_LAST };

	return rt_us_write_map(cpu, &m, NULL);
}

/*
 * Each executable file mapping of mm as its record, given to take(ctx,
 * record, path) until it returns false, with at most RT_US_MAX_VMAS
 * mappings looked at and RT_US_MAX_EXEC taken (a process may have tens of
 * thousands). The map lock is only tried: -1 when it was taken; else 0
 * when every mapping came, 1 when cut short. *flags: RT_US_FIRST when no
 * record was taken (the last record is then the first too).
 */
static int rt_us_walk_maps(struct mm_struct *mm, pid_t tgid, u32 gen, char *pathbuf,
			   bool (*take)(void *ctx, const struct rt_us_map *m, const char *path),
			   void *ctx, u32 *flags)
{
	struct vm_area_struct *vma;
	struct rt_us_map m = { .tgid = tgid, .gen = gen, .flags = RT_US_FIRST };
	int vmas = 0, taken = 0, cut = 0;
	char *path;
	VMA_ITERATOR(vmi, mm, 0);

	if (!mmap_read_trylock(mm))
		return -1;
	for_each_vma(vmi, vma) {
		if (++vmas > RT_US_MAX_VMAS || taken >= RT_US_MAX_EXEC) {
			cut = 1;
			break;
		}
		if (!rt_us_map_of(vma, &m, pathbuf, &path))
			continue;
		if (!take(ctx, &m, path)) {
			cut = 1;
			break;
		}
		m.flags = 0;
		taken++;
	}
	mmap_read_unlock(mm);
	*flags = m.flags;
	return cut;
}

static bool rt_us_take_write(void *cpu, const struct rt_us_map *m, const char *path)
{
	return rt_us_write_map(cpu, m, path);
}

/* Send one map record per executable file mapping; false when the map
 * lock was taken or a record could not be written. */
static bool rt_us_send_maps(struct rt_cpu *cpu, struct mm_struct *mm, pid_t tgid, u32 gen)
{
	u32 flags;

	return rt_us_walk_maps(mm, tgid, gen, cpu->sym, rt_us_take_write, cpu, &flags) == 0 &&
	       rt_us_write_last(cpu, tgid, gen, flags);
}

/*
 * A hit in the kernel (a kprobe, a tracepoint) may interrupt code holding
 * a lock d_path() or the map lock needs, so it does not read mappings: it
 * takes a reference to the process's address space (which keeps the
 * mappings of a process that exits meanwhile), queues it, and names the
 * generation to come (RT_US_PENDING). A worker reads the mappings in
 * process context and writes them, the whole generation at once, holding
 * its CPU's output as a hit does; staprun holds a pending sample and the
 * output after it until that generation's last record came.
 */
#define RT_US_REQUESTS 64
struct rt_us_request {
	struct mm_struct *mm;   /* a reference held (mmget) */
	pid_t tgid;
	u32 gen;
	unsigned long since;    /* jiffies when queued */
};
static struct rt_us_request rt_us_requests[RT_US_REQUESTS];
static int rt_us_req_first, rt_us_nreq;        /* under rt_us_procs_lock */
static bool rt_us_stopped;
/* The worker's: one generation's records, read before they are written. */
#define RT_US_COLLECT_BYTES (256 << 10)
static char *rt_us_collect;
/* What rt_us_collect holds: the generation, its bytes there and in the output. */
static u32 rt_us_collected_gen;
static size_t rt_us_collected_used, rt_us_collected_space;
/* A request not served within this (the map lock held, the output full or
 * busy) is given up: its samples unwind without it. */
#define RT_US_REQUEST_WAIT HZ
static void rt_us_work_fn(struct work_struct *w);
static DECLARE_DELAYED_WORK(rt_us_work, rt_us_work_fn);

/* Queue the current process's mappings for the worker, under
 * rt_us_procs_lock; its generation, or 0 when the queue is full. */
static u32 rt_us_request(struct rt_us_proc *slot, struct mm_struct *mm, pid_t tgid, u64 exec_id,
			 u64 start, int map_count)
{
	struct rt_us_request *rq;
	u32 gen;

	if (rt_us_stopped || !rt_us_collect || rt_us_nreq == RT_US_REQUESTS)
		return 0;
	gen = (u32)atomic_inc_return(&rt_us_next_gen);
	mmget(mm);
	rq = &rt_us_requests[(rt_us_req_first + rt_us_nreq++) % RT_US_REQUESTS];
	*rq = (struct rt_us_request){ .mm = mm, .tgid = tgid, .gen = gen, .since = jiffies };
	*slot = (struct rt_us_proc){ .tgid = tgid, .exec_id = exec_id, .start_time = start,
				     .map_count = map_count, .gen = gen, .sending = true,
				     .pending = true };
	return gen;
}

/* Records read into rt_us_collect: the bytes they take there and in the
 * output (the last record's room counted). */
struct rt_us_collecting {
	size_t used, space, max;
};

static bool rt_us_take_collect(void *ctx, const struct rt_us_map *m, const char *path)
{
	struct rt_us_collecting *c = ctx;
	size_t len = sizeof(*m) + m->path_len;
	size_t need = rt_out_space(sizeof(struct rt_us_header) + len);

	/* More than fits: the files mapped first (the program and its
	 * loader come first). */
	if (c->used + len > RT_US_COLLECT_BYTES || c->space + need > c->max)
		return false;
	memcpy(rt_us_collect + c->used, m, sizeof(*m));
	memcpy(rt_us_collect + c->used + sizeof(*m), path, m->path_len);
	c->used += len;
	c->space += need;
	return true;
}

/* Read mm's executable mappings into rt_us_collect as records; the bytes
 * they take there and in the output. false when the map lock was taken
 * (a task may hold it long). */
static bool rt_us_collect_maps(struct mm_struct *mm, pid_t tgid, u32 gen, char *pathbuf,
			       size_t *used, size_t *space)
{
	struct rt_us_collecting c = {
		.space = rt_out_space(sizeof(struct rt_us_header) + sizeof(struct rt_us_map)),
		.max = min_t(size_t, RT_US_COLLECT_BYTES, rt_out_set_max()),
	};
	u32 flags;
	int cut = rt_us_walk_maps(mm, tgid, gen, pathbuf, rt_us_take_collect, &c, &flags);

	/* (Nothing taken when the lock was: an empty generation.) */
	*used = c.used;
	*space = c.space;
	return cut >= 0;
}

/* Write the collected records and the last one on this CPU, as a hit
 * would: false when the CPU's output is in use or has no room now. */
static bool rt_us_write_collected(size_t used, size_t space, pid_t tgid, u32 gen)
{
	unsigned long flags;
	struct rt_cpu *cpu;
	bool ok = false;
	size_t off = 0;

	local_irq_save(flags);
	cpu = this_cpu_ptr(rt_run.cpus);
	if (!cpu->busy && !cpu->process_context && rt_out_fits(cpu, space)) {
		cpu->busy = 1;
		ok = true;
		while (ok && off < used) {
			struct rt_us_map m;

			memcpy(&m, rt_us_collect + off, sizeof(m));
			ok = rt_us_write_map(cpu, &m, rt_us_collect + off + sizeof(m));
			off += sizeof(m) + m.path_len;
		}
		ok = ok && rt_us_write_last(cpu, tgid, gen, used ? 0 : RT_US_FIRST);
		barrier();
		cpu->busy = 0;
	}
	local_irq_restore(flags);
	return ok;
}

/* Serve the oldest request: false when there is none, or when it must
 * wait (its map lock taken, the output busy or full) and final is false. */
static bool rt_us_serve(bool final)
{
	struct rt_us_request rq;
	struct rt_us_proc *slot;
	unsigned long flags;
	bool sent, give_up;

	raw_spin_lock_irqsave(&rt_us_procs_lock, flags);
	if (!rt_us_nreq) {
		raw_spin_unlock_irqrestore(&rt_us_procs_lock, flags);
		return false;
	}
	rq = rt_us_requests[rt_us_req_first];
	raw_spin_unlock_irqrestore(&rt_us_procs_lock, flags);

	give_up = final || time_after(jiffies, rq.since + RT_US_REQUEST_WAIT);
	/* Read once, written when the output has room. cpu->sym is the
	 * hits' (and the CPU may change): the path buffer is our own, at the
	 * end of rt_us_collect. */
	if (rt_us_collected_gen != rq.gen) {
		if (!rt_us_collect_maps(rq.mm, rq.tgid, rq.gen, rt_us_collect + RT_US_COLLECT_BYTES,
					&rt_us_collected_used, &rt_us_collected_space) &&
		    !give_up)
			return false;
		/* Given up on the lock: an empty generation, so that staprun
		 * stops waiting for it. */
		rt_us_collected_gen = rq.gen;
	}
	sent = rt_us_write_collected(rt_us_collected_used, rt_us_collected_space, rq.tgid, rq.gen);
	if (!sent && !give_up)
		return false;
	rt_us_collected_gen = 0;

	raw_spin_lock_irqsave(&rt_us_procs_lock, flags);
	rt_us_req_first = (rt_us_req_first + 1) % RT_US_REQUESTS;
	rt_us_nreq--;
	slot = rt_us_slot(rq.tgid);
	if (slot->tgid == rq.tgid && slot->gen == rq.gen && slot->pending) {
		slot->sending = slot->pending = false;
		/* Not sent: the next hit asks again. */
		if (!sent) {
			slot->gen = 0;
			slot->map_count = -1;
		}
	}
	raw_spin_unlock_irqrestore(&rt_us_procs_lock, flags);
	mmput(rq.mm);
	return true;
}

static void rt_us_work_fn(struct work_struct *w)
{
	int served = 0;

	if (READ_ONCE(rt_us_stopped))
		return;
	while (rt_us_serve(false)) {
		/* A burst of new processes: let others run between them. */
		if (++served % 8 == 0)
			cond_resched();
	}
	/* One left waiting for room or for its CPU: try again soon. */
	if (READ_ONCE(rt_us_nreq) && !READ_ONCE(rt_us_stopped))
		queue_delayed_work(system_unbound_wq, &rt_us_work, msecs_to_jiffies(10) ?: 1);
}

bool rt_ustack_pending(void)
{
	return READ_ONCE(rt_us_nreq) && !READ_ONCE(rt_us_stopped);
}

void rt_ustack_tick(void)
{
	if (READ_ONCE(rt_us_nreq) && !READ_ONCE(rt_us_stopped))
		queue_delayed_work(system_unbound_wq, &rt_us_work, 0);
}

void rt_ustack_stop(void)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&rt_us_procs_lock, flags);
	rt_us_stopped = true;
	raw_spin_unlock_irqrestore(&rt_us_procs_lock, flags);
	cancel_delayed_work_sync(&rt_us_work);
	while (rt_us_serve(true))
		cond_resched();
}

/* The generation of the current process's mappings a sample names,
 * sending them first when they changed and may be read here; 0: none.
 * *pending: the worker will send them. */
static u32 rt_us_maps(struct rt_cpu *cpu, bool in_user, u32 *pending)
{
	struct mm_struct *mm = current->mm;
	pid_t tgid = task_tgid_nr(current);
	u64 exec_id = current->self_exec_id, start = current->group_leader->start_time;
	int map_count = READ_ONCE(mm->map_count);
	struct rt_us_proc *slot = rt_us_slot(tgid);
	unsigned long flags;
	bool ours, sent;
	u32 gen = 0;

	if (in_nmi() || !raw_spin_trylock_irqsave(&rt_us_procs_lock, flags))
		return 0;
	ours = slot->tgid == tgid && slot->exec_id == exec_id && slot->start_time == start;
	if (ours)
		gen = slot->gen;
	/* Unchanged, or being sent by another CPU or the worker. */
	if ((ours && slot->map_count == map_count) || slot->sending) {
		if (ours && slot->pending)
			*pending = RT_US_PENDING;
		raw_spin_unlock_irqrestore(&rt_us_procs_lock, flags);
		return gen;
	}
	if (!in_user) {
		u32 queued = rt_us_request(slot, mm, tgid, exec_id, start, map_count);

		if (queued) {
			gen = queued;
			*pending = RT_US_PENDING;
		}
		raw_spin_unlock_irqrestore(&rt_us_procs_lock, flags);
		return gen;
	}
	gen = (u32)atomic_inc_return(&rt_us_next_gen);
	*slot = (struct rt_us_proc){ .tgid = tgid, .exec_id = exec_id, .start_time = start,
				     .map_count = map_count, .sending = true };
	raw_spin_unlock_irqrestore(&rt_us_procs_lock, flags);
	sent = rt_us_send_maps(cpu, mm, tgid, gen);
	raw_spin_lock_irqsave(&rt_us_procs_lock, flags);
	slot->sending = false;
	/* Not sent: the next hit tries again. */
	slot->gen = sent ? gen : 0;
	slot->map_count = sent ? map_count : -1;
	raw_spin_unlock_irqrestore(&rt_us_procs_lock, flags);
	return sent ? gen : 0;
}

/* Copy the user stack from sp up, a page at a time, stopping at the first
 * page that is not present. */
static u32 rt_us_copy(char *dst, unsigned long sp, u32 max, u32 *flags)
{
	u32 done = 0;

	while (done < max) {
		unsigned long addr = sp + done;
		u32 chunk = min_t(u32, max - done, PAGE_SIZE - offset_in_page(addr));

		if (copy_from_user_nofault(dst + done, (const void __user *)addr, chunk)) {
			*flags |= RT_US_CUT;
			break;
		}
		done += chunk;
	}
	return done;
}

/* Take a sample of the current task's user stack (addr_only: only name
 * addr): its id, or 0 when there is no user context or the record was
 * dropped. */
static u64 rt_us_sample_of(struct rt_context *c, bool addr_only, unsigned long addr)
{
	struct rt_cpu *cpu = rt_cpu_of(c);
	struct pt_regs *regs = rt_us_regs(cpu);
	struct {
		struct rt_us_header h;
		struct rt_us_sample s;
	} head;
	struct rt_us_sample *s = &head.s;

	/* 32-bit tasks have other registers: staprun unwinds x86-64 only. */
	if (!regs || !cpu->ustack || !user_64bit_mode(regs))
		return 0;
	memset(&head, 0, sizeof(head));
	s->gen = rt_us_maps(cpu, regs == cpu->c.regs, &s->flags);
	s->id = (u64)atomic64_inc_return(&rt_us_next_id);
	s->tgid = task_tgid_nr(current);
	s->tid = task_pid_nr(current);
	s->regs[0] = regs->ax;
	s->regs[1] = regs->dx;
	s->regs[2] = regs->cx;
	s->regs[3] = regs->bx;
	s->regs[4] = regs->si;
	s->regs[5] = regs->di;
	s->regs[6] = regs->bp;
	s->regs[7] = regs->sp;
	s->regs[8] = regs->r8;
	s->regs[9] = regs->r9;
	s->regs[10] = regs->r10;
	s->regs[11] = regs->r11;
	s->regs[12] = regs->r12;
	s->regs[13] = regs->r13;
	s->regs[14] = regs->r14;
	s->regs[15] = regs->r15;
	s->regs[16] = regs->ip;
	s->stack_max = (u32)rt_script.maxustack;
	if (addr_only) {
		s->regs[16] = addr;
		s->flags |= RT_US_ADDR;
	} else {
		/* No more than the output buffer has room for. */
		u32 room = (u32)min_t(size_t, rt_out_room(cpu), U32_MAX);

		if (room < sizeof(head))
			return 0;
		s->stack_len = rt_us_copy(cpu->ustack, regs->sp,
					  min_t(u32, s->stack_max, room - sizeof(head)), &s->flags);
		rt_work(c, s->stack_len);
	}
	head.h = (struct rt_us_header){ .mark = RT_US_MARK, .kind = RT_US_SAMPLE,
					.len = sizeof(*s) + s->stack_len, .cookie = rt_us_cookie };
	if (!rt_out_record(cpu, &head, sizeof(head), cpu->ustack, s->stack_len))
		return 0;
	return s->id;
}

static u64 rt_us_sample(struct rt_context *c)
{
	return rt_us_sample_of(c, false, 0);
}

static void rt_us_token(char *buf, char kind, u64 id, int skip, int count)
{
	/* The 22 bytes of ustack-records.h; id 0 names no sample (staprun
	 * prints nothing for it). */
	snprintf(buf, RT_US_TOKEN_LEN + 1, "%c%c%016llx%02x%02x", RT_US_MARK, kind, id,
		 clamp(skip, 0, 255), clamp(count, 0, 255));
}

/* n hex digits at s, or -1. */
static s64 rt_us_hex(const char *s, int n)
{
	u64 v = 0;

	while (n--) {
		int d = hex_to_bin(*s++);

		if (d < 0)
			return -1;
		v = v << 4 | (u64)d;
	}
	return (s64)v;
}

/* Parse a token at the start of s (the rest of s is ignored). */
static bool rt_us_parse(const char *s, u64 *id, int *skip, int *count)
{
	s64 hi, lo, a, b;

	if (strnlen(s, RT_US_TOKEN_LEN) < RT_US_TOKEN_LEN || s[0] != RT_US_MARK)
		return false;
	hi = rt_us_hex(s + 2, 8);
	lo = rt_us_hex(s + 10, 8);
	a = rt_us_hex(s + 18, 2);
	b = rt_us_hex(s + 20, 2);
	if (hi < 0 || lo < 0 || a < 0 || b < 0)
		return false;
	*id = (u64)hi << 32 | (u64)lo;
	*skip = (int)a;
	*count = (int)b;
	return true;
}

static void rt_us_string(struct rt_context *c, char *buf, rt_size size, char kind, int skip,
			 int count)
{
	if (size <= RT_US_TOKEN_LEN) {
		buf[0] = 0;
		return;
	}
	rt_us_token(buf, kind, rt_us_sample(c), skip, count);
}

void rt_ubacktrace(struct rt_context *c, char *buf, rt_size size)
{
	rt_us_string(c, buf, size, RT_US_ADDRS, 0, 0);
}

void rt_ucallers(struct rt_context *c, char *buf, rt_size size, rt_long n)
{
	rt_us_string(c, buf, size, RT_US_ADDRS, 1, (int)clamp_t(rt_long, n, 1, 255));
}

void rt_sprint_ubacktrace(struct rt_context *c, char *buf, rt_size size)
{
	rt_us_string(c, buf, size, RT_US_BRIEF, 0, 0);
}

void rt_print_ubacktrace(struct rt_context *c)
{
	char tok[RT_US_TOKEN_LEN + 1];

	rt_us_token(tok, RT_US_LINES, rt_us_sample(c), 0, 0);
	rt_out_write_whole(rt_cpu_of(c), tok, RT_US_TOKEN_LEN);
}

void rt_print_ubacktrace_fileline(struct rt_context *c)
{
	char tok[RT_US_TOKEN_LEN + 1];

	rt_us_token(tok, RT_US_FILELINES, rt_us_sample(c), 0, 0);
	rt_out_write_whole(rt_cpu_of(c), tok, RT_US_TOKEN_LEN);
}

void rt_print_ubacktrace_brief(struct rt_context *c)
{
	char tok[RT_US_TOKEN_LEN + 1];

	rt_us_token(tok, RT_US_NAMES, rt_us_sample(c), 0, 0);
	rt_out_write_whole(rt_cpu_of(c), tok, RT_US_TOKEN_LEN);
}

/* usymfileline(addr), usymfile(addr): an address of the current process,
 * named by staprun from the process's files. */
void rt_usymfileline(struct rt_context *c, char *buf, rt_size size, rt_long addr)
{
	if (size > RT_US_TOKEN_LEN)
		rt_us_token(buf, RT_US_FILELINE, rt_us_sample_of(c, true, (unsigned long)addr), 0, 0);
	else
		buf[0] = 0;
}

void rt_usymline(struct rt_context *c, char *buf, rt_size size, rt_long addr)
{
	if (size > RT_US_TOKEN_LEN)
		rt_us_token(buf, RT_US_LINE, rt_us_sample_of(c, true, (unsigned long)addr), 0, 0);
	else
		buf[0] = 0;
}

void rt_usymfile(struct rt_context *c, char *buf, rt_size size, rt_long addr)
{
	if (size > RT_US_TOKEN_LEN)
		rt_us_token(buf, RT_US_FILE, rt_us_sample_of(c, true, (unsigned long)addr), 0, 0);
	else
		buf[0] = 0;
}

/* A ubacktrace() string in another form: its token with the kind
 * changed; a string that is no token gives "" (print: nothing). */
static bool rt_us_convert(const char *stk, char *tok, char kind)
{
	u64 id;
	int skip, count;

	if (!rt_us_parse(stk, &id, &skip, &count))
		return false;
	rt_us_token(tok, kind, id, skip, count);
	return true;
}

void rt_print_ustack(struct rt_context *c, const char *stk)
{
	char tok[RT_US_TOKEN_LEN + 1];

	if (rt_us_convert(stk, tok, RT_US_LINES))
		rt_out_write_whole(rt_cpu_of(c), tok, RT_US_TOKEN_LEN);
}

void rt_sprint_ustack(struct rt_context *c, char *buf, rt_size size, const char *stk)
{
	char tok[RT_US_TOKEN_LEN + 1];

	buf[0] = 0;
	if (size > RT_US_TOKEN_LEN && rt_us_convert(stk, tok, RT_US_BRIEF))
		strscpy(buf, tok, size);
}

void rt_sprint_ustack_folded(struct rt_context *c, char *buf, rt_size size, const char *stk)
{
	char tok[RT_US_TOKEN_LEN + 1];

	buf[0] = 0;
	if (size > RT_US_TOKEN_LEN && rt_us_convert(stk, tok, RT_US_FOLDED))
		strscpy(buf, tok, size);
}

/* --- aliases: which earlier sample each sample's stack equals --- */

/*
 * While the script runs, direct-mapped by sample id: an alias is needed
 * only until a full array holding its token is folded, so an older one
 * may give way to a newer. Before the end probes it is exact: staprun
 * reads the ids the arrays' keys name (`ustack`, after `quiesce`) and
 * writes an alias for each that has one; every array is then folded once.
 */
#define RT_US_ALIASES (1 << 16)
struct rt_us_alias {
	u64 id, canon;
};
static struct rt_us_alias *rt_us_aliases;
static atomic_t rt_us_alias_gen;
static DEFINE_MUTEX(rt_us_alias_mutex);
/* After quiesce: the ids asked for, and the aliases given for them. */
static u64 *rt_us_wanted;
static size_t rt_us_nwanted;
static struct rt_us_alias *rt_us_final;
static size_t rt_us_nfinal;
static bool rt_us_final_mode;

size_t rt_ustack_bytes(void)
{
	return (rt_script.maxustack ? RT_US_COLLECT_BYTES + RT_SYM_LEN : 0) +
	       (rt_script.ustack_keys ? RT_US_ALIASES * sizeof(struct rt_us_alias) : 0);
}

void rt_ustack_show(struct seq_file *m)
{
	if (rt_script.maxustack)
		seq_printf(m, "ustack_cookie %016llx\n", rt_us_cookie);
}

int rt_ustack_alloc(void)
{
	rt_us_cookie = (u64)get_random_u32() << 32 | get_random_u32();
	if (!rt_script.maxustack)
		return 0;
	rt_us_collect = rt_alloc_big(RT_US_COLLECT_BYTES + RT_SYM_LEN);
	if (!rt_us_collect)
		return -ENOMEM;
	if (!rt_script.ustack_keys)
		return 0;
	rt_us_aliases = rt_alloc_big(RT_US_ALIASES * sizeof(struct rt_us_alias));
	return rt_us_aliases ? 0 : -ENOMEM;
}

static void rt_us_final_free(void)
{
	kvfree(rt_us_wanted);
	kvfree(rt_us_final);
	rt_us_wanted = NULL;
	rt_us_final = NULL;
	rt_us_nwanted = rt_us_nfinal = 0;
}

void rt_ustack_free(void)
{
	rt_ustack_stop();
	rt_free_big(rt_us_collect);
	rt_us_collect = NULL;
	rt_free_big(rt_us_aliases);
	rt_us_aliases = NULL;
	rt_us_final_free();
}

u32 rt_ustack_alias_gen(void)
{
	return (u32)atomic_read(&rt_us_alias_gen);
}

static int rt_us_cmp_alias(const void *a, const void *b)
{
	u64 x = ((const struct rt_us_alias *)a)->id, y = ((const struct rt_us_alias *)b)->id;

	return x < y ? -1 : x > y;
}

static int rt_us_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* The first sample with the same stack as sample id (id itself if none). */
static u64 rt_us_canon(u64 id)
{
	struct rt_us_alias *a, key = { .id = id };
	u64 id1, id2, canon;

	if (rt_us_final_mode) {
		a = bsearch(&key, rt_us_final, rt_us_nfinal, sizeof(*a), rt_us_cmp_alias);
		return a ? a->canon : id;
	}
	if (!rt_us_aliases)
		return id;
	a = &rt_us_aliases[hash_64(id, ilog2(RT_US_ALIASES))];
	id1 = smp_load_acquire(&a->id);
	canon = READ_ONCE(a->canon);
	smp_rmb();
	id2 = READ_ONCE(a->id);
	return id1 == id && id2 == id && canon ? canon : id;
}

int rt_ustack_key_tokens(const char *s, size_t max, u64 *ids, size_t cap)
{
	size_t i;
	int n = 0;

	for (i = 0; i + RT_US_TOKEN_LEN <= max && s[i]; i++) {
		u64 id;
		int skip, count;

		if (s[i] != RT_US_MARK || !rt_us_token_kind(s[i + 1]) ||
		    !rt_us_parse(s + i, &id, &skip, &count))
			continue;
		if (ids && (size_t)n < cap)
			ids[n] = id;
		n++;
		i += RT_US_TOKEN_LEN - 1;
	}
	return n;
}

/* Rewrite the tokens in a key string to name their stack's first sample;
 * with change false, only say whether any would change. */
bool rt_ustack_fold_key(char *s, size_t max, bool change)
{
	bool any = false;
	size_t i;

	for (i = 0; i + RT_US_TOKEN_LEN <= max && s[i]; i++) {
		u64 id, canon;
		int skip, count, k;

		if (s[i] != RT_US_MARK || !rt_us_token_kind(s[i + 1]) ||
		    !rt_us_parse(s + i, &id, &skip, &count))
			continue;
		canon = rt_us_canon(id);
		if (canon != id) {
			any = true;
			if (!change)
				return true;
			/* The same width: the string keeps its length. */
			for (k = 0; k < 16; k++)
				s[i + 2 + k] = hex_asc_lo(canon >> (60 - 4 * k));
		}
		i += RT_US_TOKEN_LEN - 1;
	}
	return any;
}

/* `ustack`, read after quiesce: the sample ids the arrays' keys name
 * (u64 each, sorted, each once). */
ssize_t rt_ustack_read(char __user *ubuf, size_t count, loff_t *ppos)
{
	ssize_t rc;

	if (!rt_us_aliases || !rt_quiesced())
		return -EINVAL;
	mutex_lock(&rt_us_alias_mutex);
	if (!rt_us_wanted) {
		size_t n = rt_maps_tokens(NULL, 0), k, w;

		rt_us_wanted = kvmalloc_array(max_t(size_t, n, 1), sizeof(u64), GFP_KERNEL);
		rt_us_final = kvmalloc_array(max_t(size_t, n, 1), sizeof(*rt_us_final), GFP_KERNEL);
		if (!rt_us_wanted || !rt_us_final) {
			rt_us_final_free();
			mutex_unlock(&rt_us_alias_mutex);
			return -ENOMEM;
		}
		n = min(n, rt_maps_tokens(rt_us_wanted, n));
		sort(rt_us_wanted, n, sizeof(u64), rt_us_cmp_u64, NULL);
		for (k = 0, w = 0; k < n; k++)
			if (!w || rt_us_wanted[w - 1] != rt_us_wanted[k])
				rt_us_wanted[w++] = rt_us_wanted[k];
		rt_us_nwanted = w;
	}
	rc = simple_read_from_buffer(ubuf, count, ppos, rt_us_wanted, rt_us_nwanted * sizeof(u64));
	mutex_unlock(&rt_us_alias_mutex);
	return rc;
}

/* `ustack`: staprun writes pairs of sample ids (u64 id, u64 first). */
ssize_t rt_ustack_write(const char __user *ubuf, size_t count)
{
	size_t n = min_t(size_t, count, 4096 * sizeof(struct rt_us_alias)), i;
	struct rt_us_alias *pairs;

	if (!rt_us_aliases)
		return -EINVAL;
	n -= n % sizeof(*pairs);
	if (!n)
		return -EINVAL;
	pairs = kvmalloc(n, GFP_KERNEL);
	if (!pairs)
		return -ENOMEM;
	if (copy_from_user(pairs, ubuf, n)) {
		kvfree(pairs);
		return -EFAULT;
	}
	mutex_lock(&rt_us_alias_mutex);
	for (i = 0; i < n / sizeof(*pairs); i++) {
		struct rt_us_alias *a;

		if (!pairs[i].id || !pairs[i].canon || pairs[i].id == pairs[i].canon)
			continue;
		if (rt_us_wanted) {
			/* Kept exactly, for the ids asked for only (so at most those). */
			if (rt_us_nfinal < rt_us_nwanted &&
			    bsearch(&pairs[i].id, rt_us_wanted, rt_us_nwanted, sizeof(u64),
				    rt_us_cmp_u64))
				rt_us_final[rt_us_nfinal++] = pairs[i];
			continue;
		}
		a = &rt_us_aliases[hash_64(pairs[i].id, ilog2(RT_US_ALIASES))];
		/* Readers check id before and after reading canon. */
		WRITE_ONCE(a->id, 0);
		smp_wmb();
		WRITE_ONCE(a->canon, pairs[i].canon);
		smp_store_release(&a->id, pairs[i].id);
	}
	atomic_inc(&rt_us_alias_gen);
	mutex_unlock(&rt_us_alias_mutex);
	kvfree(pairs);
	return (ssize_t)n;
}

void rt_ustack_final_fold(void)
{
	if (!rt_us_aliases)
		return;
	mutex_lock(&rt_us_alias_mutex);
	if (rt_us_final) {
		sort(rt_us_final, rt_us_nfinal, sizeof(*rt_us_final), rt_us_cmp_alias, NULL);
		rt_us_final_mode = true;
		rt_maps_fold_all();
		rt_us_final_mode = false;
	}
	rt_us_final_free();
	mutex_unlock(&rt_us_alias_mutex);
}
