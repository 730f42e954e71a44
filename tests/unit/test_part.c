// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of pib-sm's partitions (userspace-sm/sm_part.c): opensm's
 * partition file as pib-sm reads it (what it takes, what it refuses and
 * on which line), the default partition with and without a file, and the
 * P_Key table each port gets.
 */
#include <string.h>

#include "sm_part.h"
#include "unit.h"

#define SM_GUID	0x0002c90300000001ULL
#define H2	0x0002c90300000002ULL
#define H3	0x0002c90300000003ULL
#define SW	0x0002c90300000010ULL

static int parse(struct sm_parts *ps, const char *text, unsigned int *line,
		 const char **why)
{
	*line = 0;
	*why = NULL;
	return sm_parts_parse(ps, text, strlen(text), line, why);
}

/* The P_Key table of @guid (a CA's port unless @type says otherwise). */
static unsigned int pkeys(const struct sm_parts *ps, uint64_t guid,
			  unsigned int type, uint16_t *t)
{
	memset(t, 0, 16 * sizeof(*t));
	return sm_parts_pkeys(ps, guid, type, SM_GUID, t, 16);
}

static void test_no_file(void)
{
	struct sm_parts ps;
	uint16_t t[16];

	sm_parts_init(&ps);
	CHECK_EQ(ps.n, 1);
	CHECK_EQ(ps.part[0].pkey, SM_PART_DEFAULT_PKEY);
	CHECK(ps.part[0].ipoib);
	CHECK_EQ(pkeys(&ps, H2, SM_PART_NODE_CA, t), 1);
	CHECK_EQ(t[0], 0xffff);
	CHECK_EQ(pkeys(&ps, SW, SM_PART_NODE_SWITCH, t), 1);
	CHECK_EQ(t[0], 0xffff);
	sm_parts_free(&ps);
}

static void test_file(void)
{
	static const char text[] =
		"# two partitions besides the default\n"
		"Default=0x7fff, ipoib : ALL=full ;\n"
		"storage = 0x8001, ipoib, mtu=4, rate=3, sl=1, Q_Key=0x1234\n"
		"   : 0x0002c90300000002=full,\n"
		"     SELF=full, # a comment inside\n"
		"     0x0002c90300000003 ;\n"
		"mgmt=0x0002, defmember=full : ALL_SWITCHES, SELF; lim=3:ALL_CAS=limited;\n"
		"empty=0x10 : NONE ;\n";
	const struct sm_part *p;
	struct sm_parts ps;
	const char *why;
	unsigned int line;
	uint16_t t[16];

	sm_parts_init(&ps);
	CHECK_EQ(parse(&ps, text, &line, &why), 0);
	CHECK_EQ(ps.n, 5);
	CHECK(ps.file);
	p = sm_parts_find(&ps, 0x8001);
	CHECK(p != NULL);
	if (p) {
		CHECK(!strcmp(p->name, "storage"));
		CHECK_EQ(p->pkey, 0x0001);
		CHECK(p->ipoib);
		CHECK_EQ(p->mtu, 4);
		CHECK_EQ(p->rate, 3);
		CHECK_EQ(p->sl, 1);
		CHECK_EQ(p->qkey, 0x1234);
		CHECK_EQ(p->n, 3);
	}
	CHECK(sm_parts_find(&ps, 0x7fff) == &ps.part[0]);
	CHECK(sm_parts_find(&ps, 0x0004) == NULL);
	/* The SM's port: default, storage, mgmt (SELF), lim. */
	CHECK_EQ(pkeys(&ps, SM_GUID, SM_PART_NODE_CA, t), 4);
	CHECK_EQ(t[0], 0xffff);
	CHECK_EQ(t[1], 0x8001);
	CHECK_EQ(t[2], 0x8002);
	CHECK_EQ(t[3], 0x0003);
	/* host2 full in storage; host3 limited (defmember is limited). */
	CHECK_EQ(pkeys(&ps, H2, SM_PART_NODE_CA, t), 3);
	CHECK_EQ(t[1], 0x8001);
	CHECK_EQ(t[2], 0x0003);
	CHECK_EQ(pkeys(&ps, H3, SM_PART_NODE_CA, t), 3);
	CHECK_EQ(t[1], 0x0001);
	/* A switch: default and mgmt (ALL_SWITCHES, defmember=full). */
	CHECK_EQ(pkeys(&ps, SW, SM_PART_NODE_SWITCH, t), 2);
	CHECK_EQ(t[0], 0xffff);
	CHECK_EQ(t[1], 0x8002);
	/* A CA no one names: the default partition, and lim (ALL_CAS). */
	CHECK_EQ(pkeys(&ps, 0x99, SM_PART_NODE_CA, t), 2);
	CHECK_EQ(t[1], 0x0003);
	/* A table too small: the count says so, the first ones are there. */
	CHECK_EQ(sm_parts_pkeys(&ps, SM_GUID, SM_PART_NODE_CA, SM_GUID, t, 2), 4);
	CHECK_EQ(t[1], 0x8001);
	sm_parts_free(&ps);
}

/* A file without the default partition: every port a limited member of
 * it, the SM's port a full one (opensm's rule); no broadcast group. */
static void test_implicit_default(void)
{
	struct sm_parts ps;
	const char *why;
	unsigned int line;
	uint16_t t[16];

	sm_parts_init(&ps);
	CHECK_EQ(parse(&ps, "p1=0x0005, ipoib : ALL=full;", &line, &why), 0);
	CHECK_EQ(ps.n, 2);
	CHECK(!ps.part[0].ipoib);
	CHECK_EQ(pkeys(&ps, H2, SM_PART_NODE_CA, t), 2);
	CHECK_EQ(t[0], 0x7fff);
	CHECK_EQ(t[1], 0x8005);
	CHECK_EQ(pkeys(&ps, SM_GUID, SM_PART_NODE_CA, t), 2);
	CHECK_EQ(t[0], 0xffff);
	/* An empty file: the same default. */
	CHECK_EQ(parse(&ps, "  # nothing\n\n", &line, &why), 0);
	CHECK_EQ(ps.n, 1);
	CHECK_EQ(pkeys(&ps, H3, SM_PART_NODE_CA, t), 1);
	CHECK_EQ(t[0], 0x7fff);
	sm_parts_free(&ps);
}

/* Each refused file says why, on the right line, and leaves no file's
 * partitions behind. */
static void test_refused(void)
{
	static const struct {
		const char *text;
		unsigned int line;
		const char *why;
	} bad[] = {
		{ "a=0x1 : ALL", 1, "without ';'" },
		{ "a=0x1 : ALL;\n\nb=0x2 :\n ALL,\n SELF\n", 3, "without ';'" },
		{ "a=0x1 ALL;", 1, "without ':'" },
		{ "\n\nnokey : ALL;", 3, "without =PKEY" },
		{ "=0x1 : ALL;", 1, "without a name" },
		{ "a=0 : ALL;", 1, "P_Key" },
		{ "a=0x8000 : ALL;", 1, "P_Key" },
		{ "a=0x10000 : ALL;", 1, "P_Key" },
		{ "a=-1 : ALL;", 1, "P_Key" },
		{ "a=0x1, mtu=6, ipoib : ALL;", 1, "out of range" },
		{ "a=0x1, mtu=4 : ALL;", 1, "need ipoib" },
		{ "a=0x1, colour=red : ALL;", 1, "unknown flag" },
		{ "a=0x1, indx0 : ALL;", 1, "indx0" },
		{ "a=0x1, defmember=most : ALL;", 1, "defmember" },
		{ "a=0x1 : ALL=most;", 1, "=full, =limited or =both" },
		{ "a=0x1 : EVERYONE;", 1, "a member is" },
		{ "a=0x1 : 0x12zz;", 1, "not a number" },
		{ "a=0x1 : 0;", 1, "not a number, or 0" },
		{ "a=0x1 : ALL : SELF;", 1, "second ':'" },
		{ "a=0x1 : ALL;\nb=0x8001 : SELF;", 2, "defined twice" },
		{ "Default=0x7fff : ALL;\nD2=0xffff : SELF;", 2, "defined twice" },
		{ "a b=0x1 : ALL;", 1, "blank" },
		{ "a\tb=0x1 : ALL;", 1, "blank" },
	};
	struct sm_parts ps;
	const char *why;
	unsigned int i, line;
	char nul[] = "a=0x1 : ALL;";

	sm_parts_init(&ps);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_EQ(parse(&ps, bad[i].text, &line, &why), -1);
		if (!why || !strstr(why, bad[i].why) || line != bad[i].line)
			fprintf(stderr, "refused %u (%s): line %u, %s\n", i,
				bad[i].text, line, why ? why : "(null)");
		CHECK(why && strstr(why, bad[i].why));
		CHECK_EQ(line, bad[i].line);
		CHECK_EQ(ps.n, 1);
		CHECK(!ps.file);
	}
	nul[3] = '\0';
	CHECK_EQ(sm_parts_parse(&ps, nul, sizeof(nul) - 1, &line, &why), -1);
	CHECK(why && strstr(why, "NUL"));
	sm_parts_free(&ps);
}

/* What a file may ask for is bounded: partitions, members, size. */
static void test_bounds(void)
{
	size_t size = 2 * SM_PART_FILE_MAX;
	char *text = malloc(size);
	struct sm_parts ps;
	const char *why;
	unsigned int i, line;
	size_t n = 0;

	CHECK(text != NULL);
	if (!text)
		return;
	sm_parts_init(&ps);
	for (i = 1; i <= SM_PART_MAX; i++)
		n += sprintf(text + n, "p%u=%u : ALL;\n", i, i);
	CHECK_EQ(sm_parts_parse(&ps, text, n, &line, &why), -1);
	CHECK(why && strstr(why, "more than 64"));
	CHECK_EQ(line, SM_PART_MAX);
	n = sprintf(text, "big=0x1 :");
	for (i = 0; i <= SM_PART_MAX_MEMBERS; i++)
		n += sprintf(text + n, " 0x%x,", i + 1);
	text[n - 1] = ';';
	CHECK_EQ(sm_parts_parse(&ps, text, n, &line, &why), -1);
	CHECK(why && strstr(why, "too many members"));
	memset(text, ' ', size);
	CHECK_EQ(sm_parts_parse(&ps, text, SM_PART_FILE_MAX + 1, &line, &why), -1);
	CHECK(why && strstr(why, "larger than"));
	CHECK_EQ(sm_parts_parse(&ps, text, SM_PART_FILE_MAX, &line, &why), 0);
	sm_parts_free(&ps);
	free(text);
}

int main(void)
{
	test_no_file();
	test_file();
	test_implicit_default();
	test_refused();
	test_bounds();
	return unit_done("test_part");
}
