// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * pib-smp: send one SMP exactly as told and print the response's status and
 * data. smpquery and smpdump only send well-formed Gets; the tests also need
 * Sets of any attribute and malformed requests (bad method, class version).
 *
 *   pib-smp [-C CA] [-P PORT] [-m METHOD] [-V CLASS_VERSION] [-t MS]
 *           [-y M_KEY] (-D PATH | -L LID) ATTR MOD [DATA]
 *
 * PATH is a directed route like 0,1,65; ATTR, MOD and METHOD are numbers
 * (0x.. allowed); DATA is hex for the first bytes of the SMP data. Prints
 * "status 0xNNNN" (without the D bit) and the 64 data bytes of the response;
 * exits 0 on a response, 1 on none, 2 on bad usage.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <infiniband/umad.h>

#define SMP_LEN		256
#define SMP_DATA	64
#define SMP_DATA_LEN	64
#define SMP_PATH	128
#define SMP_MKEY	24
#define CLASS_LID	0x01
#define CLASS_DR	0x81
#define PERMISSIVE_LID	0xffff

struct opts {
	const char *ca;
	int port, method, version, timeout, lid, hops;
	uint8_t path[64];
	unsigned int attr, mod;
	unsigned long long mkey;
	const char *data;
};

static void usage(void)
{
	fprintf(stderr, "usage: pib-smp [-C CA] [-P PORT] [-m METHOD] [-V VERSION] "
		"[-t MS] [-y M_KEY] (-D PATH | -L LID) ATTR MOD [DATA]\n");
	exit(2);
}

static unsigned long long number(const char *s, unsigned long long max)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || end == s || v > max) {
		fprintf(stderr, "pib-smp: bad number '%s'\n", s);
		exit(2);
	}
	return v;
}

static void parse_path(struct opts *o, char *s)
{
	char *tok, *save = NULL;

	o->hops = -1;
	for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (o->hops >= 63)
			usage();
		o->path[++o->hops] = number(tok, 255);
	}
	if (o->hops < 0)
		usage();
}

static void parse(struct opts *o, int argc, char **argv)
{
	int c;

	*o = (struct opts){ .port = 0, .method = 1, .version = 1,
			    .timeout = 2000, .lid = -1, .hops = -1 };
	while ((c = getopt(argc, argv, "C:P:m:V:t:y:D:L:")) != -1) {
		switch (c) {
		case 'C': o->ca = optarg; break;
		case 'P': o->port = number(optarg, 254); break;
		case 'm': o->method = number(optarg, 255); break;
		case 'V': o->version = number(optarg, 255); break;
		case 't': o->timeout = number(optarg, 600000); break;
		case 'y': o->mkey = number(optarg, ~0ULL); break;
		case 'D': parse_path(o, optarg); break;
		case 'L': o->lid = number(optarg, 0xbfff); break;
		default: usage();
		}
	}
	if ((o->lid < 0) == (o->hops < 0) || argc - optind < 2 || argc - optind > 3)
		usage();
	o->attr = number(argv[optind], 0xffff);
	o->mod = number(argv[optind + 1], 0xffffffff);
	o->data = argc - optind == 3 ? argv[optind + 2] : "";
	if (strlen(o->data) > 2 * SMP_DATA_LEN || strlen(o->data) % 2)
		usage();
}

static void build(const struct opts *o, uint8_t *smp, uint64_t tid)
{
	size_t i;

	memset(smp, 0, SMP_LEN);
	smp[0] = 1;					/* BaseVersion */
	smp[1] = o->hops >= 0 ? CLASS_DR : CLASS_LID;
	smp[2] = o->version;
	smp[3] = o->method;
	if (o->hops >= 0)
		smp[7] = o->hops;			/* HopCount */
	for (i = 0; i < 8; i++)
		smp[8 + i] = tid >> (56 - 8 * i);
	smp[16] = o->attr >> 8;
	smp[17] = o->attr;
	for (i = 0; i < 4; i++)
		smp[20 + i] = o->mod >> (24 - 8 * i);
	for (i = 0; i < 8; i++)
		smp[SMP_MKEY + i] = o->mkey >> (56 - 8 * i);
	if (o->hops >= 0) {
		smp[32] = smp[33] = smp[34] = smp[35] = 0xff;	/* DrSLID, DrDLID */
		memcpy(smp + SMP_PATH, o->path, o->hops + 1);
	}
	for (i = 0; i < strlen(o->data) / 2; i++) {
		if (sscanf(o->data + 2 * i, "%2hhx", &smp[SMP_DATA + i]) != 1) {
			fprintf(stderr, "pib-smp: bad data '%s'\n", o->data);
			exit(2);
		}
	}
}

int main(int argc, char **argv)
{
	/* struct ib_user_mad and the MAD behind it: umad_size() is too short. */
	static uint64_t umad[128];
	int fd, agent, len = SMP_LEN, i;
	uint8_t *smp, *resp;
	struct opts o;

	parse(&o, argc, argv);
	if (umad_init() < 0)
		return perror("pib-smp: umad_init"), 2;
	fd = umad_open_port(o.ca, o.port);
	if (fd < 0)
		return fprintf(stderr, "pib-smp: cannot open %s port %d\n",
			       o.ca ? o.ca : "(any)", o.port), 2;
	agent = umad_register(fd, o.hops >= 0 ? CLASS_DR : CLASS_LID, 1, 0, NULL);
	if (agent < 0)
		return fprintf(stderr, "pib-smp: cannot register an SMP agent\n"), 2;
	smp = umad_get_mad(umad);
	if (smp + SMP_LEN > (uint8_t *)umad + sizeof(umad))
		return fprintf(stderr, "pib-smp: struct ib_user_mad too big\n"), 2;
	build(&o, smp, (uint64_t)getpid() << 8);
	umad_set_addr(umad, o.hops >= 0 ? PERMISSIVE_LID : o.lid, 0, 0, 0);
	if (umad_send(fd, agent, umad, SMP_LEN, o.timeout, 0) < 0)
		return perror("pib-smp: umad_send"), 2;
	/* The send times out by itself; the wait is bounded all the same. */
	if (umad_recv(fd, umad, &len, 2 * o.timeout + 1000) < 0 ||
	    umad_status(umad))
		return fprintf(stderr, "pib-smp: no response\n"), 1;
	resp = umad_get_mad(umad);
	/* The status without a directed-route SMP's D bit. */
	printf("status 0x%04x\n", (resp[4] & 0x7f) << 8 | resp[5]);
	for (i = 0; i < SMP_DATA_LEN; i++)
		printf("%02x%s", resp[SMP_DATA + i], i % 16 == 15 ? "\n" : " ");
	umad_unregister(fd, agent);
	umad_close_port(fd);
	return 0;
}
