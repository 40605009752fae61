// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * procfs("NAME").read and .write probes: files under
 * /proc/systemtap/MODULE/, where SystemTap's scripts and its exporter
 * look. Reading a file runs its read probes once per open, at the first
 * read, each setting or appending to $value, which is then what the reader
 * gets; writing runs its write probes with what was written as $value.
 * Both run as any probe hit does (rt_run_hit), with $value's buffer as the
 * hit's entry data, so a handler is bounded in statements and time and a
 * failure stops the script, not the reader.
 *
 * Whoever may open a file (root alone unless -D PROCFS_UMASK opens it to
 * others) makes the kernel allocate, so what an open may take is bounded
 * and counted in MAXMEMORY before the script starts (rt_procfs_bytes): a
 * file has at most PROCFS_MAXOPEN opens at once, the last of them kept
 * for root (CAP_SYS_ADMIN), so that others holding it open never lock
 * out root's reader; a further open fails with EBUSY. Each open's $value
 * is allocated at its first read or write, without retrying or warning
 * when memory is short (ENOMEM, never the OOM killer).
 *
 * The files are made once the script runs and removed first when it stops
 * (proc_remove waits for readers and writers inside a handler, and
 * releases what is still open). The shared /proc/systemtap directory is
 * made by the first module that needs it and then left: another module
 * may be using it, and removing a directory with entries would warn.
 */
#include <linux/capability.h>
#include <linux/mutex.h>
#include <linux/namei.h>
#include <linux/overflow.h>
#include <linux/proc_fs.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "hit.h"

/* $value: a buffer of size bytes (at least MAXSTRINGLEN) holding len. */
struct rt_pvalue {
	char *buf;
	size_t size, len;
};

/* A file: the largest $value of its read probes and of its write probes
 * (0: none of that kind), and how many have it open. */
struct rt_pfile {
	const char *name;
	size_t read_size, write_size;
	atomic_t opens;
};

/* An open file: what its read probes produced, or the last write. */
struct rt_popen {
	struct rt_pfile *f;
	struct mutex lock; /* two reads or writes of one open at once */
	bool done;
	struct rt_pvalue v;
};

static struct proc_dir_entry *rt_procfs_dir;
static struct rt_pfile *rt_pfiles;

static bool rt_is_procfs(const struct rt_probe *p, const char *name)
{
	return (p->kind == RT_PROCFS_READ || p->kind == RT_PROCFS_WRITE) &&
	       (!name || !strcmp(p->symbol, name));
}

/* The largest $value of the file's probes of a kind; 0 when it has none. */
static size_t rt_procfs_size(const char *name, enum rt_probe_kind kind)
{
	size_t size = 0;
	int i;

	for (i = 0; i < rt_script.nprobes; i++) {
		const struct rt_probe *p = &rt_script.probes[i];

		if (p->kind != kind || strcmp(p->symbol, name))
			continue;
		size = max_t(size_t, size, rt_script.maxstringlen);
		if ((size_t)p->procfs_maxsize > size)
			size = (size_t)p->procfs_maxsize;
	}
	return size;
}

/* Is probe i the first of its file? Files are numbered in that order. */
static bool rt_procfs_first(int i)
{
	int k;

	if (!rt_is_procfs(&rt_script.probes[i], NULL))
		return false;
	for (k = 0; k < i && !rt_is_procfs(&rt_script.probes[k], rt_script.probes[i].symbol); k++)
		;
	return k == i;
}

static size_t rt_pfile_bytes(const char *name)
{
	size_t buf = max(rt_procfs_size(name, RT_PROCFS_READ), rt_procfs_size(name, RT_PROCFS_WRITE));

	return size_mul(size_add(buf, sizeof(struct rt_popen)), (size_t)rt_script.procfs_maxopen);
}

/* What the files may take at most, for the check against MAXMEMORY. */
size_t rt_procfs_bytes(void)
{
	size_t n = 0;
	int i;

	for (i = 0; i < rt_script.nprobes; i++)
		if (rt_procfs_first(i))
			n = size_add(n, size_add(rt_pfile_bytes(rt_script.probes[i].symbol),
						 sizeof(struct rt_pfile)));
	return n;
}

static void rt_procfs_run(const char *name, enum rt_probe_kind kind, struct rt_pvalue *v)
{
	int i;

	for (i = 0; i < rt_script.nprobes; i++) {
		const struct rt_probe *p = &rt_script.probes[i];

		if (p->kind == kind && !strcmp(p->symbol, name))
			rt_run_hit(p, p->handler, NULL, (char *)v);
	}
}

static int rt_procfs_open(struct inode *inode, struct file *file)
{
	struct rt_pfile *f = pde_data(inode);
	int max = (int)rt_script.procfs_maxopen, n;
	struct rt_popen *o;

	/* The last open is root's. */
	if (max > 1 && !capable(CAP_SYS_ADMIN))
		max--;
	n = atomic_read(&f->opens);
	do {
		if (n >= max)
			return -EBUSY;
	} while (!atomic_try_cmpxchg(&f->opens, &n, n + 1));
	o = kzalloc(sizeof(*o), GFP_KERNEL_ACCOUNT);
	if (!o) {
		atomic_dec(&f->opens);
		return -ENOMEM;
	}
	o->f = f;
	mutex_init(&o->lock);
	file->private_data = o;
	return nonseekable_open(inode, file);
}

/* The open's buffer, the first time it is needed: large enough for reads
 * and writes both, within what rt_procfs_bytes() counted. */
static int rt_popen_buffer(struct rt_popen *o)
{
	size_t size = max(o->f->read_size, o->f->write_size);

	if (!o->v.buf)
		o->v.buf = kvzalloc(size, GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL | __GFP_NOWARN);
	return o->v.buf ? 0 : -ENOMEM;
}

static ssize_t rt_procfs_read(struct file *file, char __user *ubuf, size_t count, loff_t *ppos)
{
	struct rt_popen *o = file->private_data;
	ssize_t rc;

	if (!o->f->read_size)
		return 0; /* nothing to read: a file of write probes */
	if (mutex_lock_interruptible(&o->lock))
		return -EINTR;
	if (!o->done) {
		rc = rt_popen_buffer(o);
		if (rc)
			goto out;
		o->done = true;
		o->v.size = o->f->read_size;
		o->v.len = 0;
		o->v.buf[0] = 0;
		*ppos = 0;
		rt_procfs_run(o->f->name, RT_PROCFS_READ, &o->v);
	}
	rc = simple_read_from_buffer(ubuf, count, ppos, o->v.buf, o->v.len);
out:
	mutex_unlock(&o->lock);
	return rc;
}

static ssize_t rt_procfs_write(struct file *file, const char __user *ubuf, size_t count,
			       loff_t *ppos)
{
	struct rt_popen *o = file->private_data;
	ssize_t rc;
	size_t n;

	if (!o->f->write_size)
		return -EIO; /* no write probes, as in SystemTap */
	if (mutex_lock_interruptible(&o->lock))
		return -EINTR;
	rc = rt_popen_buffer(o);
	if (rc)
		goto out;
	o->v.size = o->f->write_size;
	n = min(count, o->v.size - 1);
	if (copy_from_user(o->v.buf, ubuf, n)) {
		rc = -EFAULT;
		goto out;
	}
	o->v.buf[n] = 0;
	o->v.len = strlen(o->v.buf);
	rt_procfs_run(o->f->name, RT_PROCFS_WRITE, &o->v);
	/* A read of this open after a write runs the read probes anew. */
	o->done = false;
	rc = count;
out:
	mutex_unlock(&o->lock);
	return rc;
}

static int rt_procfs_release(struct inode *inode, struct file *file)
{
	struct rt_popen *o = file->private_data;

	atomic_dec(&o->f->opens);
	kvfree(o->v.buf);
	kfree(o);
	return 0;
}

RT_PROC_OPS(rt_procfs_ops, rt_procfs_open, rt_procfs_read, rt_procfs_write, NULL,
	    rt_procfs_release, NULL);

/* The file's mode: readable if it has read probes, writable by the owner
 * (root) if it has write probes, less each probe's umask (which holds
 * PROCFS_UMASK too). */
static umode_t rt_procfs_mode(const char *name)
{
	umode_t mode = 0;
	int i;

	for (i = 0; i < rt_script.nprobes; i++) {
		const struct rt_probe *p = &rt_script.probes[i];

		if (!rt_is_procfs(p, name))
			continue;
		mode |= (p->kind == RT_PROCFS_READ ? 0444 : 0200) & ~(umode_t)p->procfs_umask;
	}
	return mode;
}

int rt_procfs_start(void)
{
	struct path path;
	char dir[96];
	int i, n = 0;

	for (i = 0; i < rt_script.nprobes; i++)
		n += rt_procfs_first(i);
	if (!n)
		return 0;
	rt_pfiles = kcalloc(n, sizeof(*rt_pfiles), GFP_KERNEL);
	if (!rt_pfiles)
		return -ENOMEM;
	/* The kernel warns about a directory made twice and about a path
	 * through one that is missing: look first (another module, or
	 * SystemTap, may have made it). */
	if (kern_path("/proc/systemtap", LOOKUP_DIRECTORY, &path) == 0)
		path_put(&path);
	else if (!proc_mkdir("systemtap", NULL))
		rt_message("warning", "cannot make /proc/systemtap");
	snprintf(dir, sizeof(dir), "systemtap/%s", THIS_MODULE->name);
	rt_procfs_dir = proc_mkdir(dir, NULL);
	if (!rt_procfs_dir) {
		rt_message("error", "cannot make /proc/%s for the procfs probes", dir);
		return -EEXIST;
	}
	for (i = 0, n = 0; i < rt_script.nprobes; i++) {
		const struct rt_probe *p = &rt_script.probes[i];
		struct rt_pfile *f = &rt_pfiles[n];

		if (!rt_procfs_first(i))
			continue;
		n++;
		f->name = p->symbol;
		f->read_size = rt_procfs_size(p->symbol, RT_PROCFS_READ);
		f->write_size = rt_procfs_size(p->symbol, RT_PROCFS_WRITE);
		atomic_set(&f->opens, 0);
		if (!proc_create_data(p->symbol, rt_procfs_mode(p->symbol), rt_procfs_dir,
				      &rt_procfs_ops, f)) {
			rt_message("error", "cannot make /proc/%s/%s for %s", dir, p->symbol, p->pp);
			return -EEXIST;
		}
	}
	return 0;
}

void rt_procfs_stop(void)
{
	if (rt_procfs_dir) {
		proc_remove(rt_procfs_dir);
		rt_procfs_dir = NULL;
	}
	kfree(rt_pfiles);
	rt_pfiles = NULL;
}

/* --- $value, for the generated handlers --- */

static struct rt_pvalue *rt_pvalue_of(struct rt_context *c)
{
	return (struct rt_pvalue *)rt_entry_data(c);
}

const char *rt_procfs_value(struct rt_context *c)
{
	struct rt_pvalue *v = rt_pvalue_of(c);

	return v ? v->buf : "";
}

void rt_procfs_set(struct rt_context *c, const char *s, int append)
{
	struct rt_pvalue *v = rt_pvalue_of(c);
	size_t n;

	if (!v)
		return;
	if (!append)
		v->len = 0;
	n = strlen(s);
	if (n > v->size - 1 - v->len)
		n = v->size - 1 - v->len;
	memmove(v->buf + v->len, s, n);
	v->len += n;
	v->buf[v->len] = 0;
}
