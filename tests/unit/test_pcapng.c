// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of the pcapng blocks of pib's packet capture (pib_pcapng.h):
 * the section and interface headers, packets of every padding, a walk of
 * the blocks as a reader does it; and, where tshark is installed, that
 * Wireshark reads the file and decodes its packets as InfiniBand.
 */
#define _POSIX_C_SOURCE 200809L	/* mkstemp, popen */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pib_hdr.h"
#include "pib_pcapng.h"
#include "unit.h"

static __u8 file[1 << 16];

static __u32 get16(const __u8 *p)
{
	return p[0] | p[1] << 8;
}

static __u32 get32(const __u8 *p)
{
	return get16(p) | get16(p + 2) << 16;
}

/* A sealed RC SEND Only of @payload bytes, LID 0x11 to 0x22, QP 0x45. */
static unsigned int build(__u8 *p, unsigned int payload)
{
	struct pib_lrh lrh = { .lnh = PIB_LNH_IBA_LOCAL, .dlid = 0x22,
			       .slid = 0x11 };
	struct pib_bth bth = { .opcode = IB_OPCODE_RC_SEND_ONLY, .pkey = 0xffff,
			       .dest_qp = 0x45, .psn = 7,
			       .pad = (4 - payload % 4) % 4 };
	unsigned int off = PIB_LRH_LEN + PIB_BTH_LEN;

	memset(p, 0, PIB_MAX_PKT_LEN);
	pib_lrh_pack(p, &lrh);
	pib_bth_pack(p + PIB_LRH_LEN, &bth);
	memset(p + off, 0x5a, payload);
	return pib_pkt_seal(p, off + payload + bth.pad);
}

/* Append an EPB of @len bytes of @pkt; returns the new end. */
static __u32 add_packet(__u32 at, const __u8 *pkt, __u32 len, __u64 ts,
			__u32 dir)
{
	__u32 h = PIB_PCAPNG_EPB_HEAD;

	pib_pcapng_epb_head(file + at, ts, len);
	memcpy(file + at + h, pkt, len);
	return at + h + len + pib_pcapng_epb_tail(file + at + h + len, len, dir);
}

static void test_header(void)
{
	__u32 n = pib_pcapng_header(file, "pibeth0"), idb;

	CHECK_EQ(get32(file), PIB_PCAPNG_SHB);
	CHECK_EQ(get32(file + 4), 28);
	CHECK_EQ(get32(file + 8), PIB_PCAPNG_MAGIC);
	CHECK_EQ(get16(file + 12), 1);
	CHECK_EQ(get32(file + 24), 28);
	idb = get32(file + 28 + 4);
	CHECK_EQ(get32(file + 28), PIB_PCAPNG_IDB);
	CHECK_EQ(n, 28 + idb);
	CHECK_EQ(idb % 4, 0);
	CHECK_EQ(get32(file + 28 + idb - 4), idb);
	CHECK_EQ(get16(file + 28 + 8), PIB_PCAPNG_LINKTYPE_UPPER_PDU);
	/* if_name, then if_tsresol 9, then the end of options */
	CHECK_EQ(get16(file + 28 + 16), PIB_PCAPNG_OPT_IF_NAME);
	CHECK_EQ(get16(file + 28 + 18), 7);
	CHECK(!memcmp(file + 28 + 20, "pibeth0", 7));
	CHECK_EQ(get16(file + 28 + 28), PIB_PCAPNG_OPT_IF_TSRESOL);
	CHECK_EQ(file[28 + 32], 9);
	CHECK_EQ(get32(file + 28 + 36), PIB_PCAPNG_OPT_END);
	CHECK(n <= PIB_PCAPNG_HDR_MAX);
	/* A name at the limit fits, a longer one is cut there. */
	memset(file, 0, sizeof(file));
	CHECK_EQ(pib_pcapng_header(file, "0123456789012345678901234567890123456789012345678901234567890123456789"),
		 PIB_PCAPNG_HDR_MAX);
	CHECK_EQ(get16(file + 28 + 18), PIB_PCAPNG_NAME_MAX);
}

/* Every block's two lengths agree and the blocks tile the file. */
static unsigned int walk(__u32 end, __u32 *dirs)
{
	__u32 at = 0, len, cap, n = 0;

	while (at < end) {
		len = get32(file + at + 4);
		CHECK(len >= 12 && len % 4 == 0 && at + len <= end);
		if (len < 12 || at + len > end)
			return n;
		CHECK_EQ(get32(file + at + len - 4), len);
		if (get32(file + at) == PIB_PCAPNG_EPB) {
			cap = get32(file + at + 20);
			CHECK_EQ(cap, get32(file + at + 24));
			CHECK_EQ(len, pib_pcapng_epb_len(cap - PIB_PCAPNG_PDU_PREFIX));
			/* the tag naming the dissector, then the end tag */
			CHECK(!memcmp(file + at + 28, "\0\x0c\0\x0cinfiniband\0\0\0\0\0\0", 20));
			/* the epb_flags option right after the padded packet */
			dirs[n++] = get32(file + at + 28 + pib_pcapng_pad4(cap) + 4);
		}
		at += len;
	}
	CHECK_EQ(at, end);
	return n;
}

static void test_packets(__u32 *end)
{
	static __u8 pkt[PIB_MAX_PKT_LEN];
	__u32 at = pib_pcapng_header(file, "pibeth0"), dirs[8] = { 0 };
	__u64 ts = 1700000000123456789ULL;
	unsigned int i, len;

	/* Payloads of each padding, 0 to 3 bytes of pad after the packet. */
	for (i = 0; i < 4; i++) {
		len = build(pkt, 13 + i);
		at = add_packet(at, pkt, len, ts + i,
				i % 2 ? PIB_PCAPNG_INBOUND : PIB_PCAPNG_OUTBOUND);
	}
	CHECK_EQ(walk(at, dirs), 4);
	for (i = 0; i < 4; i++)
		CHECK_EQ(dirs[i], i % 2 ? PIB_PCAPNG_INBOUND : PIB_PCAPNG_OUTBOUND);
	/* the first EPB's timestamp, split in two halves */
	i = pib_pcapng_header(file, "pibeth0");
	CHECK_EQ(((__u64)get32(file + i + 12) << 32) | get32(file + i + 16), ts);
	CHECK_EQ(get32(file + i + 20), PIB_PCAPNG_PDU_PREFIX + build(pkt, 13));
	*end = at;
}

/* Wireshark reads the file and decodes each packet as InfiniBand. */
static void test_tshark(__u32 end)
{
	char path[] = "/tmp/pib-pcapng-XXXXXX", cmd[256], line[512];
	unsigned int sends = 0, lines = 0;
	FILE *out;
	int fd;

	if (system("command -v tshark >/dev/null 2>&1")) {
		printf("test_pcapng: tshark not installed, not decoded\n");
		return;
	}
	fd = mkstemp(path);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	CHECK_EQ(write(fd, file, end), end);
	close(fd);
	snprintf(cmd, sizeof(cmd),
		 "tshark -r %s -T fields -e frame.protocols -e infiniband.bth.opcode 2>/dev/null",
		 path);
	out = popen(cmd, "r");
	CHECK(out);
	while (out && fgets(line, sizeof(line), out)) {
		lines++;
		if (strstr(line, "infiniband") && strstr(line, "\t4"))
			sends++;	/* BTH opcode 4: RC SEND Only */
		else
			fprintf(stderr, "test_pcapng: tshark: %s", line);
	}
	if (out)
		CHECK_EQ(pclose(out), 0);
	CHECK_EQ(lines, 4);
	CHECK_EQ(sends, 4);
	if (!unit_failures) unlink(path);
}

int main(void)
{
	__u32 end = 0;

	test_header();
	test_packets(&end);
	test_tshark(end);
	return unit_done("test_pcapng");
}
