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
 * The files are made once the script runs and removed first when it stops
 * (proc_remove waits for readers and writers inside a handler). The
 * shared /proc/systemtap directory is made by the first module that needs
 * it and then left: another module may be using it, and removing a
 * directory with entries would warn.
 */
#include <linux/namei.h>
#include <linux/proc_fs.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "hit.h"

/* $value: a buffer of size bytes (at least MAXSTRINGLEN) holding len. */
struct rt_pvalue {
	char *buf;
	size_t size, len;
};

/* An open file: what its read probes produced. */
struct rt_popen {
	const char *name;
	bool done;
	struct rt_pvalue v;
};

static struct proc_dir_entry *rt_procfs_dir;

static bool rt_is_procfs(const struct rt_probe *p, const char *name)
{
	return (p->kind == RT_PROCFS_READ || p->kind == RT_PROCFS_WRITE) &&
	       (!name || !strcmp(p->symbol, name));
}

/* The largest $value of the file's probes of a kind. */
static size_t rt_procfs_size(const char *name, enum rt_probe_kind kind)
{
	size_t size = rt_script.maxstringlen;
	int i;

	for (i = 0; i < rt_script.nprobes; i++) {
		const struct rt_probe *p = &rt_script.probes[i];

		if (p->kind == kind && !strcmp(p->symbol, name) && (size_t)p->procfs_maxsize > size)
			size = (size_t)p->procfs_maxsize;
	}
	return size;
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
	struct rt_popen *o = kzalloc(sizeof(*o), GFP_KERNEL);

	if (!o)
		return -ENOMEM;
	o->name = pde_data(inode);
	file->private_data = o;
	return nonseekable_open(inode, file);
}

static ssize_t rt_procfs_read(struct file *file, char __user *ubuf, size_t count, loff_t *ppos)
{
	struct rt_popen *o = file->private_data;

	if (!o->done) {
		o->done = true;
		o->v.size = rt_procfs_size(o->name, RT_PROCFS_READ);
		o->v.buf = kvzalloc(o->v.size, GFP_KERNEL);
		if (!o->v.buf)
			return -ENOMEM;
		rt_procfs_run(o->name, RT_PROCFS_READ, &o->v);
	}
	return simple_read_from_buffer(ubuf, count, ppos, o->v.buf, o->v.len);
}

static ssize_t rt_procfs_write(struct file *file, const char __user *ubuf, size_t count,
			       loff_t *ppos)
{
	struct rt_popen *o = file->private_data;
	struct rt_pvalue v;
	size_t n;

	v.size = rt_procfs_size(o->name, RT_PROCFS_WRITE);
	n = min(count, v.size - 1);
	v.buf = kvzalloc(v.size, GFP_KERNEL);
	if (!v.buf)
		return -ENOMEM;
	if (copy_from_user(v.buf, ubuf, n)) {
		kvfree(v.buf);
		return -EFAULT;
	}
	v.buf[n] = 0;
	v.len = strlen(v.buf);
	rt_procfs_run(o->name, RT_PROCFS_WRITE, &v);
	kvfree(v.buf);
	return count;
}

static int rt_procfs_release(struct inode *inode, struct file *file)
{
	struct rt_popen *o = file->private_data;

	kvfree(o->v.buf);
	kfree(o);
	return 0;
}

RT_PROC_OPS(rt_procfs_ops, rt_procfs_open, rt_procfs_read, rt_procfs_write, NULL,
	    rt_procfs_release, NULL);

/* The file's mode: readable by all if it has read probes, writable by the
 * owner if it has write probes, less each probe's umask. */
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
	int i, k;

	for (i = 0; i < rt_script.nprobes && !rt_is_procfs(&rt_script.probes[i], NULL); i++)
		;
	if (i == rt_script.nprobes)
		return 0;
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
	for (i = 0; i < rt_script.nprobes; i++) {
		const struct rt_probe *p = &rt_script.probes[i];

		if (!rt_is_procfs(p, NULL))
			continue;
		for (k = 0; k < i && !rt_is_procfs(&rt_script.probes[k], p->symbol); k++)
			;
		if (k < i)
			continue; /* the file is made */
		if (!proc_create_data(p->symbol, rt_procfs_mode(p->symbol), rt_procfs_dir,
				      &rt_procfs_ops, (void *)p->symbol)) {
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
