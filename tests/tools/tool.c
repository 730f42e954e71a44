// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* tool.c: what the cross-host test tools share (see tool.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include "tool.h"

double deadline;
const char *who = "";
const char *pair_name = "the socket pair";
void (*at_die)(void);

static const char *prog = "tool";
static int seconds;
static int tcp = -1;		/* the TCP connection, once there is one */

void begin(const char *name, int secs)
{
	prog = name;
	seconds = secs;
	deadline = now() + secs;
}

void die(const char *fmt, ...)
{
	va_list ap;

	if (at_die)
		at_die();
	printf("%s: FAILED: %s", prog, who);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	exit(1);
}

double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* ------------------------------------------------------------ options */

static void usage(const char *prog, const char *count_name)
{
	fprintf(stderr, "usage: %s --server|--client HOST -d DEV [-p PORT] [-n %s] [-t SECONDS]\n",
		prog, count_name);
	exit(2);
}

/* -@opt's @arg, a whole number from @min to @max, or bad usage. */
static int number(char opt, const char *arg, int min, int max,
		  const char *prog, const char *count_name)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < min || v > max) {
		fprintf(stderr, "%s: -%c '%s': not a whole number from %d to %d\n",
			prog, opt, arg, min, max);
		usage(prog, count_name);
	}
	return (int)v;
}

/*
 * The command line of @prog into @o, which holds the tool's defaults:
 * exactly one of --server and --client HOST, -d DEV, and -n (@count_name
 * in the usage line) and -t at least 1. Bad usage exits with status 2.
 */
void options(const char *prog, int argc, char **argv, const char *count_name,
	     struct tool_opts *o)
{
	static const struct option opts[] = {
		{ "server", no_argument, NULL, 'S' },
		{ "client", required_argument, NULL, 'C' },
		{ NULL, 0, NULL, 0 },
	};
	int c, role = 0;

	while ((c = getopt_long(argc, argv, "d:p:n:t:", opts, NULL)) != -1) {
		if (c == 'S' || c == 'C') {
			role++;
			o->host = c == 'C' ? optarg : NULL;
		} else if (c == 'd') {
			o->dev = optarg;
		} else if (c == 'p') {
			o->port = number(c, optarg, 1, 65535, prog, count_name);
		} else if (c == 'n') {
			o->count = number(c, optarg, 1, INT_MAX, prog,
					  count_name);
		} else if (c == 't') {
			o->seconds = number(c, optarg, 1, INT_MAX, prog,
					    count_name);
		} else {
			usage(prog, count_name);
		}
	}
	if (role != 1 || !o->dev || o->count < 1 || o->seconds < 1 ||
	    optind != argc)
		usage(prog, count_name);
}

/* ------------------------------------------------------------ sockets */

/* Bound @fd's next blocking call by what is left of the deadline. */
static void bound(int fd)
{
	double left = deadline - now();
	struct timeval tv;

	if (left <= 0)
		die("the deadline passed");
	tv.tv_sec = (time_t)left;
	tv.tv_usec = (suseconds_t)((left - tv.tv_sec) * 1e6);
	if (!tv.tv_sec && !tv.tv_usec)
		tv.tv_usec = 1;		/* (0 would be no bound at all) */
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

/* @len bytes over @fd, sent (@out) or received. */
void io(int fd, void *buf, size_t len, int out)
{
	uint8_t *p = buf;
	ssize_t n;

	while (len) {
		bound(fd);
		n = out ? send(fd, p, len, MSG_NOSIGNAL) : recv(fd, p, len, 0);
		if (n <= 0)
			die("%s: %s", fd == tcp ? "the TCP connection" : pair_name,
			    !n ? "closed" : errno == EAGAIN ?
			    "nothing by the deadline" : strerror(errno));
		p += n;
		len -= n;
	}
}

/* One step's byte: send it, or receive it and see it is @want. */
void say(int fd, char c)
{
	io(fd, &c, 1, 1);
}

void expect(int fd, char want, const char *what)
{
	char c;

	io(fd, &c, 1, 0);
	if (c != want)
		die("%s: the peer said '%c'", what, c);
}

/* The server's end: one client on TCP port @port. */
static int tcp_listen(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	int one = 1, l, fd;

	l = socket(AF_INET, SOCK_STREAM, 0);
	if (l < 0 || setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 1))
		die("listening on TCP port %d: %s", port, strerror(errno));
	bound(l);
	fd = accept(l, NULL, NULL);
	if (fd < 0)
		die("no client within %d s: %s", seconds, strerror(errno));
	close(l);
	return fd;
}

/* The client's end: tried every 0.2 s until the deadline. */
static int tcp_dial(const char *host, int port)
{
	struct addrinfo hint = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM };
	struct addrinfo *ai;
	char service[16];
	int fd = -1;

	snprintf(service, sizeof(service), "%d", port);
	if (getaddrinfo(host, service, &hint, &ai))
		die("cannot resolve %s", host);
	while (fd < 0 && now() < deadline) {
		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (fd >= 0)
			bound(fd);
		if (fd >= 0 && !connect(fd, ai->ai_addr, ai->ai_addrlen))
			break;
		if (fd >= 0)
			close(fd);
		fd = -1;
		usleep(200000);
	}
	freeaddrinfo(ai);
	if (fd < 0)
		die("cannot connect to %s port %d", host, port);
	return fd;
}

/* The connection: to @host, or (NULL) from the client; on TCP port @port. */
int tcp_connect(const char *host, int port)
{
	int one = 1;

	tcp = host ? tcp_dial(host, port) : tcp_listen(port);
	setsockopt(tcp, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return tcp;
}

/* ---------------------------------------------------------------- verbs */

/* The device @name, opened. */
struct ibv_context *dev_open(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	int i;

	for (i = 0; list && list[i]; i++)
		if (!ctx && !strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	if (list)
		ibv_free_device_list(list);
	if (!ctx)
		die("no device %s", name);
	return ctx;
}

/* The LID of @ctx's port 1. */
uint16_t port_lid(struct ibv_context *ctx)
{
	struct ibv_port_attr pa;

	if (ibv_query_port(ctx, 1, &pa))
		die("ibv_query_port: %s", strerror(errno));
	return pa.lid;
}

int dev_inject(const char *dev, const char *cmd)
{
	char path[256];
	size_t len = strlen(cmd);
	ssize_t n;
	int fd, err = 0;

	snprintf(path, sizeof(path), "/sys/kernel/debug/pib/%s/inject", dev);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return errno;
	n = write(fd, cmd, len);
	if (n < 0)
		err = errno;
	else if ((size_t)n != len)
		err = EIO;
	close(fd);
	return err;
}
