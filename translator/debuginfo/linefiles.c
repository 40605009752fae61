// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The file table of a .debug_line header, DWARF 2 to 5 (see linefiles.h).
 * Every read is bounds-checked: a truncated or corrupt section gives
 * false, never a read past its end.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "debuginfo/dwbytes.h"
#include "debuginfo/linefiles.h"
#include "util.h"

static const char *string_at(const unsigned char *sec, size_t size, uint64_t off)
{
	if (!sec || off >= size || !memchr(sec + off, 0, size - off))
		return NULL;
	return (const char *)sec + off;
}

enum { LNCT_PATH = 1, LNCT_DIRECTORY_INDEX = 2 };

/* One attribute value of a DWARF 5 entry: a string (*s) or a number (*v). */
static void form_value(struct cursor *c, const struct line_sections *secs, uint64_t form,
		       int offset_size, const char **s, uint64_t *v)
{
	*s = NULL;
	*v = 0;
	switch (form) {
	case FORM_STRING:
		*s = cur_string(c);
		break;
	case FORM_STRP:
	case FORM_LINE_STRP: {
		uint64_t off = cur_fixed(c, offset_size);
		*s = form == FORM_STRP ? string_at(secs->str, secs->str_size, off)
				       : string_at(secs->line_str, secs->line_str_size, off);
		if (c->ok && !*s)
			c->ok = false;
		break;
	}
	case FORM_DATA1:
		*v = cur_fixed(c, 1);
		break;
	case FORM_DATA2:
		*v = cur_fixed(c, 2);
		break;
	case FORM_DATA4:
		*v = cur_fixed(c, 4);
		break;
	case FORM_DATA8:
		*v = cur_fixed(c, 8);
		break;
	case FORM_DATA16:
		cur_skip(c, 16);
		break;
	case FORM_UDATA:
	case FORM_SDATA:
		*v = cur_uleb(c);
		break;
	case FORM_BLOCK:
		cur_skip(c, cur_uleb(c));
		break;
	case FORM_BLOCK1:
		cur_skip(c, cur_fixed(c, 1));
		break;
	case FORM_BLOCK2:
		cur_skip(c, cur_fixed(c, 2));
		break;
	case FORM_BLOCK4:
		cur_skip(c, cur_fixed(c, 4));
		break;
	default: /* strx and the like: not read here */
		c->ok = false;
	}
}

/* DWARF 5's self-describing entries: each one's path and directory index. */
static bool read_entries(struct cursor *c, const struct line_sections *secs, int offset_size,
			 const char ***paths, uint64_t **dirs, size_t *count)
{
	uint64_t nformats = cur_fixed(c, 1), content[16], form[16];
	if (nformats > 16)
		return false;
	for (uint64_t i = 0; i < nformats; i++) {
		content[i] = cur_uleb(c);
		form[i] = cur_uleb(c);
	}
	uint64_t n = cur_uleb(c);
	if (!c->ok || n > (uint64_t)(c->end - c->p))
		return false;
	*paths = xcalloc(n + 1, sizeof **paths);
	*dirs = xcalloc(n + 1, sizeof **dirs);
	*count = n;
	for (uint64_t k = 0; k < n && c->ok; k++) {
		for (uint64_t i = 0; i < nformats && c->ok; i++) {
			const char *s;
			uint64_t v;
			form_value(c, secs, form[i], offset_size, &s, &v);
			if (content[i] == LNCT_PATH)
				(*paths)[k] = s;
			else if (content[i] == LNCT_DIRECTORY_INDEX)
				(*dirs)[k] = v;
		}
	}
	return c->ok;
}

static char *join(const char *dir, const char *name)
{
	if (!name)
		return NULL;
	if (name[0] == '/' || !dir)
		return xstrdup(name);
	return xasprintf("%s/%s", dir, name);
}

bool line_files_read(const struct line_sections *secs, uint64_t off, const char *comp_dir,
		     struct line_files *out)
{
	*out = (struct line_files){ 0 };
	if (!secs->line || off >= secs->line_size)
		return false;
	struct cursor c = { secs->line + off, secs->line + secs->line_size, true };
	int offset_size = 4;
	uint64_t length = cur_fixed(&c, 4);
	if (length == 0xffffffff) {
		length = cur_fixed(&c, 8);
		offset_size = 8;
	}
	if (!c.ok || length > (uint64_t)(c.end - c.p))
		return false;
	c.end = c.p + length;
	unsigned version = (unsigned)cur_fixed(&c, 2);
	if (version < 2 || version > 5)
		return false;
	if (version >= 5)
		cur_skip(&c, 2); /* address and segment selector sizes */
	uint64_t header_length = cur_fixed(&c, offset_size);
	if (!c.ok || header_length > (uint64_t)(c.end - c.p))
		return false;
	c.end = c.p + header_length; /* the file table ends with the header */
	cur_skip(&c, version >= 4 ? 5 : 4); /* instruction lengths, is_stmt, line base and range */
	uint64_t opcode_base = cur_fixed(&c, 1);
	cur_skip(&c, opcode_base ? opcode_base - 1 : 0);
	if (!c.ok)
		return false;

	const char **dir_paths = NULL, **file_paths = NULL;
	uint64_t *dir_index = NULL, *file_dirs = NULL;
	size_t ndirs = 0, nfiles = 0;
	bool ok;
	if (version >= 5) {
		ok = read_entries(&c, secs, offset_size, &dir_paths, &dir_index, &ndirs) &&
		     read_entries(&c, secs, offset_size, &file_paths, &file_dirs, &nfiles);
	} else {
		/* Directory 0 is the compilation directory; file 0 is none. */
		size_t cap = 16;
		dir_paths = xcalloc(cap, sizeof *dir_paths);
		dir_paths[ndirs++] = comp_dir;
		for (const char *d; (d = cur_string(&c)) && *d;) {
			if (ndirs == cap)
				dir_paths = xrealloc(dir_paths, (cap *= 2) * sizeof *dir_paths);
			dir_paths[ndirs++] = d;
		}
		cap = 16;
		file_paths = xcalloc(cap, sizeof *file_paths);
		file_dirs = xcalloc(cap, sizeof *file_dirs);
		file_paths[nfiles++] = NULL;
		for (const char *f; c.ok && (f = cur_string(&c)) && *f;) {
			if (nfiles == cap) {
				cap *= 2;
				file_paths = xrealloc(file_paths, cap * sizeof *file_paths);
				file_dirs = xrealloc(file_dirs, cap * sizeof *file_dirs);
			}
			file_paths[nfiles] = f;
			file_dirs[nfiles++] = cur_uleb(&c);
			cur_uleb(&c); /* modification time */
			cur_uleb(&c); /* length */
		}
		ok = c.ok;
	}
	if (ok) {
		out->n = nfiles;
		out->paths = file_paths;
		out->dirs = xcalloc(nfiles + 1, sizeof *out->dirs);
		out->names = xcalloc(nfiles + 1, sizeof *out->names);
		for (size_t i = 0; i < nfiles && ok; i++) {
			ok = file_dirs[i] < ndirs;
			out->dirs[i] = ok ? dir_paths[file_dirs[i]] : NULL;
		}
	} else {
		free(file_paths);
	}
	free(dir_paths);
	free(dir_index);
	free(file_dirs);
	if (!ok)
		line_files_free(out);
	return ok;
}

const char *line_files_name(struct line_files *f, size_t i)
{
	if (i >= f->n || !f->paths[i])
		return NULL;
	if (!f->names[i])
		f->names[i] = join(f->dirs[i], f->paths[i]);
	return f->names[i];
}

void line_files_free(struct line_files *f)
{
	for (size_t i = 0; i < f->n && f->names; i++)
		free(f->names[i]);
	free(f->names);
	free(f->paths);
	free(f->dirs);
	*f = (struct line_files){ 0 };
}
