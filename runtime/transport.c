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
 */
#include <linux/hrtimer.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>

#include "runtime.h"

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
static atomic64_t rt_seq;
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

void rt_out_commit(struct rt_cpu *cpu)
{
	struct rt_ring *r = this_cpu_ptr(rt_rings);
	struct rt_record rec;
	size_t need, head, tail;

	if (!cpu->out_len)
		return;
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

void rt_out_write(struct rt_cpu *cpu, const char *data, size_t len)
{
	while (len) {
		size_t room = RT_STAGING_SIZE - cpu->out_len;
		size_t n;

		if (!room) {
			rt_out_commit(cpu);
			room = RT_STAGING_SIZE;
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

static bool rt_data_ready(void)
{
	int i;

	for_each_possible_cpu(i) {
		struct rt_ring *r = per_cpu_ptr(rt_rings, i);

		if (smp_load_acquire(&r->head) != r->tail)
			return true;
	}
	return false;
}

/* The CPU whose next record is the oldest, or -1. */
static int rt_oldest_cpu(struct rt_record *rec)
{
	struct rt_record cand;
	int i, best = -1;

	for_each_possible_cpu(i) {
		if (!rt_ring_peek(per_cpu_ptr(rt_rings, i), &cand))
			continue;
		if (best < 0 || cand.seq < rec->seq) {
			*rec = cand;
			best = i;
		}
	}
	return best;
}

/* Copy whole records (or the rest of a partial one) to the user; bytes copied or -EFAULT. */
static ssize_t rt_drain(char __user *ubuf, size_t count)
{
	char chunk[256];
	size_t done = 0;

	while (done < count) {
		struct rt_record rec;
		struct rt_ring *r;
		size_t left, n, off;
		int cpu = rt_partial_cpu;

		if (cpu >= 0) {
			r = per_cpu_ptr(rt_rings, cpu);
			rt_ring_peek(r, &rec);
		} else {
			cpu = rt_oldest_cpu(&rec);
			if (cpu < 0)
				break;
			r = per_cpu_ptr(rt_rings, cpu);
			rt_partial_off = 0;
		}
		/* Start a record only if it fits, unless nothing was copied yet. */
		left = rec.len - rt_partial_off;
		if (done && rt_partial_off == 0 && left > count - done)
			break;
		n = min(left, count - done);
		off = 0;
		while (off < n) {
			size_t k = min(n - off, sizeof(chunk));

			rt_ring_copy_out(r, r->tail + sizeof(rec) + rt_partial_off + off, chunk, k);
			/* Records already handed over stay handed over. */
			if (copy_to_user(ubuf + done + off, chunk, k))
				return done ? (ssize_t)done : -EFAULT;
			off += k;
		}
		done += n;
		if (n < left) {
			rt_partial_cpu = cpu;
			rt_partial_off += n;
			break;
		}
		rt_partial_cpu = -1;
		rt_partial_off = 0;
		smp_store_release(&r->tail, r->tail + rt_record_space(rec.len));
	}
	return done;
}

static bool rt_reader_should_wake(void)
{
	return rt_data_ready() || rt_state() >= RT_STOPPING;
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
		if (rt_state() >= RT_STOPPING)
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

static int rt_out_open(struct inode *inode, struct file *file)
{
	return nonseekable_open(inode, file);
}

static int rt_out_release(struct inode *inode, struct file *file)
{
	return 0;
}

void rt_transport_show(struct seq_file *m)
{
	u64 records = 0, bytes = 0;
	int i;

	for_each_possible_cpu(i) {
		struct rt_ring *r = per_cpu_ptr(rt_rings, i);

		records += READ_ONCE(r->dropped_records);
		bytes += READ_ONCE(r->dropped_bytes);
	}
	seq_printf(m, "dropped_records %llu\n", records);
	seq_printf(m, "dropped_bytes %llu\n", bytes);
}

static int rt_ctl_show(struct seq_file *m, void *unused)
{
	rt_session_show(m);
	rt_transport_show(m);
	return 0;
}

static int rt_ctl_open(struct inode *inode, struct file *file)
{
	return single_open(file, rt_ctl_show, NULL);
}

static ssize_t rt_ctl_write(struct file *file, const char __user *ubuf, size_t count,
			    loff_t *ppos)
{
	char cmd[64];
	size_t n = min(count, sizeof(cmd) - 1);
	int pid, rc = 0;

	if (copy_from_user(cmd, ubuf, n))
		return -EFAULT;
	cmd[n] = 0;
	strim(cmd);
	if (!strcmp(cmd, "start")) {
		rt_sess.staprun_pid = task_tgid_nr(current);
		rc = rt_ctl_start();
	}
	else if (!strcmp(cmd, "stop"))
		rc = rt_ctl_stop();
	else if (sscanf(cmd, "target %d", &pid) == 1 && rt_state() == RT_LOADED)
		rt_ctl_set_target(pid);
	else
		rc = -EINVAL;
	return rc ? rc : count;
}

/* `out` is opened non-seekable, so it needs no llseek. */
RT_PROC_OPS(rt_out_ops, rt_out_open, rt_out_read, NULL, NULL, rt_out_release, rt_out_poll);
RT_PROC_OPS(rt_ctl_ops, rt_ctl_open, seq_read, rt_ctl_write, seq_lseek, single_release, NULL);

void rt_wake_readers(void)
{
	wake_up_interruptible(&rt_wq);
}

static enum hrtimer_restart rt_wake_timer_fn(struct hrtimer *t)
{
	int state = rt_state();

	if (rt_data_ready() || state != rt_last_state) {
		rt_last_state = state;
		wake_up_interruptible(&rt_wq);
	}
	hrtimer_forward_now(t, ns_to_ktime(RT_WAKE_INTERVAL_NS));
	return HRTIMER_RESTART;
}

int rt_transport_init(const char *module_name)
{
	char dir[80];
	size_t size = 4096;
	int i;

	rt_hrtimer_setup(&rt_wake_timer, rt_wake_timer_fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	rt_rings = alloc_percpu(struct rt_ring);
	if (!rt_rings)
		return -ENOMEM;
	while (size < rt_script.buffer_size)
		size <<= 1;
	for_each_possible_cpu(i) {
		struct rt_ring *r = per_cpu_ptr(rt_rings, i);

		r->buf = vmalloc(size);
		if (!r->buf)
			goto nomem;
		r->size = size;
	}
	snprintf(dir, sizeof(dir), "tapline_%s", module_name);
	rt_proc_dir = proc_mkdir(dir, NULL);
	if (!rt_proc_dir)
		goto exists;
	if (!proc_create("out", 0400, rt_proc_dir, &rt_out_ops) ||
	    !proc_create("ctl", 0600, rt_proc_dir, &rt_ctl_ops))
		goto exists;
	hrtimer_start(&rt_wake_timer, ns_to_ktime(RT_WAKE_INTERVAL_NS), HRTIMER_MODE_REL);
	return 0;
exists:
	pr_err(RT_PREFIX "cannot create /proc/%s\n", dir);
	rt_transport_exit();
	return -EEXIST;
nomem:
	rt_transport_exit();
	return -ENOMEM;
}

void rt_transport_exit(void)
{
	int i;

	if (rt_proc_dir) {
		hrtimer_cancel(&rt_wake_timer);
		proc_remove(rt_proc_dir);
		rt_proc_dir = NULL;
	}
	if (!rt_rings)
		return;
	for_each_possible_cpu(i)
		vfree(per_cpu_ptr(rt_rings, i)->buf);
	free_percpu(rt_rings);
	rt_rings = NULL;
}
