/* SPDX-License-Identifier: GPL-2.0 */
/* modsig.h - module signature enforcement (Secure Boot, lockdown): is it on, is a module file
 * signed and by a key the kernel trusts, why a load was refused and the fix, and the record of it. */
#ifndef RXECTL_MODSIG_H
#define RXECTL_MODSIG_H

#include <stdbool.h>
#include <stddef.h>

enum lockdown_mode {
	LOCKDOWN_UNKNOWN = -1,	/* no /sys/kernel/security/lockdown (no securityfs, no lockdown LSM) */
	LOCKDOWN_NONE = 0,
	LOCKDOWN_INTEGRITY,
	LOCKDOWN_CONFIDENTIALITY,
};

/* What makes the kernel refuse a module without a trusted signature. */
struct modsig_policy {
	int lockdown;		/* enum lockdown_mode: /sys/kernel/security/lockdown's bracketed word */
	int sig_enforce;	/* /sys/module/module/parameters/sig_enforce: 1 Y, 0 N, -1 unknown */
	int secure_boot;	/* EFI SecureBoot variable: 1 on, 0 off (also: not an EFI boot), -1 unknown */
	char cmdline[64];	/* the kernel command-line words that turn it on ("lockdown=integrity"), or "" */
};

/* The bracketed mode of /sys/kernel/security/lockdown's text ("none [integrity] confidentiality"). */
int modsig_lockdown_parse(const char *text);
const char *modsig_lockdown_str(int mode);	/* "none", "integrity", "confidentiality", "unknown" */
/* sig_enforce's text: "Y"/"1" 1, "N"/"0" 0, else -1. */
int modsig_sig_enforce_parse(const char *text);
/* An efivarfs variable's bytes (4 bytes of attributes, then the value): SecureBoot 1/0, -1 malformed. */
int modsig_secure_boot_parse(const unsigned char *data, size_t len);
/* The words of a kernel command line that enforce signatures (lockdown=..., module.sig_enforce=1),
 * space-separated into buf ("" when none). */
void modsig_cmdline_words(const char *cmdline, char *buf, size_t len);

void modsig_policy_read(struct modsig_policy *p);
/* Lockdown integrity or confidentiality, or sig_enforce: only trusted signatures load. */
bool modsig_enforced(const struct modsig_policy *p);
/* "lockdown integrity from the kernel command line (lockdown=integrity), sig_enforce N, Secure Boot off" */
void modsig_policy_describe(const struct modsig_policy *p, char *buf, size_t len);

/* The marker the kernel's sign-file appends after a module's signature. */
#define MODSIG_MARKER "~Module signature appended~\n"
/* Does a module file's content end with the marker (data: the file's last len bytes or all of it)? */
bool modsig_marker_at_end(const void *data, size_t len);

/* A module file's signature. */
struct modsig_file {
	int has_sig;		/* 1 signed, 0 unsigned, -1 cannot tell (unreadable) */
	char signer[256];	/* libkmod's "signer" (the certificate's issuer CN), "" if none */
	char key[256];		/* libkmod's "sig_key", "" if none */
	int trusted;		/* 1 a trusted keyring holds a key by that signer, 0 none does, -1 cannot tell */
	char keyring[64];	/* trusted: the keyring; cannot tell: why, as a clause */
};
void modsig_file_read(const char *path, struct modsig_file *f);

/* One line of /proc/keys: serial, type (truncated to 9 characters there: "asymmetri"), and
 * the description with what the key type appends ("NAME: SKID: X509.rsa 3720f629 []").
 * 0, or -EINVAL for a line that is not one. */
struct proc_key {
	unsigned int serial;
	char type[16];
	char desc[512];
};
int modsig_proc_key_parse(const char *line, struct proc_key *k);
/* Is this asymmetric key's description ("[O: ]CN: SKID...") the module's signer (the CN, or the
 * whole name) or its key id (the SKID, sig_key without colons, any case)? */
bool modsig_key_matches(const char *desc, const char *signer, const char *key);
/* The keyrings the kernel checks a module's signature against. */
extern const char *const modsig_trusted_keyrings[];
/* 1 when a trusted keyring (or one linked into it) holds a key matching signer/key (its name in
 * `where`), 0 when none does, -1 when the keyrings are not visible here (why in `where`). */
int modsig_signer_trusted(const char *signer, const char *key, char *where, size_t len);

/*
 * Is err (a failed load of a module file) the kernel's signature policy?  Then cause gets why (no
 * trailing period: "it is unsigned, and this kernel loads only modules signed by a key it trusts
 * (lockdown integrity, ...)"), fix what to do (DKMS's key and mokutil, or the kernel's own signed
 * rdma_rxe when kernel_alt), and 1 is returned; else 0.  root: the load ran with privilege
 * (an EPERM without it is that).  Pure: every fact is an argument.
 */
int modsig_explain(int err, bool root, const struct modsig_policy *p, const struct modsig_file *f,
		   bool kernel_alt, char *cause, size_t clen, char *fix, size_t flen);
/* The fix alone, for a file the kernel will refuse (doctor, before any load). */
void modsig_fix(const struct modsig_policy *p, const struct modsig_file *f, bool kernel_alt,
		char *fix, size_t len);

/* The record of the last refused load on this boot (/run/rxectl/module-refused): the file, its
 * size and mtime then, the errno.  record: best effort.  get: 1 when there is one and the file is
 * unchanged since (a rebuilt or re-signed file is another file), else 0.  clear_if: remove the
 * record when it names path (it loaded). */
void modsig_refusal_record(const char *path, int err);
int modsig_refusal_get(char *path, size_t len, int *err);
void modsig_refusal_clear_if(const char *path);
/* The record's line: "ERRNO MTIME SIZE PATH"; 0 or -EINVAL. */
int modsig_refusal_parse(const char *line, int *err, long long *mtime, long long *size,
			 char *path, size_t len);

#endif
