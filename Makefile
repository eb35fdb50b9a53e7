# SPDX-License-Identifier: GPL-2.0
# Top-level build: the rxectl CLI, its tests, the bundled driver, and installation.

PREFIX ?= /usr
DESTDIR ?=
SBINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
SYSCONFDIR ?= /etc
RUNSTATEDIR ?= /run
PKG_CONFIG ?= pkg-config

WITH_SYSTEMDUNITS ?= $(shell $(PKG_CONFIG) --exists systemd 2>/dev/null && echo yes || echo no)
SYSTEMDUNITDIR ?= $(shell $(PKG_CONFIG) --variable=systemdsystemunitdir systemd 2>/dev/null || echo $(PREFIX)/lib/systemd/system)
WITH_UDEVRULES ?= yes
UDEVDIR ?= $(shell $(PKG_CONFIG) --variable=udevdir udev 2>/dev/null || echo $(PREFIX)/lib/udev)

VERSION := $(shell git describe --always --dirty --tags 2>/dev/null || cat VERSION 2>/dev/null || echo 0.1.0)

LIBS_PC := libmnl libnl-3.0 libnl-route-3.0 libkmod libsystemd libibverbs librdmacm json-c
PC_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(LIBS_PC) 2>/dev/null)
PC_LIBS := $(shell $(PKG_CONFIG) --libs $(LIBS_PC) 2>/dev/null)

CFLAGS ?= -O2 -g
CFLAGS += -std=gnu11 -Wall -Wextra -Wno-unused-parameter -Werror=implicit-function-declaration \
	  -MMD -MP -D_GNU_SOURCE -DRXECTL_VERSION='"$(VERSION)"' \
	  -DRXECTL_SYSCONFDIR='"$(SYSCONFDIR)"' -DRXECTL_RUNSTATEDIR='"$(RUNSTATEDIR)"' \
	  -Icli $(PC_CFLAGS)
LDLIBS += $(PC_LIBS) -lpthread

ifeq ($(V),1)
Q :=
quiet = @true
else
Q := @
quiet = @printf '  %-6s %s\n'
endif

# Every cli/*.c is part of rxectl; cli/rxectl.c holds main().
CLI_SRCS := $(wildcard cli/*.c)
CLI_OBJS := $(CLI_SRCS:.c=.o)
LIB_OBJS := $(filter-out cli/rxectl.o,$(CLI_OBJS))
# Each tests/unit/test_*.c is a stand-alone unit test linked against the CLI objects.
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:.c=)

KVER ?= $(shell tests/vm/default-kver)

all: rxectl

rxectl: $(CLI_OBJS)
	$(quiet) LINK $@
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

cli/%.o: cli/%.c
	$(quiet) CC $@
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

tests/unit/test_%: tests/unit/test_%.c $(LIB_OBJS)
	$(quiet) CC $@
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -Itests/unit $(LDFLAGS) -o $@ $^ $(LDLIBS)

unit: $(UNIT_BINS)

# KVER: a kernel version or a test bed row (tests/vm/rows: 6.1, 6.1-cloud, 6.12, 6.12-cloud,
# newest); other kernels than the default build in driver/build/KVER/.
driver:
	tests/vm/kernel-row build $(KVER)

deps:
	./scripts/setup-deps

# check: every test. Host tests first (fast), then the VM test bed.
check: rxectl unit
	tests/run-all

# check-kernels: the bundled driver and rxectl on every other kernel row (tests/vm/rows).
check-kernels: rxectl
	tests/vm/check-kernels

check-host: rxectl unit
	tests/run-all --host-only

install: rxectl
	install -D -m 0755 rxectl $(DESTDIR)$(SBINDIR)/rxectl
	install -D -m 0644 man/rxectl.8 $(DESTDIR)$(MANDIR)/man8/rxectl.8
	install -D -m 0644 man/rxe.conf.5 $(DESTDIR)$(MANDIR)/man5/rxe.conf.5
	@for f in man/*.8 man/*.5; do [ -f "$$f" ] || continue; \
		sec=$${f##*.}; install -D -m 0644 "$$f" "$(DESTDIR)$(MANDIR)/man$$sec/$${f#man/}"; done
	@if [ -f etc/rxe.conf ] && [ ! -e $(DESTDIR)$(SYSCONFDIR)/rxe/rxe.conf ]; then \
		install -D -m 0644 etc/rxe.conf $(DESTDIR)$(SYSCONFDIR)/rxe/rxe.conf; fi
# opt-in files (rxe@.service(8)): examples under share/rxectl, active only once an operator
# applies them; the memlock limit for users is scoped to the group rdma
	install -D -m 0644 systemd/modules-load.conf $(DESTDIR)$(PREFIX)/share/rxectl/modules-load.conf
	install -D -m 0644 systemd/memlock.conf $(DESTDIR)$(PREFIX)/share/rxectl/memlock.conf
	install -D -m 0644 etc/security/limits.d/50-rxe-memlock.conf \
		$(DESTDIR)$(SYSCONFDIR)/security/limits.d/50-rxe-memlock.conf
ifeq ($(WITH_SYSTEMDUNITS),yes)
	@for f in systemd/*.service systemd/*.target; do [ -f "$$f" ] || continue; \
		mkdir -p "$(DESTDIR)$(SYSTEMDUNITDIR)"; \
		sed 's|/usr/sbin/rxectl|$(SBINDIR)/rxectl|g' "$$f" > "$(DESTDIR)$(SYSTEMDUNITDIR)/$${f#systemd/}"; \
		chmod 0644 "$(DESTDIR)$(SYSTEMDUNITDIR)/$${f#systemd/}"; done
endif
ifeq ($(WITH_UDEVRULES),yes)
	@for f in udev/*.rules; do [ -f "$$f" ] || continue; \
		mkdir -p "$(DESTDIR)$(UDEVDIR)/rules.d"; \
		sed 's|/usr/sbin/rxectl|$(SBINDIR)/rxectl|g' "$$f" > "$(DESTDIR)$(UDEVDIR)/rules.d/$${f#udev/}"; \
		chmod 0644 "$(DESTDIR)$(UDEVDIR)/rules.d/$${f#udev/}"; done
endif

# deb: the Debian packages rxectl and rxe-dkms (dpkg-buildpackage -us -uc -b; debian/control
# lists the build dependencies), built from a copy of this tree (tracked and new files, no build
# products) in $(DEB_DIR), where the .deb files land; the checkout stays clean.
DEB_DIR ?= build/deb
DEB_VERSION := $(shell dpkg-parsechangelog -S Version 2>/dev/null)
deb:
	$(quiet) DEB $(DEB_DIR)
	$(Q)rm -rf $(DEB_DIR) && mkdir -p $(DEB_DIR)/rxectl-$(DEB_VERSION)
	$(Q)if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then \
		git ls-files -z --cached --others --exclude-standard | \
			tar --null -T - --ignore-failed-read -cf - 2>/dev/null; \
	else tar --exclude=./build -cf - .; fi | tar -xf - -C $(DEB_DIR)/rxectl-$(DEB_VERSION)
	$(Q)cd $(DEB_DIR)/rxectl-$(DEB_VERSION) && dpkg-buildpackage -us -uc -b \
		> ../build.log 2>&1 || { tail -n 40 ../build.log; echo "make deb: failed, log: $(DEB_DIR)/build.log"; exit 1; }
	$(Q)ls $(DEB_DIR)/*.deb

clean:
	rm -f rxectl cli/*.o cli/*.d tests/unit/*.d $(UNIT_BINS)
	-$(MAKE) -C driver clean KVER=$(KVER) >/dev/null 2>&1

.PHONY: all unit driver deps check check-host check-kernels install deb clean

-include $(CLI_SRCS:.c=.d)
