// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * LID assignment, stable by port GUID. A port keeps the LID it had, in
 * this run (the map) and in the runs before (the map's file, in the
 * format of opensm's guid2lid file, so that either SM can take over the
 * other's LIDs). A new port takes the lowest LID that no port, present or
 * remembered, has; only when none is left does a remembered port that is
 * absent lose its LID.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "sm_fabric.h"

void sm_lidmap_init(struct sm_lidmap *m)
{
	memset(m, 0, sizeof(*m));
}

void sm_lidmap_free(struct sm_lidmap *m)
{
	free(m->guid);
	free(m->lid);
	sm_lidmap_init(m);
}

static int sm_lidmap_index(const struct sm_lidmap *m, uint64_t guid)
{
	unsigned int i;

	for (i = 0; i < m->len; i++)
		if (m->guid[i] == guid)
			return i;
	return -1;
}

/* The LID remembered for port GUID @guid, or 0. */
uint16_t sm_lidmap_get(const struct sm_lidmap *m, uint64_t guid)
{
	int i = sm_lidmap_index(m, guid);

	return i < 0 ? 0 : m->lid[i];
}

/* Drop every entry but @keep's that has LID @lid. */
static void sm_lidmap_drop_lid(struct sm_lidmap *m, uint16_t lid,
			       uint64_t keep)
{
	unsigned int i = 0;

	while (i < m->len) {
		if (m->lid[i] == lid && m->guid[i] != keep) {
			m->len--;
			m->guid[i] = m->guid[m->len];
			m->lid[i] = m->lid[m->len];
		} else {
			i++;
		}
	}
}

/*
 * Remember LID @lid for @guid, and for no other GUID. Return: 0, -EINVAL
 * for a LID that is not unicast, or -ENOMEM.
 */
int sm_lidmap_set(struct sm_lidmap *m, uint64_t guid, uint16_t lid)
{
	unsigned int cap;
	uint64_t *g;
	uint16_t *l;
	int i;

	if (!lid || lid > SM_LID_UCAST_MAX)
		return -EINVAL;
	sm_lidmap_drop_lid(m, lid, guid);
	i = sm_lidmap_index(m, guid);
	if (i >= 0) {
		m->lid[i] = lid;
		return 0;
	}
	if (m->len == m->cap) {
		cap = m->cap ? m->cap * 2 : 64;
		g = realloc(m->guid, cap * sizeof(*g));
		if (!g)
			return -ENOMEM;
		m->guid = g;
		l = realloc(m->lid, cap * sizeof(*l));
		if (!l)
			return -ENOMEM;
		m->lid = l;
		m->cap = cap;
	}
	m->guid[m->len] = guid;
	m->lid[m->len] = lid;
	m->len++;
	return 0;
}

/*
 * One line of a LID file: "GUID LID [LID]", numbers in C's notation, or a
 * comment (#) or nothing. Return: 1 with @guid and @lid set, 0 for no
 * entry, -EINVAL for anything else.
 */
static int sm_lidmap_parse(const char *line, uint64_t *guid, uint16_t *lid)
{
	unsigned long long g;
	unsigned long l, top;
	char *end;

	line += strspn(line, " \t");
	if (!*line || *line == '#' || *line == '\n')
		return 0;
	errno = 0;
	g = strtoull(line, &end, 0);
	if (errno || end == line || !g)
		return -EINVAL;
	line = end;
	l = strtoul(line, &end, 0);
	if (errno || end == line || !l || l > SM_LID_UCAST_MAX)
		return -EINVAL;
	line = end;
	top = strtoul(line, &end, 0);	/* opensm's max LID (LMC) */
	if (end != line && (errno || top < l))
		return -EINVAL;
	line = end + strspn(end, " \t\n");
	if (*line)
		return -EINVAL;
	*guid = g;
	*lid = l;
	return 1;
}

/*
 * Read a LID file into @m (entries add to those there). Return: 0,
 * -EINVAL with @bad_line set to the first line it cannot read (nothing of
 * the file is taken then), or -ENOMEM.
 */
int sm_lidmap_read(struct sm_lidmap *m, FILE *in, unsigned int *bad_line)
{
	struct sm_lidmap tmp;
	unsigned int n = 0;
	char line[256];
	uint64_t guid;
	uint16_t lid;
	int r = 0;

	sm_lidmap_init(&tmp);
	while (!r && fgets(line, sizeof(line), in)) {
		n++;
		r = strchr(line, '\n') || feof(in) ?
		    sm_lidmap_parse(line, &guid, &lid) : -EINVAL;
		if (r == 1)
			r = sm_lidmap_set(&tmp, guid, lid);
	}
	if (r < 0)
		*bad_line = n;
	for (n = 0; !r && n < tmp.len; n++)
		r = sm_lidmap_set(m, tmp.guid[n], tmp.lid[n]);
	sm_lidmap_free(&tmp);
	return r < 0 ? r : 0;
}

struct sm_lid_entry {
	uint64_t guid;
	uint16_t lid;
};

static int sm_by_lid(const void *a, const void *b)
{
	uint16_t x = ((const struct sm_lid_entry *)a)->lid;
	uint16_t y = ((const struct sm_lid_entry *)b)->lid;

	return (x > y) - (x < y);
}

/* Write @m as a LID file, ordered by LID. Return: 0, -ENOMEM or -EIO. */
int sm_lidmap_write(const struct sm_lidmap *m, FILE *out)
{
	struct sm_lid_entry *e = malloc((m->len + 1) * sizeof(*e));
	unsigned int i;

	if (!e)
		return -ENOMEM;
	for (i = 0; i < m->len; i++) {
		e[i].guid = m->guid[i];
		e[i].lid = m->lid[i];
	}
	qsort(e, m->len, sizeof(*e), sm_by_lid);
	fprintf(out, "# pib-sm: port GUID, LID (opensm's guid2lid format)\n");
	for (i = 0; i < m->len; i++)
		fprintf(out, "0x%016" PRIx64 " 0x%04x 0x%04x\n", e[i].guid,
			e[i].lid, e[i].lid);
	free(e);
	return ferror(out) ? -EIO : 0;
}

/*
 * The end ports of a node that get a LID: a switch's port 0, a CA's or a
 * router's ports with a link. Return: the next one from @p on, or -1.
 */
static int sm_next_endport(const struct sm_node *n, unsigned int p)
{
	if (sm_node_is_switch(n))
		return p == 0 ? 0 : -1;
	for (p = p ? p : 1; p <= n->num_ports; p++)
		if (n->port[p].peer != SM_NONE)
			return p;
	return -1;
}

#define SM_FOR_EACH_ENDPORT(f, i, p)					\
	for ((i) = 0; (i) < (f)->num_nodes; (i)++)			\
		for ((p) = sm_next_endport(&(f)->node[i], 0); (p) >= 0;	\
		     (p) = sm_next_endport(&(f)->node[i], (p) + 1))

/* The LID bitmap of one assignment. */
struct sm_lid_bits {
	uint8_t bit[(SM_LID_UCAST_MAX + 8) / 8];
};

static int sm_lid_test(const struct sm_lid_bits *b, unsigned int lid)
{
	return b->bit[lid / 8] & (1u << (lid % 8));
}

static void sm_lid_take(struct sm_lid_bits *b, unsigned int lid)
{
	b->bit[lid / 8] |= 1u << (lid % 8);
}

/* The lowest LID not in @taken (nor, if @reserved, in it). 0: none. */
static uint16_t sm_lid_free(const struct sm_lid_bits *taken,
			    const struct sm_lid_bits *reserved)
{
	unsigned int lid;

	for (lid = 1; lid <= SM_LID_UCAST_MAX; lid++)
		if (!sm_lid_test(taken, lid) &&
		    !(reserved && sm_lid_test(reserved, lid)))
			return lid;
	return 0;
}

/* Give @port (GUID @guid) a new LID. Return: 0, or -ENOSPC. */
static int sm_lid_new(struct sm_port *port, struct sm_lid_bits *taken,
		      const struct sm_lid_bits *reserved)
{
	uint16_t lid = sm_lid_free(taken, reserved);

	if (!lid)
		lid = sm_lid_free(taken, NULL);
	if (!lid)
		return -ENOSPC;
	sm_lid_take(taken, lid);
	port->lid = lid;
	return 0;
}

/*
 * Give every end port of @f a LID: the one @m remembers for its GUID
 * unless another port took it first, else a new one; @m then remembers
 * them all. Return: 0, -ENOSPC when the unicast LIDs ran out, or -ENOMEM.
 */
int sm_lids_assign(struct sm_fabric *f, struct sm_lidmap *m)
{
	struct sm_lid_bits taken, reserved;
	struct sm_port *port;
	unsigned int k;
	uint16_t lid;
	int i, p, r;

	memset(&taken, 0, sizeof(taken));
	memset(&reserved, 0, sizeof(reserved));
	for (k = 0; k < m->len; k++)
		sm_lid_take(&reserved, m->lid[k]);
	SM_FOR_EACH_ENDPORT(f, i, p) {
		port = &f->node[i].port[p];
		lid = sm_lidmap_get(m, port->guid);
		port->lid = lid && !sm_lid_test(&taken, lid) ? lid : 0;
		if (port->lid)
			sm_lid_take(&taken, lid);
	}
	f->top_lid = 0;
	SM_FOR_EACH_ENDPORT(f, i, p) {
		port = &f->node[i].port[p];
		if (!port->lid) {
			r = sm_lid_new(port, &taken, &reserved);
			if (r)
				return r;
		}
		r = sm_lidmap_set(m, port->guid, port->lid);
		if (r)
			return r;
		if (port->lid > f->top_lid)
			f->top_lid = port->lid;
	}
	return 0;
}
