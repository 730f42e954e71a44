// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * fuzz_part: pib-sm's reader of opensm's partition file
 * (userspace-sm/sm_part.c), pure logic compiled on the host. Input: the
 * file's text, any bytes.
 *
 * What must hold: the text is taken or refused with a reason and a line
 * within the text; a refused text leaves the partitions of no file. A
 * taken one has the default partition first and at most SM_PART_MAX
 * partitions, no two with one P_Key, each P_Key within 0x0001..0x7fff and
 * found again by sm_parts_find(); every port's P_Key table (a CA, a
 * switch, the SM's own port, for GUIDs the text may name) has each
 * partition's key at most once, the default partition's first, and no
 * more entries than the room given.
 */
#include <stdint.h>
#include <string.h>

#include "fuzz_check.h"
#include "sm_part.h"

static void check_table(const struct sm_parts *ps, uint64_t guid,
			unsigned int type, uint64_t sm_guid)
{
	uint16_t t[SM_PART_MAX + 1];
	unsigned int n, i, k, room;

	for (room = 0; room <= SM_PART_MAX; room += 8) {
		memset(t, 0xa5, sizeof(t));
		n = sm_parts_pkeys(ps, guid, type, sm_guid, t, room);
		FUZZ_CHECK(n <= ps->n);
		FUZZ_CHECK(t[room] == 0xa5a5);
		for (i = 0; i < n && i < room; i++) {
			FUZZ_CHECK(sm_parts_find(ps, t[i]) != NULL);
			for (k = 0; k < i; k++)
				FUZZ_CHECK((t[k] & 0x7fff) != (t[i] & 0x7fff));
		}
		if (n && room)
			FUZZ_CHECK((t[0] & 0x7fff) == SM_PART_DEFAULT_PKEY ||
				   sm_part_membership(&ps->part[0], guid, type,
						      sm_guid) == 0);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sm_parts ps;
	unsigned int line = 0, lines = 1, i, k;
	const char *why = NULL;
	size_t j;

	for (j = 0; j < size; j++)
		lines += data[j] == '\n';
	sm_parts_init(&ps);
	if (sm_parts_parse(&ps, (const char *)data, size, &line, &why)) {
		FUZZ_CHECK(why != NULL);
		FUZZ_CHECK(line >= 1 && line <= lines);
		FUZZ_CHECK(ps.n == 1 && !ps.file);
	} else {
		FUZZ_CHECK(ps.file);
		FUZZ_CHECK(ps.n >= 1 && ps.n <= SM_PART_MAX);
		FUZZ_CHECK(ps.part[0].pkey == SM_PART_DEFAULT_PKEY);
		for (i = 0; i < ps.n; i++) {
			FUZZ_CHECK(ps.part[i].pkey >= 1 && ps.part[i].pkey <= 0x7fff);
			FUZZ_CHECK(sm_parts_find(&ps, ps.part[i].pkey) == &ps.part[i]);
			FUZZ_CHECK(ps.part[i].n <= SM_PART_MAX_MEMBERS);
			FUZZ_CHECK(ps.part[i].name[sizeof(ps.part[i].name) - 1] == '\0');
			for (k = 0; k < i; k++)
				FUZZ_CHECK(ps.part[k].pkey != ps.part[i].pkey);
		}
		for (i = 0; i < ps.n && i < 4; i++) {
			uint64_t g = ps.part[i].n ? ps.part[i].member[0].guid : 2;

			check_table(&ps, g, SM_PART_NODE_CA, 1);
			check_table(&ps, g, SM_PART_NODE_SWITCH, g);
		}
	}
	sm_parts_free(&ps);
	return 0;
}
