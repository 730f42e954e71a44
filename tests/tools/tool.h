/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * tool.h: what the cross-host test tools (pib-memops, pib-xrc, pib-apm,
 * pib-odp) share, in tool.c. Each tool is a server and a client on two
 * hosts, which talk over one TCP connection, step by step, one byte each:
 *
 *   options      the command line, the same in each tool:
 *                  PROG --server|--client HOST -d DEV [-p PORT] [-n COUNT]
 *                  [-t SECONDS]
 *                into a struct tool_opts that holds the tool's defaults;
 *                bad usage prints the usage line and exits with status 2;
 *   begin        names the tool for die() and starts its clock: nothing
 *                here waits past the deadline, -t seconds from then;
 *   die          "PROG: FAILED: <who><reason>" and exit status 1, after
 *                the tool's at_die() (what it must undo: a child, a
 *                file, a fault it injected);
 *   now          the monotonic clock, in seconds;
 *   tcp_connect  the connection: the server listens on the port and takes
 *                one client, the client tries until the deadline;
 *   io           @len bytes over @fd each way, every call bounded by what
 *                is left of the deadline (the TCP connection, or pib-xrc's
 *                socket pair, named in a failure by pair_name);
 *   say, expect  one step's byte: send it, or receive it and see it is
 *                the one wanted;
 *   dev_open     the device by its name, opened;
 *   port_lid     the LID of its port 1;
 *   dev_inject   one command to the device's error injection
 *                (/sys/kernel/debug/pib/DEV/inject; root only): 0, or
 *                the errno.
 */
#ifndef PIB_TOOL_H
#define PIB_TOOL_H

#include <stddef.h>
#include <stdint.h>
#include <infiniband/verbs.h>

extern double deadline;		/* now() when begin() was, plus -t */
extern const char *who;		/* after "FAILED: " (""), e.g. "process B: " */
extern const char *pair_name;	/* io()'s name for an fd not the TCP one */
extern void (*at_die)(void);	/* die() calls it first, if set */

/* The command line; options() parses it over the tool's defaults. */
struct tool_opts {
	const char *host;	/* --client HOST; NULL: --server */
	const char *dev;	/* -d: the device's name */
	int port;		/* -p: the TCP port */
	int count;		/* -n: rounds (pib-apm: messages) */
	int seconds;		/* -t: begin() to the deadline */
};

void options(const char *prog, int argc, char **argv, const char *count_name,
	     struct tool_opts *o);

void begin(const char *prog, int seconds);
void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
double now(void);
int tcp_connect(const char *host, int port);
void io(int fd, void *buf, size_t len, int out);
void say(int fd, char c);
void expect(int fd, char want, const char *what);
struct ibv_context *dev_open(const char *name);
uint16_t port_lid(struct ibv_context *ctx);
int dev_inject(const char *dev, const char *cmd);

#endif
