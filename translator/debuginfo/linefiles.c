// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The file table of a .debug_line header, DWARF 2 to 5 (see linefiles.h).
 * Every read is bounds-checked: a truncated or corrupt section gives
 * false, never a read past its end.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "debuginfo/linefiles.h"
#include "util.h"

struct cursor {
	const unsigned char *p, *end;
	bool ok;
};

static uint64_t fixed(struct cursor *c, int size)
{
	if (!c->ok || c->end - c->p < size) {
		c->ok = false;
		return 0;
	}
	uint64_t v = 0;
	for (int i = size - 1; i >= 0; i--)
		v = v << 8 | c->p[i];
	c->p += size;
	return v;
}

static uint64_t uleb(struct cursor *c)
{
	uint64_t v = 0;
	for (int shift = 0; c->ok; shift += 7) {
		if (c->p >= c->end || shift > 63) {
			c->ok = false;
			break;
		}
		unsigned char b = *c->p++;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	return 0;
}

static void skip(struct cursor *c, uint64_t n)
{
	if (!c->ok || (uint64_t)(c->end - c->p) < n)
		c->ok = false;
	else
		c->p += n;
}

/* A NUL-terminated string at the cursor. */
static const char *inline_string(struct cursor *c)
{
	if (!c->ok)
		return NULL;
	const unsigned char *nul = memchr(c->p, 0, (size_t)(c->end - c->p));
	if (!nul) {
		c->ok = false;
		return NULL;
	}
	const char *s = (const char *)c->p;
	c->p = nul + 1;
	return s;
}

static const char *string_at(const unsigned char *sec, size_t size, uint64_t off)
{
	if (!sec || off >= size || !memchr(sec + off, 0, size - off))
		return NULL;
	return (const char *)sec + off;
}

enum {
	FORM_BLOCK2 = 0x03, FORM_BLOCK4 = 0x04, FORM_DATA2 = 0x05, FORM_DATA4 = 0x06,
	FORM_DATA8 = 0x07, FORM_STRING = 0x08, FORM_BLOCK = 0x09, FORM_BLOCK1 = 0x0a,
	FORM_DATA1 = 0x0b, FORM_SDATA = 0x0d, FORM_STRP = 0x0e, FORM_UDATA = 0x0f,
	FORM_DATA16 = 0x1e, FORM_LINE_STRP = 0x1f,
	LNCT_PATH = 1, LNCT_DIRECTORY_INDEX = 2,
};

/* One attribute value of a DWARF 5 entry: a string (*s) or a number (*v). */
static void form_value(struct cursor *c, const struct line_sections *secs, uint64_t form,
		       int offset_size, const char **s, uint64_t *v)
{
	*s = NULL;
	*v = 0;
	switch (form) {
	case FORM_STRING:
		*s = inline_string(c);
		break;
	case FORM_STRP:
	case FORM_LINE_STRP: {
		uint64_t off = fixed(c, offset_size);
		*s = form == FORM_STRP ? string_at(secs->str, secs->str_size, off)
				       : string_at(secs->line_str, secs->line_str_size, off);
		if (c->ok && !*s)
			c->ok = false;
		break;
	}
	case FORM_DATA1:
		*v = fixed(c, 1);
		break;
	case FORM_DATA2:
		*v = fixed(c, 2);
		break;
	case FORM_DATA4:
		*v = fixed(c, 4);
		break;
	case FORM_DATA8:
		*v = fixed(c, 8);
		break;
	case FORM_DATA16:
		skip(c, 16);
		break;
	case FORM_UDATA:
	case FORM_SDATA:
		*v = uleb(c);
		break;
	case FORM_BLOCK:
		skip(c, uleb(c));
		break;
	case FORM_BLOCK1:
		skip(c, fixed(c, 1));
		break;
	case FORM_BLOCK2:
		skip(c, fixed(c, 2));
		break;
	case FORM_BLOCK4:
		skip(c, fixed(c, 4));
		break;
	default: /* strx and the like: not read here */
		c->ok = false;
	}
}

/* DWARF 5's self-describing entries: each one's path and directory index. */
static bool read_entries(struct cursor *c, const struct line_sections *secs, int offset_size,
			 const char ***paths, uint64_t **dirs, size_t *count)
{
	uint64_t nformats = fixed(c, 1), content[16], form[16];
	if (nformats > 16)
		return false;
	for (uint64_t i = 0; i < nformats; i++) {
		content[i] = uleb(c);
		form[i] = uleb(c);
	}
	uint64_t n = uleb(c);
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
	uint64_t length = fixed(&c, 4);
	if (length == 0xffffffff) {
		length = fixed(&c, 8);
		offset_size = 8;
	}
	if (!c.ok || length > (uint64_t)(c.end - c.p))
		return false;
	c.end = c.p + length;
	unsigned version = (unsigned)fixed(&c, 2);
	if (version < 2 || version > 5)
		return false;
	if (version >= 5)
		skip(&c, 2); /* address and segment selector sizes */
	uint64_t header_length = fixed(&c, offset_size);
	if (!c.ok || header_length > (uint64_t)(c.end - c.p))
		return false;
	c.end = c.p + header_length; /* the file table ends with the header */
	skip(&c, version >= 4 ? 5 : 4); /* instruction lengths, is_stmt, line base and range */
	uint64_t opcode_base = fixed(&c, 1);
	skip(&c, opcode_base ? opcode_base - 1 : 0);
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
		for (const char *d; (d = inline_string(&c)) && *d;) {
			if (ndirs == cap)
				dir_paths = xrealloc(dir_paths, (cap *= 2) * sizeof *dir_paths);
			dir_paths[ndirs++] = d;
		}
		cap = 16;
		file_paths = xcalloc(cap, sizeof *file_paths);
		file_dirs = xcalloc(cap, sizeof *file_dirs);
		file_paths[nfiles++] = NULL;
		for (const char *f; c.ok && (f = inline_string(&c)) && *f;) {
			if (nfiles == cap) {
				cap *= 2;
				file_paths = xrealloc(file_paths, cap * sizeof *file_paths);
				file_dirs = xrealloc(file_dirs, cap * sizeof *file_dirs);
			}
			file_paths[nfiles] = f;
			file_dirs[nfiles++] = uleb(&c);
			uleb(&c); /* modification time */
			uleb(&c); /* length */
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
