// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The script's memory, bounded before it is asked for. When the script
 * starts, the runtime adds up everything it is about to allocate (arrays,
 * statistics, per-CPU state, output buffers, the probe table) or may
 * allocate later on others' behalf (the opens of its procfs files) and refuses
 * to start, naming the parts, when that is more than MAXMEMORY (a quarter
 * of the machine's RAM unless -D MAXMEMORY=KiB says otherwise) or more
 * than half of what the machine has available right now: a script must
 * never push the kernel into reclaim storms or the OOM killer. Sums
 * saturate rather than wrap (sizes come from the script). The large
 * pieces are then allocated one by one, each its own vmalloc area, without
 * retrying or warning when memory is short.
 */
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "runtime.h"
#include "stats.h"

void *rt_alloc_big(size_t size)
{
	return __vmalloc(size ? size : 1, GFP_KERNEL | __GFP_ZERO | __GFP_NORETRY | __GFP_NOWARN);
}

void rt_free_big(void *p)
{
	vfree(p);
}

/* What each CPU keeps (rt_alloc_cpus in lifecycle.c). */
static size_t rt_cpu_bytes(void)
{
	size_t n = sizeof(struct rt_cpu) + rt_script.frame_size + RT_STAGING_SIZE +
		   2 * rt_script.maxstringlen + rt_stat_scratch_bytes();
	int i;

	n = size_add(n, size_mul(rt_script.iter_slots, 2 * sizeof(u64)));
	if (rt_script.regex_prog)
		n = size_add(n, RT_RE_SCRATCH(rt_script.regex_prog));
	if (rt_script.timing)
		n = size_add(n, size_mul(rt_script.nprobes, sizeof(struct rt_timing)));
	n = size_add(n, rt_script.maxustack);
	for (i = 0; i < rt_script.nstats; i++)
		n = size_add(n, rt_stat_size(&rt_script.stats[i]));
	return n;
}

static size_t rt_maps_bytes(void)
{
	size_t n = 0;
	int i;

	for (i = 0; i < rt_script.nmaps; i++)
		n = size_add(n, rt_map_bytes(&rt_script.maps[i]));
	return n;
}

#define RT_MIB(n) ((unsigned long long)((n) >> 20))

/* The kernel memory the script takes, by part, and in all. */
struct rt_memory_use {
	size_t maps, cpus, out, probes, files, total;
};

static void rt_memory_use(struct rt_memory_use *m)
{
	m->maps = rt_maps_bytes();
	m->cpus = size_mul(rt_cpu_bytes(), num_possible_cpus());
	m->out = size_add(rt_transport_bytes(), rt_ustack_bytes());
	m->probes = rt_probes_bytes();
	m->files = rt_procfs_bytes();
	m->total = size_add(size_add(size_add(m->maps, m->cpus), size_add(m->out, m->probes)),
			    m->files);
}

/* module_size(): as SystemTap words it, in KiB: the module's data and
 * code, the per-CPU state, network buffers (none here) and all the
 * kernel memory the script took. */
void rt_module_size(struct rt_context *c, char *buf, rt_size size)
{
	struct rt_memory_use m;
	size_t text, data;

	rt_memory_use(&m);
	rt_module_sizes(THIS_MODULE, &text, &data);
	snprintf(buf, size, "%zudata/%zutext/%zuctx/0net/%zualloc kb", data >> 10, text >> 10,
		 m.cpus >> 10, m.total >> 10);
}

int rt_memory_check(void)
{
	struct rt_memory_use m;
	unsigned long long limit, avail = (unsigned long long)si_mem_available() << PAGE_SHIFT;
	bool given = rt_script.maxmemory_kb > 0;
	char parts[256];

	rt_memory_use(&m);
	limit = given ? (unsigned long long)rt_script.maxmemory_kb << 10
		      : ((unsigned long long)totalram_pages() << PAGE_SHIFT) / 4;
	if (m.total <= limit && m.total <= avail / 2)
		return 0;
	snprintf(parts, sizeof(parts),
		 "arrays %llu MiB, per-CPU state %llu MiB, output buffers %llu MiB, probes %llu MiB",
		 RT_MIB(m.maps), RT_MIB(m.cpus), RT_MIB(m.out), RT_MIB(m.probes));
	if (m.files)
		snprintf(parts + strlen(parts), sizeof(parts) - strlen(parts),
			 ", procfs files %llu MiB (PROCFS_MAXOPEN opens of each)", RT_MIB(m.files));
	if (m.total > limit)
		rt_message("error",
			   "the script needs %llu MiB of kernel memory (%s), more than MAXMEMORY = %llu MiB%s; declare smaller arrays (global m[N]), lower MAXMAPENTRIES, MAXSTRINGLEN or a procfs maxsize, or raise the limit with -D MAXMEMORY=KIB",
			   RT_MIB(m.total), parts, RT_MIB(limit),
			   given ? "" : " (a quarter of this machine's memory)");
	else
		rt_message("error",
			   "the script needs %llu MiB of kernel memory (%s), more than half of the %llu MiB this machine has available now; declare smaller arrays (global m[N]) or lower MAXMAPENTRIES, MAXSTRINGLEN or a procfs maxsize",
			   RT_MIB(m.total), parts, RT_MIB(avail));
	return -ENOMEM;
}
