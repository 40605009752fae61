// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The script's string library and its regular-expression matching. Every
 * script string is a NUL-terminated buffer of at most MAXSTRINGLEN bytes:
 * each function is told its destination's size and always terminates it,
 * and none reads past a source's terminator.
 */
#include <linux/bitops.h>
#include <linux/ctype.h>
#include <linux/errno.h>
#include <linux/string.h>

#include "runtime.h"

void rt_strcpy(char *dst, const char *src, rt_size size)
{
	strscpy(dst, src, size);
}

void rt_strcat(char *dst, const char *src, rt_size size)
{
	size_t n = strnlen(dst, size);

	if (n < size)
		strscpy(dst + n, src, size - n);
}

void rt_strcat_long(char *dst, rt_long v, rt_size size)
{
	char num[24];

	scnprintf(num, sizeof(num), "%lld", v);
	rt_strcat(dst, num, size);
}

int rt_strcmp(const char *a, const char *b)
{
	return strcmp(a, b);
}

rt_long rt_strlen(const char *s)
{
	return strlen(s);
}

void rt_substr(char *dst, rt_size size, const char *s, rt_long start, rt_long len)
{
	rt_long n = strlen(s);

	dst[0] = 0;
	if (start < 0 || start >= n || len <= 0)
		return;
	if (len > n - start)
		len = n - start;
	if ((rt_size)len >= size)
		len = size - 1;
	memcpy(dst, s + start, len);
	dst[len] = 0;
}

/*
 * strstr, its work counted: comparing at each place is quick for ordinary
 * text, but a needle like "aa...ab" in "aa...a" costs length x length
 * (some 10^9 comparisons at MAXSTRINGLEN 65536), so the comparisons are
 * charged to rt_work(); NULL when not found or when the hit ran too long.
 */
static const char *rt_strstr(struct rt_context *c, const char *s, const char *needle)
{
	size_t m = strlen(needle);

	if (!m)
		return s;
	for (; *s; s++) {
		size_t i = 0;

		while (i < m && s[i] == needle[i])
			i++;
		if (i == m)
			return s;
		if (rt_work(c, i + 1))
			return NULL;
	}
	return NULL;
}

rt_long rt_strpos(struct rt_context *c, const char *s, const char *needle)
{
	const char *p = rt_strstr(c, s, needle);

	return p ? p - s : -1;
}

void rt_str_replace(struct rt_context *c, char *dst, rt_size size, const char *s, const char *from,
		    const char *to)
{
	size_t flen = strlen(from), used = 0;

	dst[0] = 0;
	if (flen == 0) {
		strscpy(dst, s, size);
		return;
	}
	while (*s && used + 1 < size && !c->error) {
		const char *p = rt_strstr(c, s, from);
		size_t head = p ? (size_t)(p - s) : strlen(s);

		head = min(head, size - 1 - used);
		memcpy(dst + used, s, head);
		used += head;
		dst[used] = 0;
		if (!p || used + 1 >= size)
			break;
		rt_strcat(dst + used, to, size - used);
		used += strlen(dst + used);
		s = p + flen;
	}
}

/* The escape text_str and string_quoted use for c, into e; returns its length. */
static int rt_escape(unsigned char c, char *e, int quoted)
{
	static const char from[] = "\a\b\f\n\r\t\v\\";
	static const char to[] = "abfnrtv\\";
	int i;

	for (i = 0; from[i]; i++)
		if (c == (unsigned char)from[i]) {
			e[0] = '\\';
			e[1] = to[i];
			return 2;
		}
	if (quoted && c == '"') {
		e[0] = '\\';
		e[1] = '"';
		return 2;
	}
	if (c >= 0x20 && c < 0x7f) {
		e[0] = c;
		return 1;
	}
	return scnprintf(e, 5, "\\%03o", c);
}

void rt_text_str(char *dst, rt_size size, const char *s, rt_long max, int quoted)
{
	size_t used = 0, room = size - 1;
	rt_long n;
	char e[5];

	if (max <= 0 || (rt_size)max >= size)
		max = size - 1;
	if (quoted) {
		/* Room for the quotes, and for "..." when cut short. */
		room = size > 6 ? size - 6 : 0;
		dst[used++] = '"';
	}
	for (n = 0; s[n] && n < max; n++) {
		int k = rt_escape((unsigned char)s[n], e, quoted);

		if (used + k > room)
			break;
		memcpy(dst + used, e, k);
		used += k;
	}
	if (quoted) {
		dst[used++] = '"';
		if (s[n]) {
			memcpy(dst + used, "...", 3);
			used += 3;
		}
	}
	dst[used] = 0;
}

void rt_toupper(char *dst, rt_size size, const char *s)
{
	size_t i;

	for (i = 0; s[i] && i + 1 < size; i++)
		dst[i] = toupper(s[i]);
	dst[i] = 0;
}

void rt_tolower(char *dst, rt_size size, const char *s)
{
	size_t i;

	for (i = 0; s[i] && i + 1 < size; i++)
		dst[i] = tolower(s[i]);
	dst[i] = 0;
}

rt_long rt_isdigit(const char *s)
{
	return isdigit(s[0]) ? 1 : 0;
}

rt_long rt_strtol(struct rt_context *c, const char *s, rt_long base, const char *loc)
{
	u64 v = 0;
	int neg = 0;

	if (base != 0 && (base < 2 || base > 36)) {
		rt_failf(c, loc, NULL, "strtol: base %lld is not 0 or 2 to 36", base);
		return 0;
	}
	while (isspace(*s))
		s++;
	if (*s == '-' || *s == '+')
		neg = *s++ == '-';
	if ((base == 0 || base == 16) && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') &&
	    isxdigit(s[2])) {
		s += 2;
		base = 16;
	} else if (base == 0) {
		base = s[0] == '0' ? 8 : 10;
	}
	for (;; s++) {
		int d;

		if (isdigit(*s))
			d = *s - '0';
		else if (isalpha(*s))
			d = tolower(*s) - 'a' + 10;
		else
			break;
		if (d >= base)
			break;
		v = v * base + d; /* wraps, as the script's numbers do */
	}
	return neg ? (rt_long)(0 - v) : (rt_long)v;
}

rt_long rt_stringat(struct rt_context *c, const char *s, rt_long pos, const char *loc)
{
	if (pos < 0 || pos >= (rt_long)strlen(s)) {
		rt_failf(c, loc, NULL, "stringat: position %lld is outside the string", pos);
		return 0;
	}
	return (unsigned char)s[pos];
}

/* tokenize(s, delim): the next token, empty ones skipped; s "" goes on
 * with the string given last on this CPU. */
/*
 * strspn (in: the bytes of s that are in set) or strcspn (those that are
 * not), in time linear in both lengths: the kernel's compare each byte with
 * the whole set, and both can be MAXSTRINGLEN long.
 */
static size_t rt_span(const char *s, const char *set, bool in)
{
	unsigned long bits[256 / BITS_PER_LONG] = { 0 };
	size_t n = 0;

	for (; *set; set++)
		__set_bit((unsigned char)*set, bits);
	while (s[n] && test_bit((unsigned char)s[n], bits) == in)
		n++;
	return n;
}

void rt_tokenize(struct rt_context *c, char *dst, rt_size size, const char *s, const char *delim)
{
	struct rt_cpu *cpu = rt_cpu_of(c);
	char *p;
	size_t n;

	dst[0] = 0;
	if (s[0]) {
		strscpy(cpu->tok_str, s, rt_script.maxstringlen);
		cpu->tok_pos = 0;
	}
	p = cpu->tok_str + cpu->tok_pos;
	p += rt_span(p, delim, true);
	n = rt_span(p, delim, false);
	if (n == 0) {
		cpu->tok_pos = p - cpu->tok_str;
		return;
	}
	strscpy(dst, p, min_t(size_t, n + 1, size));
	cpu->tok_pos = p + n - cpu->tok_str;
}

/* --- regular expressions --- */

/* Matching work charged to the statement budget: one action per this many steps. */
#define RT_RE_STEPS_PER_ACTION 64

/* Give up a match that spends more than the statement budget left, or
 * that makes the hit run past MAXHITTIME. */
static int rt_regex_stop(void *arg, unsigned long steps)
{
	struct rt_context *c = arg;

	return (rt_long)(steps / RT_RE_STEPS_PER_ACTION) > c->actions + *rt_actions_reserve(rt_cpu_of(c)) ||
	       rt_hit_overtime(c, NULL);
}

rt_long rt_regex_match(struct rt_context *c, const struct rt_regex *re, const char *s)
{
	struct rt_cpu *cpu = rt_cpu_of(c);
	unsigned long steps = 0;
	int matched;

	matched = rt_re_match(re, s, rt_script.maxstringlen, cpu->re_caps, cpu->re_scratch, &steps,
			      rt_regex_stop, c);
	if (matched < 0) {
		rt_cpu_of(c)->fatal = true;
		if (!c->error)
			rt_fail_limit(c, rt_cpu_of(c)->probe && rt_cpu_of(c)->process_context
						 ? "MAXACTION_INTERRUPTIBLE" : "MAXACTION",
				      rt_cpu_of(c)->process_context ? rt_script.maxaction_interruptible
								    : rt_script.maxaction,
				      NULL);
		cpu->re_matched = 0;
		return 0;
	}
	c->actions -= steps / RT_RE_STEPS_PER_ACTION;
	cpu->re_matched = matched;
	if (matched) {
		strscpy(cpu->re_subject, s, rt_script.maxstringlen);
		cpu->re_ngroups = re->ngroups;
	}
	return matched;
}

void rt_matched(struct rt_context *c, char *buf, rt_size size, rt_long n, const char *loc)
{
	struct rt_cpu *cpu = rt_cpu_of(c);
	int from, to;

	buf[0] = 0;
	if (!cpu->re_matched) {
		rt_failf(c, loc, NULL, "matched(): the last =~ did not match");
		return;
	}
	if (n < 0 || n > cpu->re_ngroups) {
		rt_failf(c, loc, NULL, "matched(%lld): the expression has %d subexpression%s", n,
			 cpu->re_ngroups, cpu->re_ngroups == 1 ? "" : "s");
		return;
	}
	from = cpu->re_caps[2 * n];
	to = cpu->re_caps[2 * n + 1];
	if (from < 0 || to < from)
		return; /* the group took no part in the match */
	strscpy(buf, cpu->re_subject + from, min_t(size_t, to - from + 1, size));
}

rt_long rt_ngroups(struct rt_context *c, const char *loc)
{
	struct rt_cpu *cpu = rt_cpu_of(c);

	if (!cpu->re_matched) {
		rt_failf(c, loc, NULL, "ngroups(): the last =~ did not match");
		return 0;
	}
	return cpu->re_ngroups + 1;
}

/* The names of the error codes a kernel function returns, by number. */
static const char *const rt_errnames[] = {
#define E(name) [name] = #name
	E(EPERM), E(ENOENT), E(ESRCH), E(EINTR), E(EIO), E(ENXIO), E(E2BIG), E(ENOEXEC),
	E(EBADF), E(ECHILD), E(EAGAIN), E(ENOMEM), E(EACCES), E(EFAULT), E(ENOTBLK), E(EBUSY),
	E(EEXIST), E(EXDEV), E(ENODEV), E(ENOTDIR), E(EISDIR), E(EINVAL), E(ENFILE), E(EMFILE),
	E(ENOTTY), E(ETXTBSY), E(EFBIG), E(ENOSPC), E(ESPIPE), E(EROFS), E(EMLINK), E(EPIPE),
	E(EDOM), E(ERANGE), E(EDEADLK), E(ENAMETOOLONG), E(ENOLCK), E(ENOSYS), E(ENOTEMPTY),
	E(ELOOP), E(ENOMSG), E(EIDRM), E(ECHRNG), E(EL2NSYNC), E(EL3HLT), E(EL3RST), E(ELNRNG),
	E(EUNATCH), E(ENOCSI), E(EL2HLT), E(EBADE), E(EBADR), E(EXFULL), E(ENOANO), E(EBADRQC),
	E(EBADSLT), E(EBFONT), E(ENOSTR), E(ENODATA), E(ETIME), E(ENOSR), E(ENONET), E(ENOPKG),
	E(EREMOTE), E(ENOLINK), E(EADV), E(ESRMNT), E(ECOMM), E(EPROTO), E(EMULTIHOP), E(EDOTDOT),
	E(EBADMSG), E(EOVERFLOW), E(ENOTUNIQ), E(EBADFD), E(EREMCHG), E(ELIBACC), E(ELIBBAD),
	E(ELIBSCN), E(ELIBMAX), E(ELIBEXEC), E(EILSEQ), E(ERESTART), E(ESTRPIPE), E(EUSERS),
	E(ENOTSOCK), E(EDESTADDRREQ), E(EMSGSIZE), E(EPROTOTYPE), E(ENOPROTOOPT),
	E(EPROTONOSUPPORT), E(ESOCKTNOSUPPORT), E(EOPNOTSUPP), E(EPFNOSUPPORT), E(EAFNOSUPPORT),
	E(EADDRINUSE), E(EADDRNOTAVAIL), E(ENETDOWN), E(ENETUNREACH), E(ENETRESET),
	E(ECONNABORTED), E(ECONNRESET), E(ENOBUFS), E(EISCONN), E(ENOTCONN), E(ESHUTDOWN),
	E(ETOOMANYREFS), E(ETIMEDOUT), E(ECONNREFUSED), E(EHOSTDOWN), E(EHOSTUNREACH),
	E(EALREADY), E(EINPROGRESS), E(ESTALE), E(EUCLEAN), E(ENOTNAM), E(ENAVAIL), E(EISNAM),
	E(EREMOTEIO), E(EDQUOT), E(ENOMEDIUM), E(EMEDIUMTYPE), E(ECANCELED), E(ENOKEY),
	E(EKEYEXPIRED), E(EKEYREVOKED), E(EKEYREJECTED), E(EOWNERDEAD), E(ENOTRECOVERABLE),
	E(ERFKILL), E(EHWPOISON),
	/* The kernel's own, never seen by user space but returned inside it
	 * (linux/errno.h): a probe on a kernel function meets them. */
	E(ERESTARTSYS), E(ERESTARTNOINTR), E(ERESTARTNOHAND), E(ENOIOCTLCMD),
	E(ERESTART_RESTARTBLOCK), E(EPROBE_DEFER), E(EOPENSTALE), E(ENOPARAM), E(EBADHANDLE),
	E(ENOTSYNC), E(EBADCOOKIE), E(ENOTSUPP), E(ETOOSMALL), E(ESERVERFAULT), E(EBADTYPE),
	E(EJUKEBOX), E(EIOCBQUEUED), E(ERECALLCONFLICT), E(ENOGRACE),
#undef E
};

void rt_errno_str(struct rt_context *c, char *buf, rt_size size, rt_long err)
{
	unsigned long n = err < 0 ? -(unsigned long)err : (unsigned long)err;

	strscpy(buf, n < ARRAY_SIZE(rt_errnames) && rt_errnames[n] ? rt_errnames[n] : "", size);
}

void rt_hex_str(char *dst, rt_size size, rt_long v)
{
	snprintf(dst, size, "0x%llx", (unsigned long long)v);
}
