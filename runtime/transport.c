// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Output transport: per-CPU ring buffers and the /proc files staprun uses
 * (doc/protocol.md). A probe hit stages its output (runtime.h) and commits
 * it as one record; each CPU's ring has a single writer (that CPU, with
 * interrupts off) and a single reader (a read() of `out`), so the rings
 * need no locks, only ordered head and tail updates. Records carry a global
 * sequence number; the reader merges the rings in that order (exact within
 * a CPU; across CPUs, a record numbered just before another may be published
 * just after it). A record that does not fit is dropped and counted, never
 * half-written.
 *
 * Probe context never wakes the reader (a wake-up from inside the scheduler
 * could deadlock); a 20 ms timer does.
 *
 * begin, end and error probes run in process context while staprun is
 * inside its `start` or `stop` write, not reading: their records go to a
 * list allocated as they come (up to RT_PC_MAX bytes) instead, so the
 * report an end probe prints is never lost to a full ring. The reader
 * takes the list in sequence order with the rings.
 *
 * `out` has one reader at a time, and only the user who loaded the module,
 * with CAP_SYS_MODULE, may open it or `ctl`. When the reader closes `out`
 * before `stop` (staprun was killed), the script stops at once.
 */
#include <linux/hrtimer.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/list.h>
#include <linux/poll.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>

#include "runtime.h"
#include "contract/ustack-records.h"

struct rt_record {
	u64 seq;
	u32 len;
	u32 unused;
};

struct rt_ring {
	char *buf;
	size_t size;  /* a power of two */
	size_t head;  /* bytes ever written; only this CPU changes it */
	size_t tail;  /* bytes ever read; only the reader changes it */
	u64 dropped_records, dropped_bytes;
};

static struct rt_ring __percpu *rt_rings;
static size_t rt_ring_size;
static atomic64_t rt_seq;

/* A begin, end or error probe's record (process context). */
struct rt_pc_record {
	struct list_head node;
	u64 seq;
	u32 len;
	u32 size;               /* what the allocation really takes */
	char data[];
};
static LIST_HEAD(rt_pc_list);
static DEFINE_SPINLOCK(rt_pc_lock);
static size_t rt_pc_bytes;              /* held in the list */
static u64 rt_pc_dropped_records, rt_pc_dropped_bytes;
/* The most the list holds, output staprun has not read yet: 16 MiB, or
 * four rings' worth with a large -s. */
#define RT_PC_MAX max_t(size_t, (size_t)16 << 20, 4 * rt_ring_size)

static atomic_t rt_reader_open;         /* `out` is open (one reader at a time) */
static kuid_t rt_owner;                 /* the user who loaded the module */
static DECLARE_WAIT_QUEUE_HEAD(rt_wq);
static DEFINE_MUTEX(rt_read_mutex);
static struct proc_dir_entry *rt_proc_dir;
static struct hrtimer rt_wake_timer;
static int rt_last_state;

#define RT_WAKE_INTERVAL_NS (20 * NSEC_PER_MSEC)

/* The reader's place inside a record a short read() left unfinished. */
static int rt_partial_cpu = -1;
static size_t rt_partial_off;

static void rt_ring_copy_in(struct rt_ring *r, size_t pos, const void *src, size_t len)
{
	size_t off = pos & (r->size - 1);
	size_t first = min(len, r->size - off);

	memcpy(r->buf + off, src, first);
	memcpy(r->buf, (const char *)src + first, len - first);
}

static void rt_ring_copy_out(const struct rt_ring *r, size_t pos, void *dst, size_t len)
{
	size_t off = pos & (r->size - 1);
	size_t first = min(len, r->size - off);

	memcpy(dst, r->buf + off, first);
	memcpy((char *)dst + first, r->buf, len - first);
}

static size_t rt_record_space(size_t len)
{
	return sizeof(struct rt_record) + ALIGN(len, 8);
}

/* One record of the list at most this large with its header: one 8 KiB
 * slab object, never a multi-page allocation. */
#define RT_PC_CHUNK (8192 - sizeof(struct rt_pc_record))

/* Add len bytes as one record, or count them as dropped. */
static void rt_pc_add(const char *data, size_t len)
{
	struct rt_pc_record *rec = NULL;
	unsigned long flags;

	/* Nobody will read it (staprun died): do not ask for memory. */
	if (!READ_ONCE(rt_run.orphaned) && READ_ONCE(rt_pc_bytes) + len <= RT_PC_MAX)
		rec = kmalloc(sizeof(*rec) + len,
			      GFP_KERNEL | __GFP_NORETRY | __GFP_NOWARN | __GFP_NOMEMALLOC);
	spin_lock_irqsave(&rt_pc_lock, flags);
	if (rec && rt_pc_bytes + ksize(rec) <= RT_PC_MAX) {
		rec->seq = atomic64_inc_return(&rt_seq);
		rec->len = len;
		rec->size = ksize(rec);
		memcpy(rec->data, data, len);
		list_add_tail(&rec->node, &rt_pc_list);
		rt_pc_bytes += rec->size;
		rec = NULL;
	} else {
		rt_pc_dropped_records++;
		rt_pc_dropped_bytes += len;
	}
	spin_unlock_irqrestore(&rt_pc_lock, flags);
	kfree(rec);
}

/* Process context: append to the list, allocating as it goes; dropped
 * only past RT_PC_MAX or when memory is short. */
static void rt_pc_commit(struct rt_cpu *cpu)
{
	size_t off = 0;

	while (off < cpu->out_len) {
		size_t n = min_t(size_t, cpu->out_len - off, RT_PC_CHUNK);

		rt_pc_add(cpu->out + off, n);
		off += n;
	}
	cpu->out_len = 0;
}

void rt_out_commit(struct rt_cpu *cpu)
{
	struct rt_ring *r;
	struct rt_record rec;
	size_t need, head, tail;

	if (!cpu->out_len)
		return;
	if (cpu->process_context) {
		rt_pc_commit(cpu);
		return;
	}
	r = this_cpu_ptr(rt_rings);
	need = rt_record_space(cpu->out_len);
	head = r->head;
	tail = smp_load_acquire(&r->tail);
	if (head - tail + need > r->size) {
		r->dropped_records++;
		r->dropped_bytes += cpu->out_len;
	} else {
		rec.seq = atomic64_inc_return(&rt_seq);
		rec.len = cpu->out_len;
		rec.unused = 0;
		rt_ring_copy_in(r, head, &rec, sizeof(rec));
		rt_ring_copy_in(r, head + sizeof(rec), cpu->out, cpu->out_len);
		smp_store_release(&r->head, head + need);
	}
	cpu->out_len = 0;
}

/*
 * A record of its own from two parts (a user-stack record: its header and
 * its payload), ahead of what the hit staged so far (which stays one
 * record: a sample comes before the token that names it), never split;
 * false when it was dropped (counted). Not in process context, whose list
 * takes chunks that other records may come between.
 */
bool rt_out_record(struct rt_cpu *cpu, const void *a, size_t alen, const void *b, size_t blen)
{
	struct rt_ring *r;
	struct rt_record rec;
	size_t need, head, tail;

	if (cpu->process_context)
		return false;
	r = this_cpu_ptr(rt_rings);
	need = rt_record_space(alen + blen);
	head = r->head;
	tail = smp_load_acquire(&r->tail);
	if (head - tail + need > r->size) {
		r->dropped_records++;
		r->dropped_bytes += alen + blen;
		return false;
	}
	rec.seq = atomic64_inc_return(&rt_seq);
	rec.len = alen + blen;
	rec.unused = 0;
	rt_ring_copy_in(r, head, &rec, sizeof(rec));
	rt_ring_copy_in(r, head + sizeof(rec), a, alen);
	rt_ring_copy_in(r, head + sizeof(rec) + alen, b, blen);
	smp_store_release(&r->head, head + need);
	return true;
}

/* Ring bytes a record of len bytes takes, and whether records taking
 * space bytes in all fit in this CPU's ring now (a set of records that
 * must arrive whole: a process's mappings). */
size_t rt_out_space(size_t len)
{
	return rt_record_space(len);
}

bool rt_out_fits(struct rt_cpu *cpu, size_t space)
{
	struct rt_ring *r = this_cpu_ptr(rt_rings);

	return r->head - smp_load_acquire(&r->tail) + space <= r->size;
}

/* The most a set of records may take: half a ring (so that it fits once
 * the reader caught up). */
size_t rt_out_set_max(void)
{
	return rt_ring_size / 2;
}

/* Bytes a record may have in this CPU's ring now. */
size_t rt_out_room(struct rt_cpu *cpu)
{
	struct rt_ring *r = this_cpu_ptr(rt_rings);
	size_t used = r->head - smp_load_acquire(&r->tail);

	return r->size - used > sizeof(struct rt_record) + 8 ? r->size - used - sizeof(struct rt_record) - 8
							      : 0;
}

/* Text that must reach the reader in one piece (a user-stack token). */
void rt_out_write_whole(struct rt_cpu *cpu, const char *data, size_t len)
{
	if (cpu->out_len + len > RT_STAGING_SIZE && !cpu->process_context)
		rt_out_commit(cpu);
	rt_out_write(cpu, data, len);
}

/* Commit a full staging buffer; with user stacks, a token cut at its end
 * goes with the next record instead (other CPUs' records may come between
 * two of a hit's). */
static void rt_out_commit_full(struct rt_cpu *cpu)
{
	char tail[RT_US_TOKEN_LEN];
	size_t keep = 0, i;

	if (rt_script.maxustack && !cpu->process_context)
		for (i = cpu->out_len > RT_US_TOKEN_LEN - 1 ? cpu->out_len - (RT_US_TOKEN_LEN - 1) : 0;
		     i < cpu->out_len; i++)
			if (cpu->out[i] == RT_US_MARK) {
				keep = cpu->out_len - i;
				break;
			}
	memcpy(tail, cpu->out + cpu->out_len - keep, keep);
	cpu->out_len -= keep;
	rt_out_commit(cpu);
	memcpy(cpu->out, tail, keep);
	cpu->out_len = keep;
}

void rt_out_write(struct rt_cpu *cpu, const char *data, size_t len)
{
	while (len) {
		size_t room = RT_STAGING_SIZE - cpu->out_len;
		size_t n;

		if (!room) {
			rt_out_commit_full(cpu);
			room = RT_STAGING_SIZE - cpu->out_len;
		}
		n = min(len, room);
		memcpy(cpu->out + cpu->out_len, data, n);
		cpu->out_len += n;
		data += n;
		len -= n;
	}
}

static bool rt_ring_peek(struct rt_ring *r, struct rt_record *rec)
{
	size_t head = smp_load_acquire(&r->head);

	if (head == r->tail)
		return false;
	rt_ring_copy_out(r, r->tail, rec, sizeof(*rec));
	return true;
}

/*
 * system(): commands staprun runs for the script, queued here (any
 * context: a few bytes copied under a raw spinlock) and taken one per
 * read() of `cmd`. A full queue drops the command and counts it.
 */
#define RT_SYSTEM_SLOTS 16
#define RT_SYSTEM_LEN 1024
static char rt_system_cmds[RT_SYSTEM_SLOTS][RT_SYSTEM_LEN];
static unsigned int rt_system_head, rt_system_tail; /* free-running */
static DEFINE_RAW_SPINLOCK(rt_system_lock);
static atomic_t rt_system_dropped, rt_system_cut;

static bool rt_system_pending(void)
{
	return READ_ONCE(rt_system_head) != READ_ONCE(rt_system_tail);
}

void rt_system(struct rt_context *c, const char *cmd)
{
	unsigned long flags;
	size_t len = strlen(cmd);

	if (len >= RT_SYSTEM_LEN) {
		atomic_inc(&rt_system_cut);
		return;
	}
	raw_spin_lock_irqsave(&rt_system_lock, flags);
	if (rt_system_head - rt_system_tail < RT_SYSTEM_SLOTS) {
		memcpy(rt_system_cmds[rt_system_head % RT_SYSTEM_SLOTS], cmd, len + 1);
		WRITE_ONCE(rt_system_head, rt_system_head + 1);
	} else {
		atomic_inc(&rt_system_dropped);
	}
	raw_spin_unlock_irqrestore(&rt_system_lock, flags);
}

static ssize_t rt_cmd_read(struct file *file, char __user *ubuf, size_t count, loff_t *ppos)
{
	char *buf = kmalloc(RT_SYSTEM_LEN, GFP_KERNEL);
	unsigned long flags;
	ssize_t len = 0;
	bool got = false;

	if (!buf)
		return -ENOMEM;
	raw_spin_lock_irqsave(&rt_system_lock, flags);
	if (rt_system_head != rt_system_tail) {
		strscpy(buf, rt_system_cmds[rt_system_tail % RT_SYSTEM_SLOTS], RT_SYSTEM_LEN);
		WRITE_ONCE(rt_system_tail, rt_system_tail + 1);
		got = true;
	}
	raw_spin_unlock_irqrestore(&rt_system_lock, flags);
	if (got) {
		len = (ssize_t)min(strlen(buf), count);
		if (copy_to_user(ubuf, buf, len))
			len = -EFAULT;
	}
	kfree(buf);
	return len;
}

/* What the end of the run says about system() (ctl's warnings). */
static void rt_system_show(struct seq_file *m)
{
	if (atomic_read(&rt_system_dropped))
		seq_printf(m, "warning system(): %d commands dropped: more than %d waited for staprun\n",
			   atomic_read(&rt_system_dropped), RT_SYSTEM_SLOTS);
	if (atomic_read(&rt_system_cut))
		seq_printf(m, "warning system(): %d commands not run: longer than %d bytes\n",
			   atomic_read(&rt_system_cut), RT_SYSTEM_LEN - 1);
}

static bool rt_data_ready(void)
{
	int i;

	if (!list_empty_careful(&rt_pc_list))
		return true;
	if (!smp_load_acquire(&rt_rings))
		return false;
	for_each_possible_cpu(i) {
		struct rt_ring *r = per_cpu_ptr(rt_rings, i);

		if (smp_load_acquire(&r->head) != r->tail)
			return true;
	}
	return false;
}

/* The list's first record, or NULL (only the reader removes records). */
static struct rt_pc_record *rt_pc_first(void)
{
	struct rt_pc_record *rec;
	unsigned long flags;

	spin_lock_irqsave(&rt_pc_lock, flags);
	rec = list_first_entry_or_null(&rt_pc_list, struct rt_pc_record, node);
	spin_unlock_irqrestore(&rt_pc_lock, flags);
	return rec;
}

/* The list is source number RT_SRC_LIST; the rings are their CPU's number. */
#define RT_SRC_LIST (-2)

/* The source whose next record is the oldest, or -1. */
static int rt_oldest_source(struct rt_record *rec)
{
	struct rt_pc_record *pc = rt_pc_first();
	struct rt_record cand;
	int i, best = -1;

	if (pc) {
		rec->seq = pc->seq;
		rec->len = pc->len;
		best = RT_SRC_LIST;
	}
	if (!smp_load_acquire(&rt_rings))
		return best;
	for_each_possible_cpu(i) {
		if (!rt_ring_peek(per_cpu_ptr(rt_rings, i), &cand))
			continue;
		if (best == -1 || cand.seq < rec->seq) {
			*rec = cand;
			best = i;
		}
	}
	return best;
}

/* Copy len bytes at off of source src's next record to the user. */
static int rt_copy_record(int src, size_t off, char __user *to, size_t len)
{
	char chunk[256];
	size_t done = 0;

	if (src == RT_SRC_LIST)
		return copy_to_user(to, rt_pc_first()->data + off, len) ? -EFAULT : 0;
	while (done < len) {
		struct rt_ring *r = per_cpu_ptr(rt_rings, src);
		size_t k = min(len - done, sizeof(chunk));

		rt_ring_copy_out(r, r->tail + sizeof(struct rt_record) + off + done, chunk, k);
		if (copy_to_user(to + done, chunk, k))
			return -EFAULT;
		done += k;
	}
	return 0;
}

/* Source src's next record has been handed over whole. */
static void rt_consume_record(int src, const struct rt_record *rec)
{
	struct rt_pc_record *pc;
	unsigned long flags;

	if (src != RT_SRC_LIST) {
		struct rt_ring *r = per_cpu_ptr(rt_rings, src);

		smp_store_release(&r->tail, r->tail + rt_record_space(rec->len));
		return;
	}
	spin_lock_irqsave(&rt_pc_lock, flags);
	pc = list_first_entry(&rt_pc_list, struct rt_pc_record, node);
	list_del(&pc->node);
	rt_pc_bytes -= pc->size;
	spin_unlock_irqrestore(&rt_pc_lock, flags);
	kfree(pc);
}

/* Copy whole records (or the rest of a partial one) to the user; bytes copied or -EFAULT. */
static ssize_t rt_drain(char __user *ubuf, size_t count)
{
	size_t done = 0;

	while (done < count) {
		struct rt_record rec;
		size_t left, n;
		int src = rt_partial_cpu;

		if (src != -1) {
			if (src == RT_SRC_LIST) {
				rec.len = rt_pc_first()->len;
			} else {
				rt_ring_peek(per_cpu_ptr(rt_rings, src), &rec);
			}
		} else {
			src = rt_oldest_source(&rec);
			if (src == -1)
				break;
			rt_partial_off = 0;
		}
		/* Start a record only if it fits, unless nothing was copied yet. */
		left = rec.len - rt_partial_off;
		if (done && rt_partial_off == 0 && left > count - done)
			break;
		n = min(left, count - done);
		/* Records already handed over stay handed over. */
		if (rt_copy_record(src, rt_partial_off, ubuf + done, n))
			return done ? (ssize_t)done : -EFAULT;
		done += n;
		if (n < left) {
			rt_partial_cpu = src;
			rt_partial_off += n;
			break;
		}
		rt_partial_cpu = -1;
		rt_partial_off = 0;
		rt_consume_record(src, &rec);
	}
	return done;
}

/* No more output will come: the script is stopping and no mappings of
 * user stacks are still to be sent (staprun waits for those). */
static bool rt_out_ended(void)
{
	return rt_state() >= RT_STOPPING && !rt_ustack_pending();
}

static bool rt_reader_should_wake(void)
{
	return rt_data_ready() || rt_system_pending() || rt_out_ended();
}

static ssize_t rt_out_read(struct file *file, char __user *ubuf, size_t count, loff_t *ppos)
{
	ssize_t n;

	if (mutex_lock_interruptible(&rt_read_mutex))
		return -ERESTARTSYS;
	for (;;) {
		long rc;

		n = rt_drain(ubuf, count);
		if (n != 0 || count == 0)
			break;
		/* Nothing to read, but commands to run: staprun reads `cmd`. */
		if (rt_system_pending()) {
			n = -EAGAIN;
			break;
		}
		if (rt_out_ended())
			break; /* end of file */
		if (file->f_flags & O_NONBLOCK) {
			n = -EAGAIN;
			break;
		}
		/* The timeout lets a signal that raced with the sleep be noticed. */
		rc = wait_event_interruptible_timeout(rt_wq, rt_reader_should_wake(), HZ / 5);
		if (rc < 0) {
			/* EINTR for staprun (no SA_RESTART); restarted for others. */
			n = -ERESTARTSYS;
			break;
		}
	}
	mutex_unlock(&rt_read_mutex);
	return n;
}

static __poll_t rt_out_poll(struct file *file, poll_table *wait)
{
	poll_wait(file, &rt_wq, wait);
	return rt_reader_should_wake() ? EPOLLIN | EPOLLRDNORM : 0;
}

/*
 * Only the user who loaded the module, holding CAP_SYS_MODULE: owning the
 * files is not enough (a uid-0 process without capabilities owns them too).
 */
static int rt_may_open(void)
{
	if (!capable(CAP_SYS_MODULE) || !uid_eq(current_euid(), rt_owner))
		return -EPERM;
	return 0;
}

static int rt_out_open(struct inode *inode, struct file *file)
{
	int rc = rt_may_open();

	if (rc)
		return rc;
	if (atomic_cmpxchg(&rt_reader_open, 0, 1) != 0)
		return -EBUSY;
	return nonseekable_open(inode, file);
}

/* The reader went away: if it never said stop, it was killed, and
 * nobody would ever stop the probes. */
static int rt_out_release(struct inode *inode, struct file *file)
{
	rt_ctl_orphan();
	atomic_set(&rt_reader_open, 0);
	return 0;
}

void rt_transport_show(struct seq_file *m)
{
	u64 records = 0, bytes = 0;
	unsigned long flags;
	int i;

	spin_lock_irqsave(&rt_pc_lock, flags);
	records = rt_pc_dropped_records;
	bytes = rt_pc_dropped_bytes;
	spin_unlock_irqrestore(&rt_pc_lock, flags);
	for_each_possible_cpu(i) {
		struct rt_ring *r;

		if (!rt_rings)
			break;
		r = per_cpu_ptr(rt_rings, i);
		records += READ_ONCE(r->dropped_records);
		bytes += READ_ONCE(r->dropped_bytes);
	}
	seq_printf(m, "dropped_records %llu\n", records);
	seq_printf(m, "dropped_bytes %llu\n", bytes);
}

static int rt_ctl_show(struct seq_file *m, void *unused)
{
	rt_status_show(m);
	rt_ustack_show(m);
	rt_system_show(m);
	rt_transport_show(m);
	return 0;
}

static int rt_cmd_open(struct inode *inode, struct file *file)
{
	int rc = rt_may_open();

	return rc ? rc : nonseekable_open(inode, file);
}

static int rt_ctl_open(struct inode *inode, struct file *file)
{
	int rc = rt_may_open();

	return rc ? rc : single_open(file, rt_ctl_show, NULL);
}

static ssize_t rt_ctl_write(struct file *file, const char __user *ubuf, size_t count,
			    loff_t *ppos)
{
	char cmd[64];
	size_t n = min(count, sizeof(cmd) - 1);
	int pid, children = 0, rc = 0;

	if (copy_from_user(cmd, ubuf, n))
		return -EFAULT;
	cmd[n] = 0;
	strim(cmd);
	if (!strcmp(cmd, "start")) {
		rt_run.staprun_pid = task_tgid_nr(current);
		rc = rt_ctl_start();
	}
	else if (!strcmp(cmd, "stop"))
		rc = rt_ctl_stop();
	else if (!strcmp(cmd, "quiesce"))
		rc = rt_ctl_quiesce();
	else if (!strcmp(cmd, "orphan"))
		rt_ctl_orphan();
	else if (sscanf(cmd, "target %d %d", &pid, &children) >= 1)
		rc = rt_ctl_set_target(pid, children);
	else
		rc = -EINVAL;
	return rc ? rc : count;
}

static ssize_t rt_ustack_write_op(struct file *file, const char __user *ubuf, size_t count,
				  loff_t *ppos)
{
	return rt_ustack_write(ubuf, count);
}

static ssize_t rt_ustack_read_op(struct file *file, char __user *ubuf, size_t count, loff_t *ppos)
{
	return rt_ustack_read(ubuf, count, ppos);
}

/* `out` is opened non-seekable, so it needs no llseek. */
RT_PROC_OPS(rt_out_ops, rt_out_open, rt_out_read, NULL, NULL, rt_out_release, rt_out_poll);
RT_PROC_OPS(rt_ctl_ops, rt_ctl_open, seq_read, rt_ctl_write, seq_lseek, single_release, NULL);
RT_PROC_OPS(rt_cmd_ops, rt_cmd_open, rt_cmd_read, NULL, NULL, NULL, NULL);
RT_PROC_OPS(rt_ustack_ops, rt_cmd_open, rt_ustack_read_op, rt_ustack_write_op, NULL, NULL, NULL);

void rt_wake_readers(void)
{
	wake_up_interruptible(&rt_wq);
}

static enum hrtimer_restart rt_wake_timer_fn(struct hrtimer *t)
{
	int state = rt_state();

	rt_ustack_tick();
	if (rt_data_ready() || rt_system_pending() || state != rt_last_state) {
		rt_last_state = state;
		wake_up_interruptible(&rt_wq);
	}
	hrtimer_forward_now(t, ns_to_ktime(RT_WAKE_INTERVAL_NS));
	return HRTIMER_RESTART;
}

/* At load: the /proc files, for the user loading the module only. */
int rt_transport_init(const char *module_name)
{
	struct proc_dir_entry *out, *ctl, *cmd;
	char dir[80];

	rt_owner = current_euid();
	rt_hrtimer_setup(&rt_wake_timer, rt_wake_timer_fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	rt_ring_size = 4096;
	while (rt_ring_size < rt_script.buffer_size)
		rt_ring_size <<= 1;
	snprintf(dir, sizeof(dir), "tapline_%s", module_name);
	rt_proc_dir = proc_mkdir_mode(dir, 0500, NULL);
	if (!rt_proc_dir)
		goto exists;
	out = proc_create("out", 0400, rt_proc_dir, &rt_out_ops);
	ctl = proc_create("ctl", 0600, rt_proc_dir, &rt_ctl_ops);
	cmd = proc_create("cmd", 0400, rt_proc_dir, &rt_cmd_ops);
	if (!out || !ctl || !cmd)
		goto exists;
	/* User stacks kept as array keys: staprun's aliases (ustack.c). */
	if (rt_script.ustack_keys) {
		struct proc_dir_entry *us = proc_create("ustack", 0600, rt_proc_dir, &rt_ustack_ops);

		if (!us)
			goto exists;
		proc_set_user(us, rt_owner, current_egid());
	}
	proc_set_user(rt_proc_dir, rt_owner, current_egid());
	proc_set_user(out, rt_owner, current_egid());
	proc_set_user(ctl, rt_owner, current_egid());
	proc_set_user(cmd, rt_owner, current_egid());
	hrtimer_start(&rt_wake_timer, ns_to_ktime(RT_WAKE_INTERVAL_NS), HRTIMER_MODE_REL);
	return 0;
exists:
	pr_err(RT_PREFIX "cannot create /proc/%s\n", dir);
	rt_transport_exit();
	return -EEXIST;
}

size_t rt_transport_bytes(void)
{
	return rt_ring_size * num_possible_cpus() + RT_PC_MAX;
}

/* At start: the rings. */
int rt_transport_alloc(void)
{
	struct rt_ring __percpu *rings = alloc_percpu(struct rt_ring);
	int i;

	if (!rings)
		return -ENOMEM;
	for_each_possible_cpu(i) {
		struct rt_ring *r = per_cpu_ptr(rings, i);

		r->buf = rt_alloc_big(rt_ring_size);
		if (!r->buf)
			goto nomem;
		r->size = rt_ring_size;
	}
	/* The reader may be waiting already. */
	smp_store_release(&rt_rings, rings);
	return 0;
nomem:
	for_each_possible_cpu(i)
		rt_free_big(per_cpu_ptr(rings, i)->buf);
	free_percpu(rings);
	return -ENOMEM;
}

void rt_transport_exit(void)
{
	struct rt_pc_record *pc, *next;
	int i;

	if (rt_proc_dir) {
		hrtimer_cancel(&rt_wake_timer);
		proc_remove(rt_proc_dir);
		rt_proc_dir = NULL;
	}
	list_for_each_entry_safe(pc, next, &rt_pc_list, node)
		kfree(pc);
	INIT_LIST_HEAD(&rt_pc_list);
	rt_pc_bytes = 0;
	if (!rt_rings)
		return;
	for_each_possible_cpu(i)
		rt_free_big(per_cpu_ptr(rt_rings, i)->buf);
	free_percpu(rt_rings);
	rt_rings = NULL;
}
