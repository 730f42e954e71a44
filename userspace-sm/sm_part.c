// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sm_part.c: partitions from opensm's partition file (sm_part.h), and the
 * P_Key table each port gets from them. Pure logic: the unit tests and
 * fuzz_part run it on the host.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "sm_part.h"

/* The parser's cursor: the text left, the line it is on, the line the
 * definition it is in began on, and what was wrong. */
struct sm_part_cur {
	char *p;
	char *end;
	unsigned int line;
	unsigned int start;
	const char *why;
};

static void sm_part_default(struct sm_part *p, int file)
{
	static const struct sm_part_member all_full[] = {
		{ 0, SM_PART_ALL, 1 },
	};
	static const struct sm_part_member all_limited[] = {
		{ 0, SM_PART_ALL, 0 }, { 0, SM_PART_SELF, 1 },
	};
	const struct sm_part_member *m = file ? all_limited : all_full;
	unsigned int n = file ? 2 : 1;

	memset(p, 0, sizeof(*p));
	strcpy(p->name, "Default");
	p->pkey = SM_PART_DEFAULT_PKEY;
	p->ipoib = !file;
	p->member = malloc(n * sizeof(*m));
	if (p->member) {
		memcpy(p->member, m, n * sizeof(*m));
		p->n = n;
	}
}

/**
 * sm_parts_init() - the partitions of a subnet with no partition file
 * @ps: what to set
 *
 * The default partition alone, with every port a full member and the
 * IPoIB broadcast group.
 */
void sm_parts_init(struct sm_parts *ps)
{
	memset(ps, 0, sizeof(*ps));
	sm_part_default(&ps->part[0], 0);
	ps->n = 1;
}

void sm_parts_free(struct sm_parts *ps)
{
	unsigned int i;

	for (i = 0; i < ps->n; i++)
		free(ps->part[i].member);
	ps->n = 0;
}

static int sm_part_fail(struct sm_part_cur *c, const char *why)
{
	c->why = why;
	return -1;
}

/* Step over blanks and comments, counting lines. */
static void sm_part_skip(struct sm_part_cur *c)
{
	while (c->p < c->end) {
		if (*c->p == '#') {
			while (c->p < c->end && *c->p != '\n')
				c->p++;
		} else if (isspace((unsigned char)*c->p)) {
			c->line += *c->p == '\n';
			c->p++;
		} else {
			return;
		}
	}
}

/*
 * The next item, up to one of @stops (not taken), blanks trimmed, comments
 * left out, in @buf; the stop found (0 at the end of the text).
 */
static int sm_part_item(struct sm_part_cur *c, const char *stops, char *buf,
			size_t size)
{
	size_t n = 0;

	sm_part_skip(c);
	/* (strchr() finds a NUL in any @stops) */
	while (c->p < c->end && (!*c->p || !strchr(stops, *c->p))) {
		if (*c->p == '#') {
			sm_part_skip(c);
			continue;
		}
		if (*c->p == '\0')
			return sm_part_fail(c, "a NUL byte");
		if (n + 1 >= size)
			return sm_part_fail(c, "a name or value too long");
		c->line += *c->p == '\n';
		buf[n++] = *c->p++;
	}
	while (n && isspace((unsigned char)buf[n - 1]))
		n--;
	buf[n] = '\0';
	return c->p < c->end ? *c->p++ : 0;
}

/* @s as a number within @lo..@hi. */
static int sm_part_num(const char *s, unsigned long lo, unsigned long hi,
		       unsigned long *v)
{
	char *end;

	if (!*s || *s == '-' || *s == '+')
		return -1;
	*v = strtoul(s, &end, 0);
	return *end || *v < lo || *v > hi ? -1 : 0;
}

/* "KEY=VALUE": VALUE split off (NULL without '='). */
static char *sm_part_value(char *item)
{
	char *eq = strchr(item, '='), *val, *t;

	if (!eq)
		return NULL;
	*eq = '\0';
	for (t = eq; t > item && isspace((unsigned char)t[-1]); )
		*--t = '\0';
	for (val = eq + 1; isspace((unsigned char)*val); )
		val++;
	return val;
}

/* full, limited or both (which is full, as in opensm by default). */
static int sm_part_full(const char *s)
{
	if (!strcmp(s, "full") || !strcmp(s, "both"))
		return 1;
	return strcmp(s, "limited") ? -1 : 0;
}

/* A numeric flag of a partition's header: its range and its field. */
struct sm_part_flag {
	const char *key;
	unsigned long lo, hi;
	size_t off;		/* where in struct sm_part */
	int wide;		/* a uint32_t there, else a uint8_t */
};

static const struct sm_part_flag sm_part_flags[] = {
	{ "mtu", 1, 5, offsetof(struct sm_part, mtu), 0 },
	{ "rate", 2, 18, offsetof(struct sm_part, rate), 0 },
	{ "sl", 0, 15, offsetof(struct sm_part, sl), 0 },
	{ "scope", 1, 15, offsetof(struct sm_part, scope), 0 },
	{ "Q_Key", 1, 0xffffffffUL, offsetof(struct sm_part, qkey), 1 },
	{ "TClass", 0, 255, offsetof(struct sm_part, tclass), 0 },
};

/* One flag (@item) of @p's header; defmember goes to @def. */
static int sm_part_flag(struct sm_part_cur *c, struct sm_part *p, char *item,
			int *def)
{
	char *val = sm_part_value(item);
	unsigned long v;
	unsigned int i;

	if (!strcmp(item, "ipoib") && !val) {
		p->ipoib = 1;
		return 0;
	}
	if (!strcmp(item, "defmember") && val) {
		*def = sm_part_full(val);
		return *def < 0 ? sm_part_fail(c, "defmember is full, limited or both") : 0;
	}
	if (!strcmp(item, "indx0"))
		return sm_part_fail(c, "indx0 is not supported");
	for (i = 0; i < sizeof(sm_part_flags) / sizeof(sm_part_flags[0]); i++) {
		const struct sm_part_flag *f = &sm_part_flags[i];

		if (strcmp(item, f->key))
			continue;
		if (!val || sm_part_num(val, f->lo, f->hi, &v))
			return sm_part_fail(c, "a flag's value is missing or out of range");
		if (f->wide)
			*(uint32_t *)((char *)p + f->off) = v;
		else
			*((uint8_t *)p + f->off) = v;
		return 0;
	}
	return sm_part_fail(c, "an unknown flag (ipoib, mtu, rate, sl, scope, Q_Key, TClass, defmember)");
}

/* NAME=PKEY[,FLAG...] up to ':'; @def gets the default membership. */
static int sm_part_header(struct sm_part_cur *c, struct sm_part *p, int *def)
{
	char item[128], *val;
	unsigned long v;
	int stop;

	*def = 0;
	stop = sm_part_item(c, ",:;", item, sizeof(item));
	if (stop < 0)
		return -1;
	if (stop != ',' && stop != ':')
		return sm_part_fail(c, "a definition without ':' before its members");
	val = sm_part_value(item);
	if (!val)
		return sm_part_fail(c, "a partition without =PKEY (pib-sm makes none up)");
	if (!*item)
		return sm_part_fail(c, "a partition without a name");
	if (strpbrk(item, " \t\n\r\v\f") || strlen(item) >= sizeof(p->name))
		return sm_part_fail(c, "a partition name with a blank, or too long");
	strcpy(p->name, item);
	/* (only the low 15 bits count: 0x8001 is 0x0001, as in opensm) */
	if (sm_part_num(val, 0, 0xffff, &v) || !(v & 0x7fff))
		return sm_part_fail(c, "a P_Key is a number from 0x0001 to 0x7fff");
	p->pkey = v & 0x7fff;
	while (stop == ',') {
		stop = sm_part_item(c, ",:;", item, sizeof(item));
		if (stop < 0 || (stop != ',' && stop != ':'))
			return stop < 0 ? -1 :
				sm_part_fail(c, "a definition without ':' before its members");
		if (*item && sm_part_flag(c, p, item, def))
			return -1;
	}
	if (p->mtu || p->rate || p->sl || p->scope || p->qkey || p->tclass)
		if (!p->ipoib)
			return sm_part_fail(c, "mtu, rate, sl, scope, Q_Key and TClass are the IPoIB group's: they need ipoib");
	return 0;
}

static const struct { const char *name; enum sm_part_who who; } sm_part_names[] = {
	{ "ALL", SM_PART_ALL }, { "ALL_CAS", SM_PART_ALL_CAS },
	{ "ALL_SWITCHES", SM_PART_ALL_SWITCHES },
	{ "ALL_ROUTERS", SM_PART_ALL_ROUTERS }, { "SELF", SM_PART_SELF },
};

/* One member entry (@item) of @p, @def its default membership. */
static int sm_part_member(struct sm_part_cur *c, struct sm_part *p, char *item,
			  int def)
{
	struct sm_part_member m = { 0, SM_PART_GUID, (uint8_t)def };
	char *val = sm_part_value(item);
	unsigned long long g;
	struct sm_part_member *grown;
	unsigned int i;
	char *end;

	if (val) {
		if (sm_part_full(val) < 0)
			return sm_part_fail(c, "a member is =full, =limited or =both");
		m.full = sm_part_full(val);
	}
	if (!strcmp(item, "NONE"))
		return 0;
	for (i = 0; i < sizeof(sm_part_names) / sizeof(sm_part_names[0]); i++)
		if (!strcmp(item, sm_part_names[i].name))
			m.who = sm_part_names[i].who;
	if (m.who == SM_PART_GUID) {
		if (!isdigit((unsigned char)*item))
			return sm_part_fail(c, "a member is a port GUID, ALL, ALL_CAS, ALL_SWITCHES, ALL_ROUTERS, SELF or NONE");
		g = strtoull(item, &end, 0);
		if (*end || !g)
			return sm_part_fail(c, "a port GUID that is not a number, or 0");
		m.guid = g;
	}
	if (p->n >= SM_PART_MAX_MEMBERS)
		return sm_part_fail(c, "too many members in one partition");
	grown = realloc(p->member, (p->n + 1) * sizeof(*grown));
	if (!grown)
		return sm_part_fail(c, "out of memory");
	p->member = grown;
	p->member[p->n++] = m;
	return 0;
}

/* The member list up to ';'. */
static int sm_part_members(struct sm_part_cur *c, struct sm_part *p, int def)
{
	char item[128];
	int stop;

	do {
		stop = sm_part_item(c, ",;:", item, sizeof(item));
		if (stop < 0)
			return -1;
		if (stop == ':')
			return sm_part_fail(c, "a second ':' (a definition ends with ';')");
		if (!stop)
			return sm_part_fail(c, "a definition without ';' at its end");
		if (*item && sm_part_member(c, p, item, def))
			return -1;
	} while (stop == ',');
	return 0;
}

/* Put @p (parsed) into @ps: the default partition's place, or the next. */
static int sm_part_add(struct sm_part_cur *c, struct sm_parts *ps,
		       struct sm_part *p, int *have_default)
{
	unsigned int i;

	for (i = *have_default ? 0 : 1; i < ps->n; i++)
		if (ps->part[i].pkey == p->pkey)
			return sm_part_fail(c, "a P_Key defined twice");
	if (p->pkey == SM_PART_DEFAULT_PKEY) {
		free(ps->part[0].member);
		ps->part[0] = *p;
		*have_default = 1;
		return 0;
	}
	if (ps->n >= SM_PART_MAX)
		return sm_part_fail(c, "more than 64 partitions");
	ps->part[ps->n++] = *p;
	return 0;
}

/**
 * sm_parts_parse() - partitions from the text of a partition file
 * @ps: what to fill (its old contents are freed)
 * @text: the file's text
 * @len: its length (at most SM_PART_FILE_MAX)
 * @line: where to put the line of an error
 * @why: where to put what the error is
 *
 * Return: 0, or -1 with @ps as with no file (sm_parts_init) and @line and
 * @why set.
 */
int sm_parts_parse(struct sm_parts *ps, const char *text, size_t len,
		   unsigned int *line, const char **why)
{
	struct sm_part_cur c = { NULL, NULL, 1, 1, NULL };
	int have_default = 0, def;
	struct sm_part p;
	char *copy;

	sm_parts_free(ps);
	memset(ps, 0, sizeof(*ps));
	sm_part_default(&ps->part[0], 1);
	ps->n = 1;
	ps->file = 1;
	copy = len <= SM_PART_FILE_MAX ? malloc(len + 1) : NULL;
	if (!copy) {
		c.why = len > SM_PART_FILE_MAX ? "a file larger than 256 KiB" :
			"out of memory";
		goto fail;
	}
	memcpy(copy, text, len);
	c.p = copy;
	c.end = copy + len;
	for (;;) {
		sm_part_skip(&c);
		if (c.p >= c.end)
			break;
		c.start = c.line;
		memset(&p, 0, sizeof(p));
		if (sm_part_header(&c, &p, &def) ||
		    sm_part_members(&c, &p, def) ||
		    sm_part_add(&c, ps, &p, &have_default)) {
			free(p.member);
			goto fail;
		}
	}
	free(copy);
	return 0;
fail:
	free(copy);
	/* (the text ended within a definition: where it began) */
	*line = c.p && c.p >= c.end ? c.start : c.line;
	*why = c.why;
	sm_parts_free(ps);
	sm_parts_init(ps);
	return -1;
}

/**
 * sm_parts_read() - partitions from a partition file
 * @ps: what to fill
 * @in: the file
 * @line: where to put the line of an error (0: not the text's fault)
 * @why: where to put what the error is
 *
 * Return: 0 or -1, as sm_parts_parse().
 */
int sm_parts_read(struct sm_parts *ps, FILE *in, unsigned int *line,
		  const char **why)
{
	char *buf = malloc(SM_PART_FILE_MAX + 1);
	size_t len;
	int ret;

	*line = 0;
	if (!buf) {
		*why = "out of memory";
		return -1;
	}
	len = fread(buf, 1, SM_PART_FILE_MAX + 1, in);
	if (ferror(in)) {
		free(buf);
		*why = "cannot read it";
		return -1;
	}
	ret = sm_parts_parse(ps, buf, len, line, why);
	free(buf);
	return ret;
}

/**
 * sm_part_membership() - how a port belongs to a partition
 * @p: the partition
 * @port_guid: the port
 * @node_type: its node's type (SM_PART_NODE_*)
 * @sm_guid: the SM's own port (SELF)
 *
 * Return: 2 full member, 1 limited member, 0 none.
 */
int sm_part_membership(const struct sm_part *p, uint64_t port_guid,
		       unsigned int node_type, uint64_t sm_guid)
{
	static const unsigned int type_of[] = {
		[SM_PART_ALL_CAS] = SM_PART_NODE_CA,
		[SM_PART_ALL_SWITCHES] = SM_PART_NODE_SWITCH,
		[SM_PART_ALL_ROUTERS] = SM_PART_NODE_ROUTER,
	};
	const struct sm_part_member *m;
	int best = 0, hit;
	unsigned int i;

	for (i = 0; i < p->n; i++) {
		m = &p->member[i];
		switch (m->who) {
		case SM_PART_GUID:
			hit = m->guid == port_guid;
			break;
		case SM_PART_SELF:
			hit = sm_guid == port_guid;
			break;
		case SM_PART_ALL:
			hit = 1;
			break;
		default:
			hit = type_of[m->who] == node_type;
			break;
		}
		if (hit && best < 1 + m->full)
			best = 1 + m->full;
	}
	return best;
}

/**
 * sm_parts_pkeys() - the P_Key table of a port
 * @ps: the partitions
 * @port_guid: the port
 * @node_type: its node's type
 * @sm_guid: the SM's own port
 * @pkeys: where to put the P_Keys, membership bit set for a full member:
 *	the default partition's first (IPoIB's ib0 uses index 0), then the
 *	file's order
 * @max: room in @pkeys
 *
 * Return: how many the port should have (more than @max: some left out).
 */
unsigned int sm_parts_pkeys(const struct sm_parts *ps, uint64_t port_guid,
			    unsigned int node_type, uint64_t sm_guid,
			    uint16_t *pkeys, unsigned int max)
{
	unsigned int i, n = 0;
	int m;

	for (i = 0; i < ps->n; i++) {
		m = sm_part_membership(&ps->part[i], port_guid, node_type,
				       sm_guid);
		if (!m)
			continue;
		if (n < max)
			pkeys[n] = ps->part[i].pkey | (m == 2 ? SM_PART_FULL : 0);
		n++;
	}
	return n;
}

/* The partition of @pkey (membership bit ignored), or NULL. */
const struct sm_part *sm_parts_find(const struct sm_parts *ps, uint16_t pkey)
{
	unsigned int i;

	for (i = 0; i < ps->n; i++)
		if (ps->part[i].pkey == (pkey & 0x7fff))
			return &ps->part[i];
	return NULL;
}
