# hapticd: build, test, install.
#   make               release build
#   make test          every test (scripts/test.sh: unit, end-to-end, CLI, real-kernel VM)
#   make fuzz          long fuzzing campaigns, FUZZ_TIME seconds per target (docs/robustness.md)
#   make soak          the soak test for SOAK_TIME seconds (docs/robustness.md)
#   make install       PREFIX=/usr/local DESTDIR= (binaries, units, config, patterns, udev rule)
PREFIX ?= /usr/local
DESTDIR ?=
BINDIR = $(PREFIX)/bin
SHAREDIR = $(PREFIX)/share
SYSCONFDIR ?= /etc
UNITDIR ?= /etc/systemd/system
UDEVDIR ?= /etc/udev/rules.d
SWIFT ?= swift

FUZZ_TIME ?= 3600
SOAK_TIME ?= 600

.PHONY: all build test fuzz soak install uninstall demo clean

all: build

build:
	$(SWIFT) build -c release --product hapticd
	$(SWIFT) build -c release --product hapticctl

test:
	bash scripts/test.sh

fuzz:
	bash scripts/fuzz.sh --release --time $(FUZZ_TIME)

soak:
	bash scripts/soak.sh --duration $(SOAK_TIME)

demo:
	bash scripts/demo.sh

install: build
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(SHAREDIR)/hapticd/patterns $(DESTDIR)$(SYSCONFDIR)/hapticd/patterns \
		$(DESTDIR)$(UNITDIR) $(DESTDIR)$(UDEVDIR) $(DESTDIR)$(SHAREDIR)/doc/hapticd \
		$(DESTDIR)$(PREFIX)/lib/tmpfiles.d $(DESTDIR)$(PREFIX)/lib/sysusers.d
	install -m 0755 "$$($(SWIFT) build -c release --show-bin-path)/hapticd" $(DESTDIR)$(BINDIR)/hapticd
	install -m 0755 "$$($(SWIFT) build -c release --show-bin-path)/hapticctl" $(DESTDIR)$(BINDIR)/hapticctl
	install -m 0644 config/patterns/*.ahap $(DESTDIR)$(SHAREDIR)/hapticd/patterns/
	# The installed config names where this install put the patterns (an existing config is kept).
	test -e $(DESTDIR)$(SYSCONFDIR)/hapticd/hapticd.toml || \
	  sed -e 's|^#directories = .*|directories = ["$(SHAREDIR)/hapticd/patterns", "$(SYSCONFDIR)/hapticd/patterns"]|' \
	    config/hapticd.toml > $(DESTDIR)$(SYSCONFDIR)/hapticd/hapticd.toml
	sed -e 's|/usr/local/bin/hapticd|$(BINDIR)/hapticd|' \
	    -e 's|/etc/hapticd/hapticd.toml|$(SYSCONFDIR)/hapticd/hapticd.toml|' \
	    -e 's|/usr/share/doc/hapticd|$(SHAREDIR)/doc/hapticd|' systemd/hapticd.service > $(DESTDIR)$(UNITDIR)/hapticd.service
	sed -e 's|/usr/share/doc/hapticd|$(SHAREDIR)/doc/hapticd|' systemd/hapticd.socket > $(DESTDIR)$(UNITDIR)/hapticd.socket
	chmod 0644 $(DESTDIR)$(UNITDIR)/hapticd.service $(DESTDIR)$(UNITDIR)/hapticd.socket
	install -m 0644 systemd/70-hapticd.rules $(DESTDIR)$(UDEVDIR)/70-hapticd.rules
	install -m 0644 systemd/hapticd.tmpfiles $(DESTDIR)$(PREFIX)/lib/tmpfiles.d/hapticd.conf
	install -m 0644 systemd/hapticd.sysusers $(DESTDIR)$(PREFIX)/lib/sysusers.d/hapticd.conf
	install -m 0644 README.md docs/*.md $(DESTDIR)$(SHAREDIR)/doc/hapticd/
	@echo "installed; now: systemctl daemon-reload && systemctl enable --now hapticd.socket"

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/hapticd $(DESTDIR)$(BINDIR)/hapticctl $(DESTDIR)$(UNITDIR)/hapticd.service \
		$(DESTDIR)$(UNITDIR)/hapticd.socket $(DESTDIR)$(UDEVDIR)/70-hapticd.rules \
		$(DESTDIR)$(PREFIX)/lib/tmpfiles.d/hapticd.conf $(DESTDIR)$(PREFIX)/lib/sysusers.d/hapticd.conf
	rm -rf $(DESTDIR)$(SHAREDIR)/hapticd $(DESTDIR)$(SHAREDIR)/doc/hapticd

clean:
	rm -rf .build .build-vm Fuzzing/.build Fuzzing/.build-release

# libhapticd, the C client library (clients/c; docs/clients.md): built, installed, removed and
# cleaned with the daemon — hapticd.h, libhapticd.so.1 and .a, and hapticd.pc under $(PREFIX).
.PHONY: libhapticd install-libhapticd uninstall-libhapticd clean-libhapticd
all: libhapticd
install: install-libhapticd
uninstall: uninstall-libhapticd
clean: clean-libhapticd
libhapticd:
	$(MAKE) -C clients/c PREFIX=$(PREFIX)
install-libhapticd:
	$(MAKE) -C clients/c install PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)
uninstall-libhapticd:
	$(MAKE) -C clients/c uninstall PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)
clean-libhapticd:
	$(MAKE) -C clients/c clean
